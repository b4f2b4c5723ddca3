//! Grants of an embedded database (HBase's `hbase:acl`): the file `DATA/acl.grants`, one
//! grant a line in `basalt_api::acl::grants`' form, rewritten whole (written beside,
//! synced, renamed over) by each grant or revoke, and read at the first call after open.
//! Dropping a table or namespace drops its grants, logged line by line.

use crate::database::Database;
use crate::error::io;
use basalt_api::{ApiError, Grants, PermissionQuery, Result, Scope, UserPermission};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const FILE: &str = "acl.grants";

fn path(db: &Database) -> PathBuf {
    db.root.join(FILE)
}

fn load(path: &Path) -> Result<Grants> {
    match std::fs::read_to_string(path) {
        Ok(text) => Grants::decode(&text).map_err(|e| {
            ApiError::new(
                basalt_api::ErrorKind::DataCorruption,
                "java.io.IOException",
                format!("{}: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Grants::new()),
        Err(e) => Err(io(format!("cannot read {}: {e}", path.display()))),
    }
}

fn store(path: &Path, grants: &Grants) -> Result<()> {
    let tmp = path.with_extension("grants.tmp");
    let fail = |e: std::io::Error| io(format!("cannot write {}: {e}", tmp.display()));
    let mut f = std::fs::File::create(&tmp).map_err(fail)?;
    f.write_all(grants.encode().as_bytes()).map_err(fail)?;
    f.sync_all().map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

/// Runs `change` on the grants; writes them back when it answers true.
fn update<T>(db: &Database, change: impl FnOnce(&mut Grants) -> (T, bool)) -> Result<T> {
    let mut slot = db.grants.lock();
    if slot.is_none() {
        *slot = Some(load(&path(db))?);
    }
    let grants = slot
        .as_mut()
        .ok_or_else(|| ApiError::invalid("grants not loaded"))?;
    let mut next = grants.clone();
    let (answer, changed) = change(&mut next);
    if changed {
        store(&path(db), &next)?;
        *grants = next;
    }
    Ok(answer)
}

/// The scope must name a namespace or table that exists.
fn check_scope(db: &Database, scope: &Scope) -> Result<()> {
    let catalog = db.catalog.read();
    match scope {
        Scope::Global => Ok(()),
        Scope::Namespace(ns) if catalog.namespaces.contains_key(ns) => Ok(()),
        Scope::Namespace(ns) => Err(crate::admin::namespaces::not_found(ns)),
        Scope::Table { table, .. } => catalog.table(table).map(|_| ()),
    }
}

pub fn grant(db: &Database, p: &UserPermission) -> Result<()> {
    if p.user.trim_start_matches('@').is_empty() || p.actions.is_empty() {
        return Err(ApiError::invalid(format!(
            "grant needs a user and at least one permission, got user '{}' and '{}'",
            p.user, p.actions
        )));
    }
    let _ddl = db.ddl.read();
    check_scope(db, &p.scope)?;
    update(db, |g| {
        g.grant(p);
        ((), true)
    })?;
    tracing::info!(user = %p.user, actions = %p.actions, scope = %p.scope, "granted");
    Ok(())
}

pub fn revoke(db: &Database, p: &UserPermission) -> Result<()> {
    let left = update(db, |g| {
        let left = g.revoke(p);
        (left, left.is_some())
    })?;
    match left {
        Some(left) => tracing::info!(user = %p.user, scope = %p.scope, left = %left, "revoked"),
        None => tracing::info!(user = %p.user, scope = %p.scope, "revoke: nothing granted there"),
    }
    Ok(())
}

pub fn list(db: &Database, q: &PermissionQuery) -> Result<Vec<UserPermission>> {
    update(db, |g| (g.query(q), false))
}

/// Drops the grants of a table that was deleted (logged).
pub fn drop_table(db: &Database, table: &basalt_types::TableName) -> Result<()> {
    let gone = update(db, |g| {
        let gone = g.drop_table(table);
        let changed = !gone.is_empty();
        (gone, changed)
    })?;
    for p in gone {
        tracing::info!(user = %p.user, actions = %p.actions, scope = %p.scope,
            "grant dropped with its table");
    }
    Ok(())
}

/// Drops the grants of a namespace that was deleted (logged).
pub fn drop_namespace(db: &Database, namespace: &str) -> Result<()> {
    let gone = update(db, |g| {
        let gone = g.drop_namespace(namespace);
        let changed = !gone.is_empty();
        (gone, changed)
    })?;
    for p in gone {
        tracing::info!(user = %p.user, actions = %p.actions, scope = %p.scope,
            "grant dropped with its namespace");
    }
    Ok(())
}
