//! Grants in the coordinator (HBase's `hbase:acl`), kept by the active master.
//!
//! Each grant is one key, `acl/<scope>\t<user>` (the scope in the words of
//! `basalt_api::acl::grants`: `global`, `namespace ns`, `table ns:t [f [q]]`), whose value
//! is its permissions (`RW`). Writes go under the active master's guard like every
//! catalog change, and the master keeps the grants in memory; a master becoming active
//! reads them ([`Master::load_grants`]), so they survive restarts and failover. A dropped
//! table's grants are deleted in the transaction that removes the table from the
//! catalog, a namespace's with the namespace; each one dropped is logged.

use crate::master::Master;
use basalt_api::acl::grants::{decode_entry, entry_name};
use basalt_api::{ApiError, Grants, PermissionQuery, Result, Scope, UserPermission};
use basalt_coord::{layout, Op};
use basalt_types::TableName;

/// The coordinator key of the grant of `user` at `scope`.
pub fn key(scope: &Scope, user: &str) -> Vec<u8> {
    layout::acl(&entry_name(scope, user))
}

/// A grant read back from its key and value.
pub fn decode(key: &[u8], value: &[u8]) -> std::result::Result<UserPermission, String> {
    let name = layout::name_under(key, layout::ACL).ok_or("not a grant key")?;
    decode_entry(name, value)
}

impl Master {
    /// Reads the grants a previous master left. A key that does not read is skipped and
    /// logged, never deleted.
    pub async fn load_grants(&self) -> Result<()> {
        let listing = self
            .coord
            .list(layout::ACL.as_bytes())
            .await
            .map_err(|e| crate::error::coordinator(&e))?;
        let mut grants = Grants::new();
        for kv in &listing.kvs {
            match decode(&kv.key, &kv.value) {
                Ok(p) => grants.grant(&p),
                Err(e) => tracing::error!(key = %String::from_utf8_lossy(&kv.key), error = %e,
                    "a grant in the coordinator does not read: skipped"),
            }
        }
        tracing::info!(grants = grants.len(), "grants loaded");
        *self.grants.lock() = grants;
        Ok(())
    }

    fn check_scope(&self, scope: &Scope) -> Result<()> {
        let catalog = self.catalog.read();
        match scope {
            Scope::Global => Ok(()),
            Scope::Namespace(ns) if catalog.namespaces.contains_key(ns) => Ok(()),
            Scope::Namespace(ns) => Err(crate::ddl::namespace_not_found(ns)),
            Scope::Table { table, .. } => catalog.table(table).map(|_| ()),
        }
    }

    /// `grant`: replaces the user's permissions at the scope, which must exist.
    pub async fn grant(&self, p: &UserPermission) -> Result<()> {
        if p.user.trim_start_matches('@').is_empty() || p.actions.is_empty() {
            return Err(ApiError::invalid(format!(
                "grant needs a user and at least one permission, got user '{}' and '{}'",
                p.user, p.actions
            )));
        }
        let _ddl = self.ddl_lock().await?;
        self.check_scope(&p.scope)?;
        let op = Op::put(key(&p.scope, &p.user), p.actions.to_string());
        self.commit(vec![op]).await?;
        self.grants.lock().grant(p);
        tracing::info!(user = %p.user, actions = %p.actions, scope = %p.scope, "granted");
        Ok(())
    }

    /// `revoke`: removes permissions at exactly the scope (all when none are named).
    pub async fn revoke(&self, p: &UserPermission) -> Result<()> {
        let _ddl = self.ddl_lock().await?;
        let mut next = self.grants.lock().clone();
        let Some(left) = next.revoke(p) else {
            tracing::info!(user = %p.user, scope = %p.scope, "revoke: nothing granted there");
            return Ok(());
        };
        let k = key(&p.scope, &p.user);
        let op = match left.is_empty() {
            true => Op::delete(k),
            false => Op::put(k, left.to_string()),
        };
        self.commit(vec![op]).await?;
        *self.grants.lock() = next;
        tracing::info!(user = %p.user, scope = %p.scope, left = %left, "revoked");
        Ok(())
    }

    /// The grants a query selects.
    pub fn user_permissions(&self, q: &PermissionQuery) -> Result<Vec<UserPermission>> {
        self.require_active()?;
        Ok(self.grants.lock().query(q))
    }

    /// The deletions of a table's grants, to commit with the table's removal.
    pub(crate) fn table_grant_deletions(&self, table: &TableName) -> Vec<Op> {
        let query = PermissionQuery {
            scope: Some(Scope::table(table.clone())),
            user: None,
        };
        self.grants
            .lock()
            .query(&query)
            .iter()
            .map(|p| Op::delete(key(&p.scope, &p.user)))
            .collect()
    }

    /// Forgets (in memory, after the commit) the grants of a dropped table, logging each.
    pub(crate) fn forget_table_grants(&self, table: &TableName) {
        for p in self.grants.lock().drop_table(table) {
            tracing::info!(user = %p.user, actions = %p.actions, scope = %p.scope,
                "grant dropped with its table");
        }
    }

    /// The deletions of a namespace's own grants, to commit with the namespace's removal.
    pub(crate) fn namespace_grant_deletions(&self, namespace: &str) -> Vec<Op> {
        let scope = Scope::Namespace(namespace.to_string());
        let query = PermissionQuery {
            scope: Some(scope),
            user: None,
        };
        self.grants
            .lock()
            .query(&query)
            .iter()
            .map(|p| Op::delete(key(&p.scope, &p.user)))
            .collect()
    }

    pub(crate) fn forget_namespace_grants(&self, namespace: &str) {
        for p in self.grants.lock().drop_namespace(namespace) {
            tracing::info!(user = %p.user, actions = %p.actions, scope = %p.scope,
                "grant dropped with its namespace");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::Actions;

    #[test]
    fn grant_keys_read_back() {
        let scope = Scope::Table {
            table: TableName::parse("ns:t").expect("name"),
            family: Some("f".into()),
            qualifier: None,
        };
        let p = UserPermission::new("@ops", scope, Actions::parse("RW").expect("RW"));
        let k = key(&p.scope, &p.user);
        assert_eq!(k, b"acl/table ns:t f\t@ops");
        assert_eq!(decode(&k, b"RW"), Ok(p));
        assert!(decode(b"acl/nonsense", b"RW").is_err());
    }
}
