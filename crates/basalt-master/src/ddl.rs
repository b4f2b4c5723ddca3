//! Namespaces and tables: the catalog changes of DDL, committed to the coordinator, then
//! the regions opened or closed on the region servers. Create, delete, truncate and
//! modify table run as recorded procedures ([`crate::table_procs`]) a new master resumes.

use crate::catalog::{new_record, ops, AssignState, Assignment, TableState};
use crate::error::{
    self, CONSTRAINT, NAMESPACE_EXISTS, NAMESPACE_NOT_FOUND, TABLE_EXISTS, TABLE_NOT_DISABLED,
    TABLE_NOT_ENABLED,
};
use crate::master::Master;
use crate::table_procs::{TableKind, TableProcedure};
use basalt_api::{ApiError, ErrorKind, PreSplit, Result};
use basalt_coord::Op;
use basalt_db::meta::record::RegionRecord;
use basalt_types::name::{DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use basalt_types::split::check_split_keys;
use basalt_types::{NamespaceDescriptor, TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::Arc;

fn split_keys(split: &PreSplit) -> Result<Vec<Bytes>> {
    Ok(match split {
        PreSplit::None => Vec::new(),
        PreSplit::Keys(keys) => check_split_keys(keys.clone())?,
        PreSplit::Count { regions, algorithm } => algorithm.split_points(*regions)?,
    })
}

fn check_user_table(name: &TableName) -> Result<()> {
    if name.is_system() {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            error::DO_NOT_RETRY,
            format!("{name} is a system table and cannot be changed"),
        ));
    }
    Ok(())
}

pub fn namespace_not_found(name: &str) -> ApiError {
    ApiError::new(ErrorKind::NotFound, NAMESPACE_NOT_FOUND, name.to_string())
}

impl Master {
    /// Creates the namespaces every cluster has (`default`, `hbase`) if missing.
    pub async fn ensure_namespaces(&self) -> Result<()> {
        for name in [DEFAULT_NAMESPACE, SYSTEM_NAMESPACE] {
            if !self.catalog.read().namespaces.contains_key(name) {
                let ns = NamespaceDescriptor::new(name)?;
                self.commit(vec![ops::put_namespace(&ns)]).await?;
                self.catalog.write().namespaces.insert(name.to_string(), ns);
            }
        }
        // Every namespace described on the store (those created before the files existed
        // too), for a catalog rebuilt from the store.
        let all: Vec<NamespaceDescriptor> =
            self.catalog.read().namespaces.values().cloned().collect();
        self.describe_namespaces(all).await;
        Ok(())
    }

    pub async fn create_namespace(&self, ns: &NamespaceDescriptor) -> Result<()> {
        self.require_active()?;
        basalt_types::name::validate_namespace(&ns.name)?;
        let _p = self.procedures.lock().await;
        if self.catalog.read().namespaces.contains_key(&ns.name) {
            return Err(ApiError::new(
                ErrorKind::AlreadyExists,
                NAMESPACE_EXISTS,
                ns.name.clone(),
            ));
        }
        self.commit(vec![ops::put_namespace(ns)]).await?;
        self.catalog
            .write()
            .namespaces
            .insert(ns.name.clone(), ns.clone());
        self.describe_namespaces(vec![ns.clone()]).await;
        Ok(())
    }

    pub async fn modify_namespace(&self, ns: &NamespaceDescriptor) -> Result<()> {
        self.require_active()?;
        let _p = self.procedures.lock().await;
        if !self.catalog.read().namespaces.contains_key(&ns.name) {
            return Err(namespace_not_found(&ns.name));
        }
        self.commit(vec![ops::put_namespace(ns)]).await?;
        self.catalog
            .write()
            .namespaces
            .insert(ns.name.clone(), ns.clone());
        self.describe_namespaces(vec![ns.clone()]).await;
        Ok(())
    }

