//! The embedded `Admin`.
//!
//! # Layout
//! - [`namespaces`], [`tables`] (lifecycle), [`alter`] (online schema changes),
//!   [`regions`] (listing, flush, compaction).

pub mod alter;
pub mod namespaces;
pub mod regions;
pub mod tables;

use crate::database::Database;
use basalt_api::{Admin, ClusterHealth, PreSplit, RegionLocation, RegionReport, Result};
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};
use std::sync::atomic::Ordering;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct DbAdmin {
    db: Arc<Database>,
}

impl DbAdmin {
    pub fn new(db: Arc<Database>) -> Self {
        Self { db }
    }
}

impl Admin for DbAdmin {
    fn create_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()> {
        namespaces::create(&self.db, namespace)
    }

    fn delete_namespace(&self, name: &str) -> Result<()> {
        namespaces::delete(&self.db, name)
    }

    fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        namespaces::describe(&self.db, name)
    }

    fn modify_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()> {
        namespaces::modify(&self.db, namespace)
    }

    fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>> {
        self.db.catalog.read().require_meta()?;
        Ok(namespaces::list(&self.db))
    }

    fn create_table(&self, descriptor: &TableDescriptor, split: &PreSplit) -> Result<()> {
        tables::create(&self.db, descriptor, split)
    }

    fn table_exists(&self, name: &TableName) -> Result<bool> {
        tables::exists(&self.db, name)
    }

    fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        tables::describe(&self.db, name)
    }

    fn list_tables(&self, pattern: Option<&str>) -> Result<Vec<TableName>> {
        tables::list(&self.db, pattern)
    }

    fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        tables::is_enabled(&self.db, name)
    }

    fn enable_table(&self, name: &TableName) -> Result<()> {
        tables::enable(&self.db, name)
    }

    fn disable_table(&self, name: &TableName) -> Result<()> {
        tables::disable(&self.db, name)
    }

    fn delete_table(&self, name: &TableName) -> Result<()> {
        tables::delete(&self.db, name)
    }

    fn snapshot(
        &self,
        table: &TableName,
        name: &str,
        options: &basalt_api::SnapshotOptions,
    ) -> Result<()> {
        crate::snapshot::take::take(&self.db, table, name, options)
    }

    fn list_snapshots(
        &self,
        pattern: Option<&str>,
    ) -> Result<Vec<basalt_api::SnapshotDescription>> {
        crate::snapshot::list(&self.db, pattern)
    }

    fn delete_snapshot(&self, name: &str) -> Result<()> {
        crate::snapshot::delete(&self.db, name)
    }

    fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        crate::snapshot::clone::clone(&self.db, name, table)
    }

    fn restore_snapshot(&self, name: &str) -> Result<()> {
        crate::snapshot::clone::restore(&self.db, name)
    }

    fn restore_snapshot_to(&self, name: &str, to_ms: i64) -> Result<()> {
        crate::snapshot::clone::restore_to(&self.db, name, Some(to_ms))
    }

    fn grant(&self, permission: &basalt_api::UserPermission) -> Result<()> {
        crate::acl::grant(&self.db, permission)
    }

    fn revoke(&self, permission: &basalt_api::UserPermission) -> Result<()> {
        crate::acl::revoke(&self.db, permission)
    }

    fn get_user_permissions(
        &self,
        query: &basalt_api::PermissionQuery,
    ) -> Result<Vec<basalt_api::UserPermission>> {
        crate::acl::list(&self.db, query)
    }

    fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        tables::truncate(&self.db, name, preserve_splits)
    }

    fn modify_table(&self, descriptor: &TableDescriptor) -> Result<()> {
        alter::modify_table(&self.db, descriptor)
    }

    fn add_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
        alter::add_family(&self.db, table, family)
    }

    fn modify_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
        alter::modify_family(&self.db, table, family)
    }

    fn delete_family(&self, table: &TableName, family: &[u8]) -> Result<()> {
        alter::delete_family(&self.db, table, family)
    }

    fn list_regions(&self, table: &TableName) -> Result<Vec<RegionReport>> {
        regions::list(&self.db, table)
    }

    fn locate_region(&self, table: &TableName, row: &[u8]) -> Result<RegionLocation> {
        regions::locate(&self.db, table, row)
    }

    fn flush(&self, table: &TableName) -> Result<()> {
        regions::flush(&self.db, table)
    }

    fn compact(&self, table: &TableName, major: bool) -> Result<()> {
        regions::compact(&self.db, table, major)
    }

    fn compact_family(&self, table: &TableName, family: &[u8], major: bool) -> Result<()> {
        regions::compact_family(&self.db, table, family, major)
    }

    fn flush_region(&self, region: &str) -> Result<()> {
        regions::flush_region(&self.db, region)
    }

    fn compact_region(&self, region: &str, family: Option<&[u8]>, major: bool) -> Result<()> {
        regions::compact_region(&self.db, region, family, major)
    }

    fn split(&self, table: &TableName, key: Option<&[u8]>) -> Result<()> {
        crate::split::split_table(&self.db, table, key)
    }

    fn merge_regions(&self, a: &str, b: &str) -> Result<()> {
        crate::split::merge::merge(&self.db, a, b)
    }

    fn run_catalog_janitor(&self) -> Result<usize> {
        crate::split::janitor::run(&self.db)
    }

    fn cluster_health(&self) -> Result<ClusterHealth> {
        self.db.health()
    }

    /// Every region of an enabled table is open in this process; one that failed to open
    /// answers its failure.
    fn assign(&self, region: &str) -> Result<()> {
        regions::region_named(&self.db, region).map(|_| ())
    }

    fn unassign(&self, region: &str, _force: bool) -> Result<()> {
        regions::region_named(&self.db, region)?;
        Err(basalt_api::needs_cluster("unassign"))
    }

    fn close_region(&self, region: &str, _server: Option<&str>) -> Result<()> {
        regions::region_named(&self.db, region)?;
        Err(basalt_api::needs_cluster("close_region"))
    }

    fn balance_switch(&self, on: bool) -> Result<bool> {
        Ok(self.db.balancer_on.swap(on, Ordering::AcqRel))
    }

    fn balancer_enabled(&self) -> Result<bool> {
        Ok(self.db.balancer_on.load(Ordering::Acquire))
    }
}
