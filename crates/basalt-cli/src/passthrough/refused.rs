//! The admin a call without an authenticated principal gets from
//! [`super::PassThrough`]: every method refused as unauthenticated, nothing reaches the
//! backend. (A gateway requiring authentication admits no such call; this is the answer
//! should one slip through, instead of running it as someone.)

use super::unauthenticated;
use basalt_api::{Admin, ClusterHealth, PreSplit, RegionLocation, RegionReport, Result};
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};

/// Refuses everything.
#[derive(Debug, Clone, Copy)]
pub struct RefusedAdmin;

impl Admin for RefusedAdmin {
    fn create_namespace(&self, _namespace: &NamespaceDescriptor) -> Result<()> {
        Err(unauthenticated())
    }

    fn delete_namespace(&self, _name: &str) -> Result<()> {
        Err(unauthenticated())
    }

    fn describe_namespace(&self, _name: &str) -> Result<NamespaceDescriptor> {
        Err(unauthenticated())
    }

    fn modify_namespace(&self, _namespace: &NamespaceDescriptor) -> Result<()> {
        Err(unauthenticated())
    }

    fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>> {
        Err(unauthenticated())
    }

    fn create_table(&self, _descriptor: &TableDescriptor, _split: &PreSplit) -> Result<()> {
        Err(unauthenticated())
    }

    fn table_exists(&self, _name: &TableName) -> Result<bool> {
        Err(unauthenticated())
    }

    fn describe_table(&self, _name: &TableName) -> Result<TableDescriptor> {
        Err(unauthenticated())
    }

    fn list_tables(&self, _pattern: Option<&str>) -> Result<Vec<TableName>> {
        Err(unauthenticated())
    }

    fn is_table_enabled(&self, _name: &TableName) -> Result<bool> {
        Err(unauthenticated())
    }

    fn enable_table(&self, _name: &TableName) -> Result<()> {
        Err(unauthenticated())
    }

    fn disable_table(&self, _name: &TableName) -> Result<()> {
        Err(unauthenticated())
    }

    fn delete_table(&self, _name: &TableName) -> Result<()> {
        Err(unauthenticated())
    }

    fn truncate_table(&self, _name: &TableName, _preserve_splits: bool) -> Result<()> {
        Err(unauthenticated())
    }

    fn modify_table(&self, _descriptor: &TableDescriptor) -> Result<()> {
        Err(unauthenticated())
    }

    fn add_family(&self, _table: &TableName, _family: &FamilyDescriptor) -> Result<()> {
        Err(unauthenticated())
    }

    fn modify_family(&self, _table: &TableName, _family: &FamilyDescriptor) -> Result<()> {
        Err(unauthenticated())
    }

    fn delete_family(&self, _table: &TableName, _family: &[u8]) -> Result<()> {
        Err(unauthenticated())
    }

    fn list_regions(&self, _table: &TableName) -> Result<Vec<RegionReport>> {
        Err(unauthenticated())
    }

    fn locate_region(&self, _table: &TableName, _row: &[u8]) -> Result<RegionLocation> {
        Err(unauthenticated())
    }

    fn flush(&self, _table: &TableName) -> Result<()> {
        Err(unauthenticated())
    }

    fn compact(&self, _table: &TableName, _major: bool) -> Result<()> {
        Err(unauthenticated())
    }

    fn compact_family(&self, _table: &TableName, _family: &[u8], _major: bool) -> Result<()> {
        Err(unauthenticated())
    }

    fn flush_region(&self, _region: &str) -> Result<()> {
        Err(unauthenticated())
    }

    fn compact_region(&self, _region: &str, _family: Option<&[u8]>, _major: bool) -> Result<()> {
        Err(unauthenticated())
    }

    fn split(&self, _table: &TableName, _key: Option<&[u8]>) -> Result<()> {
        Err(unauthenticated())
    }

    fn merge_regions(&self, _a: &str, _b: &str) -> Result<()> {
        Err(unauthenticated())
    }

    fn run_catalog_janitor(&self) -> Result<usize> {
        Err(unauthenticated())
    }

    fn cluster_health(&self) -> Result<ClusterHealth> {
        Err(unauthenticated())
    }

    fn balance_switch(&self, _on: bool) -> Result<bool> {
        Err(unauthenticated())
    }

    fn balancer_enabled(&self) -> Result<bool> {
        Err(unauthenticated())
    }
}