    pub async fn delete_namespace(&self, name: &str) -> Result<()> {
        self.require_active()?;
        if name == DEFAULT_NAMESPACE || name == SYSTEM_NAMESPACE {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                CONSTRAINT,
                format!("Reserved namespace {name} cannot be removed."),
            ));
        }
        let _p = self.procedures.lock().await;
        {
            let catalog = self.catalog.read();
            if !catalog.namespaces.contains_key(name) {
                return Err(namespace_not_found(name));
            }
            let tables = catalog
                .tables
                .keys()
                .filter(|t| t.namespace() == name)
                .count();
            if tables > 0 {
                return Err(ApiError::new(
                    ErrorKind::InvalidRequest,
                    CONSTRAINT,
                    format!("Only empty namespaces can be removed. Namespace {name} has {tables} tables"),
                ));
            }
        }
        let mut changes = vec![ops::delete_namespace(name)];
        changes.extend(self.namespace_grant_deletions(name));
        self.commit(changes).await?;
        self.forget_namespace_grants(name);
        self.catalog.write().namespaces.remove(name);
        self.forget_namespace(name).await;
        Ok(())
    }

    fn records_for(&self, table: &TableName, keys: &[Bytes]) -> Vec<RegionRecord> {
        let id = self.next_region_id();
        let mut bounds = vec![Bytes::new()];
        bounds.extend(keys.iter().cloned());
        bounds.push(Bytes::new());
        bounds
            .windows(2)
            .map(|w| new_record(table, id, w[0].clone(), w[1].clone()))
            .collect()
    }

    /// Commits new regions (OFFLINE) of a table after `forget` (old regions' entries),
    /// then the table's descriptor and state (ENABLED, or DISABLED for a restore) with
    /// `tail` in the last transaction.
    pub(crate) async fn commit_regions(
        &self,
        descriptor: &TableDescriptor,
        records: &[RegionRecord],
        forget: Vec<Op>,
        tail: Vec<Op>,
        enabled: bool,
    ) -> Result<()> {
        let offline = Assignment::default();
        let mut body = forget;
        body.extend(records.iter().map(ops::put_region));
        body.extend(
            records
                .iter()
                .map(|r| ops::put_assignment(&r.encoded_name, &offline)),
        );
        let mut last = vec![
            ops::put_table(descriptor),
            ops::table_state(&descriptor.name, enabled),
        ];
        last.extend(tail);
        self.commit_with_tail(body, last).await?;
        {
            let mut catalog = self.catalog.write();
            for record in records {
                catalog
                    .regions
                    .insert(record.encoded_name.clone(), record.clone());
                catalog
                    .assign
                    .insert(record.encoded_name.clone(), offline.clone());
            }
            catalog.tables.insert(
                descriptor.name.clone(),
                TableState {
                    descriptor: descriptor.clone(),
                    enabled,
                },
            );
        }
        // A truncated table was disabled: its folder's mark goes with the ENABLED state
        // (and stays for a restored one).
        self.describe_table_state(&descriptor.name, enabled).await;
        Ok(())
    }

    pub async fn create_table(
        self: &Arc<Self>,
        descriptor: &TableDescriptor,
        split: &PreSplit,
    ) -> Result<()> {
        self.require_active()?;
        descriptor.validate()?;
        check_user_table(&descriptor.name)?;
        let keys = split_keys(split)?;
        let _p = self.ddl_lock().await?;
        {
            let catalog = self.catalog.read();
            if !catalog.namespaces.contains_key(descriptor.name.namespace()) {
                return Err(namespace_not_found(descriptor.name.namespace()));
            }
            if catalog.tables.contains_key(&descriptor.name) {
                return Err(ApiError::new(
                    ErrorKind::AlreadyExists,
                    TABLE_EXISTS,
                    descriptor.name.to_string(),
                ));
            }
        }
        let regions = self.records_for(&descriptor.name, &keys);
        self.record_created(descriptor, &regions)?;
        let id = self.next_region_id().to_string();
        let kind = TableKind::Create { regions };
        self.run_table_procedure(TableProcedure::new(id, descriptor.clone(), kind))
            .await
    }

    pub async fn enable_table(self: &Arc<Self>, name: &TableName) -> Result<()> {
        check_user_table(name)?;
        let _p = self.ddl_lock().await?;
        if self.catalog.read().table(name)?.enabled {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                TABLE_NOT_DISABLED,
                name.to_string(),
            ));
        }
        self.commit(vec![ops::table_state(name, true)]).await?;
        if let Some(t) = self.catalog.write().tables.get_mut(name) {
            t.enabled = true;
        }
        self.describe_table_state(name, true).await;
        self.release_closed(name).await?;
        self.assign_unplaced().await
    }

    pub async fn disable_table(self: &Arc<Self>, name: &TableName) -> Result<()> {
        check_user_table(name)?;
        let _p = self.ddl_lock().await?;
        if !self.catalog.read().table(name)?.enabled {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                TABLE_NOT_ENABLED,
                name.to_string(),
            ));
        }
        self.commit(vec![ops::table_state(name, false)]).await?;
        if let Some(t) = self.catalog.write().tables.get_mut(name) {
            t.enabled = false;
        }
        self.describe_table_state(name, false).await;
        let regions: Vec<String> = self
            .catalog
            .read()
            .serving(name)
            .iter()
            .map(|r| r.encoded_name.clone())
            .collect();
        let closed = self.close(regions.clone()).await;
        // A crashed region of a disabled table waits for the table to be enabled, not for
        // a server: it is no longer in transition (it stays CRASHED, its log still named).
        self.end_transitions(&regions);
        closed
    }

    fn require_disabled(&self, name: &TableName) -> Result<()> {
        if self.catalog.read().table(name)?.enabled {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                TABLE_NOT_DISABLED,
                name.to_string(),
            ));
        }
        Ok(())
    }

    /// Every region record of a table, serving or retired.
    pub(crate) fn all_regions(&self, name: &TableName) -> Vec<RegionRecord> {
        self.catalog
            .read()
            .regions
            .values()
            .filter(|r| &r.table == name)
            .cloned()
            .collect()
    }

    /// Drops a disabled table: HBase's `DeleteTableProcedure` ([`crate::table_steps`]).
    pub async fn delete_table(self: &Arc<Self>, name: &TableName) -> Result<()> {
        check_user_table(name)?;
        let _p = self.ddl_lock().await?;
        self.require_disabled(name)?;
        let descriptor = self.catalog.read().table(name)?.descriptor.clone();
        let regions = self
            .all_regions(name)
            .into_iter()
            .map(|r| r.encoded_name)
            .collect();
        let id = self.next_region_id().to_string();
        let kind = TableKind::Delete { regions };
        self.run_table_procedure(TableProcedure::new(id, descriptor, kind))
            .await
    }

    /// Empties a disabled table, keeping its split points if asked: HBase's
    /// `TruncateTableProcedure`.
    pub async fn truncate_table(
        self: &Arc<Self>,
        name: &TableName,
        preserve_splits: bool,
    ) -> Result<()> {
        check_user_table(name)?;
        let _p = self.ddl_lock().await?;
        self.require_disabled(name)?;
        let descriptor = self.catalog.read().table(name)?.descriptor.clone();
        let keys: Vec<Bytes> = match preserve_splits {
            true => self
                .catalog
                .read()
                .serving(name)
                .iter()
                .skip(1)
                .map(|r| r.start_key.clone())
                .collect(),
            false => Vec::new(),
        };
        let old = self
            .all_regions(name)
            .into_iter()
            .map(|r| r.encoded_name)
            .collect();
        let new = self.records_for(name, &keys);
        self.record_created(&descriptor, &new)?;
        let id = self.next_region_id().to_string();
        let kind = TableKind::Truncate { old, new };
        self.run_table_procedure(TableProcedure::new(id, descriptor, kind))
            .await
    }

    /// A new descriptor: HBase's `ModifyTableProcedure`. Committed, then each open region
    /// closed and reopened with it (a dropped family's folders removed in between).
    pub async fn modify_table(self: &Arc<Self>, descriptor: &TableDescriptor) -> Result<()> {
        check_user_table(&descriptor.name)?;
        descriptor.validate()?;
        let _p = self.ddl_lock().await?;
        let old = self
            .catalog
            .read()
            .table(&descriptor.name)?
            .descriptor
            .clone();
        let id = self.next_region_id().to_string();
        let kind = TableKind::Modify { old };
        self.run_table_procedure(TableProcedure::new(id, descriptor.clone(), kind))
            .await
    }

    /// Closes each open region of `table` and reopens it where it was (with the catalog's
    /// descriptor), the folders of `dropped` families removed while it is closed.
    pub(crate) async fn reopen_without(
        self: &Arc<Self>,
        table: &TableName,
        dropped: &[Bytes],
    ) -> Result<()> {
        let regions: Vec<RegionRecord> = self
            .catalog
            .read()
            .serving(table)
            .into_iter()
            .cloned()
            .collect();
        for region in regions {
            let a = self.catalog.read().assignment(&region.encoded_name);
            let reopen_on = match a.state {
                AssignState::Open => a.server.clone(),
                _ => None,
            };
            if reopen_on.is_some() {
                self.close(vec![region.encoded_name.clone()]).await?;
            }
            for family in dropped {
                let dir = self
                    .table_dir(table)
                    .join(&region.encoded_name)
                    .join(basalt_storage::store::family_dir_name(family));
                self.remove_folder(&dir)?;
            }
            if let Some(server) = reopen_on {
                self.open_on(vec![(region.encoded_name.clone(), server)])
                    .await?;
            }
        }
        Ok(())
    }

    /// The descriptor with its families changed by `change`.
    pub fn with_families(
        &self,
        table: &TableName,
        change: impl FnOnce(&mut Vec<basalt_types::FamilyDescriptor>) -> Result<()>,
    ) -> Result<TableDescriptor> {
        let mut descriptor = self.catalog.read().table(table)?.descriptor.clone();
        change(&mut descriptor.families)?;
        Ok(descriptor)
    }
}
