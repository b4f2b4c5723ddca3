//! The `Admin` API of a cluster, served by the master: each call blocks on the master's
//! async procedures (the gRPC server runs admin calls on blocking threads).

use crate::master::Master;
use basalt_api::{
    Admin, ApiError, ClearedDeadServers, ClusterHealth, FailedRegion, PreSplit, RegionLocation,
    RegionReport, Result,
};
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};
use std::future::Future;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct MasterAdmin {
    master: Arc<Master>,
}

impl MasterAdmin {
    pub fn new(master: Arc<Master>) -> Self {
        Self { master }
    }

    /// Runs `work` to completion from a blocking caller (a plain thread or a runtime's
    /// blocking thread).
    fn block<T>(&self, work: impl Future<Output = Result<T>>) -> Result<T> {
        match tokio::runtime::Handle::try_current() {
            Ok(_) => tokio::task::block_in_place(|| self.master.runtime.block_on(work)),
            Err(_) => self.master.runtime.block_on(work),
        }
    }

    fn read<T>(&self, work: impl FnOnce(&Master) -> Result<T>) -> Result<T> {
        self.master.require_active()?;
        work(&self.master)
    }
}

impl Admin for MasterAdmin {
    fn create_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()> {
        self.block(self.master.create_namespace(namespace))
    }
    fn delete_namespace(&self, name: &str) -> Result<()> {
        self.block(self.master.delete_namespace(name))
    }
    fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        self.read(|m| {
            m.catalog
                .read()
                .namespaces
                .get(name)
                .cloned()
                .ok_or_else(|| crate::ddl::namespace_not_found(name))
        })
    }
    fn modify_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()> {
        self.block(self.master.modify_namespace(namespace))
    }
    fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>> {
        self.read(|m| Ok(m.catalog.read().namespaces.values().cloned().collect()))
    }

    fn create_table(&self, descriptor: &TableDescriptor, split: &PreSplit) -> Result<()> {
        self.block(self.master.create_table(descriptor, split))
    }
    fn table_exists(&self, name: &TableName) -> Result<bool> {
        self.read(|m| Ok(m.catalog.read().tables.contains_key(name)))
    }
    fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        self.read(|m| Ok(m.catalog.read().table(name)?.descriptor.clone()))
    }
    fn list_tables(&self, pattern: Option<&str>) -> Result<Vec<TableName>> {
        let matcher = match pattern {
            Some(p) => Some(
                regex::Regex::new(&format!("^(?:{p})$"))
                    .map_err(|e| ApiError::invalid(format!("bad table pattern '{p}': {e}")))?,
            ),
            None => None,
        };
        self.read(|m| {
            Ok(m.catalog
                .read()
                .tables
                .keys()
                .filter(|t| !t.is_system())
                .filter(|t| {
                    matcher
                        .as_ref()
                        .is_none_or(|re| re.is_match(&t.to_string()))
                })
                .cloned()
                .collect())
        })
    }
    fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        self.read(|m| Ok(m.catalog.read().table(name)?.enabled))
    }
    fn enable_table(&self, name: &TableName) -> Result<()> {
        self.block(self.master.enable_table(name))
    }
    fn disable_table(&self, name: &TableName) -> Result<()> {
        self.block(self.master.disable_table(name))
    }
    fn delete_table(&self, name: &TableName) -> Result<()> {
        self.block(self.master.delete_table(name))
    }
    fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        self.block(self.master.truncate_table(name, preserve_splits))
    }

    fn modify_table(&self, descriptor: &TableDescriptor) -> Result<()> {
        self.block(self.master.modify_table(descriptor))
    }
    fn add_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
        let descriptor = self.master.with_families(table, |families| {
            if families.iter().any(|f| f.name == family.name) {
                return Err(ApiError::invalid(format!(
                    "Family '{}' already exists in table '{table}'",
                    String::from_utf8_lossy(&family.name)
                )));
            }
            families.push(family.clone());
            Ok(())
        })?;
        self.modify_table(&descriptor)
    }
    fn modify_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
        let descriptor = self.master.with_families(table, |families| {
            let slot = families
                .iter_mut()
                .find(|f| f.name == family.name)
                .ok_or_else(|| {
                    ApiError::invalid(format!(
                        "Family '{}' does not exist in table '{table}'",
                        String::from_utf8_lossy(&family.name)
                    ))
                })?;
            *slot = family.clone();
            Ok(())
        })?;
        self.modify_table(&descriptor)
    }
    fn delete_family(&self, table: &TableName, family: &[u8]) -> Result<()> {
        let descriptor = self.master.with_families(table, |families| {
            if !families.iter().any(|f| f.name.as_ref() == family) {
                return Err(ApiError::invalid(format!(
                    "Family '{}' does not exist in table '{table}'",
                    String::from_utf8_lossy(family)
                )));
            }
            if families.len() == 1 {
                return Err(ApiError::invalid(format!(
                    "Family '{}' is the only column family in the table, so it cannot be deleted",
                    String::from_utf8_lossy(family)
                )));
            }
            families.retain(|f| f.name.as_ref() != family);
            Ok(())
        })?;
        self.modify_table(&descriptor)
    }

    fn list_regions(&self, table: &TableName) -> Result<Vec<RegionReport>> {
        self.master.require_active()?;
        self.block(self.master.list_regions(table))
    }
    fn locate_region(&self, table: &TableName, row: &[u8]) -> Result<RegionLocation> {
        self.read(|m| m.locate(table, row))
    }
    fn flush(&self, table: &TableName) -> Result<()> {
        let regions = self.read(|m| m.table_regions(table))?;
        self.block(self.master.region_work(regions, None))
    }
    fn compact(&self, table: &TableName, major: bool) -> Result<()> {
        let regions = self.read(|m| m.table_regions(table))?;
        self.block(self.master.region_work(regions, Some((None, major))))
    }
    fn compact_family(&self, table: &TableName, family: &[u8], major: bool) -> Result<()> {
        let regions = self.read(|m| m.table_regions(table))?;
        let family = Some(bytes::Bytes::copy_from_slice(family));
        self.block(self.master.region_work(regions, Some((family, major))))
    }
    fn flush_region(&self, region: &str) -> Result<()> {
        self.master.require_active()?;
        self.block(self.master.region_work(vec![region.to_string()], None))
    }
    fn compact_region(&self, region: &str, family: Option<&[u8]>, major: bool) -> Result<()> {
        self.master.require_active()?;
        let family = family.map(bytes::Bytes::copy_from_slice);
        self.block(
            self.master
                .region_work(vec![region.to_string()], Some((family, major))),
        )
    }
    fn snapshot(
        &self,
        table: &TableName,
        name: &str,
        options: &basalt_api::SnapshotOptions,
    ) -> Result<()> {
        self.block(self.master.snapshot(table, name, options))
    }
    fn list_snapshots(
        &self,
        pattern: Option<&str>,
    ) -> Result<Vec<basalt_api::SnapshotDescription>> {
        self.master.list_snapshots(pattern)
    }
    fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.block(self.master.delete_snapshot(name))
    }
    fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        self.block(self.master.clone_snapshot(name, table))
    }
    fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.block(self.master.restore_snapshot(name, None))
    }
    fn restore_snapshot_to(&self, name: &str, to_ms: i64) -> Result<()> {
        self.block(self.master.restore_snapshot(name, Some(to_ms)))
    }
    fn split(&self, table: &TableName, key: Option<&[u8]>) -> Result<()> {
        self.block(self.master.split(table, key))
    }
    fn merge_regions(&self, a: &str, b: &str) -> Result<()> {
        self.block(self.master.merge(a, b))
    }
    fn run_catalog_janitor(&self) -> Result<usize> {
        self.block(self.master.run_janitor())
    }
    fn assign(&self, region: &str) -> Result<()> {
        self.block(self.master.assign_region(region))
    }
    fn unassign(&self, region: &str, _force: bool) -> Result<()> {
        self.block(self.master.unassign_region(region))
    }
    fn close_region(&self, region: &str, _server: Option<&str>) -> Result<()> {
        self.block(self.master.unassign_region(region))
    }
    fn balance(&self) -> Result<bool> {
        self.block(self.master.balance(false))
    }
    fn balance_switch(&self, on: bool) -> Result<bool> {
        self.block(self.master.set_balancer(on))
    }
    fn balancer_enabled(&self) -> Result<bool> {
        self.read(|m| Ok(m.balancer_on.load(std::sync::atomic::Ordering::Acquire)))
    }
    fn decommission_region_servers(
        &self,
        servers: &[String],
        offload: bool,
    ) -> Result<Vec<String>> {
        self.block(self.master.decommission(servers, offload))
    }
    fn list_decommissioned_region_servers(&self) -> Result<Vec<String>> {
        self.read(|m| Ok(m.servers.decommissioned()))
    }
    fn recommission_region_server(&self, server: &str, regions: &[String]) -> Result<()> {
        self.block(self.master.recommission(server, regions))
    }
    fn clear_dead_servers(&self, servers: &[String]) -> Result<ClearedDeadServers> {
        self.block(self.master.clear_dead_servers(servers))
    }
    fn get_slowlog_responses(
        &self,
        servers: &[String],
        query: &basalt_api::SlowLogQuery,
    ) -> Result<Vec<basalt_api::SlowLogRecord>> {
        self.block(self.master.slowlog_responses(servers, query))
    }
    fn clear_slowlog_responses(&self, servers: &[String]) -> Result<Vec<(String, bool)>> {
        self.block(self.master.clear_slowlog(servers))
    }
    fn cluster_health(&self) -> Result<ClusterHealth> {
        self.read(|m| {
            let catalog = m.catalog.read();
            let failed_regions = catalog
                .regions
                .values()
                .filter(|r| r.is_serving())
                .filter_map(|r| {
                    let a = catalog.assignment(&r.encoded_name);
                    let cause = match a.state {
                        crate::catalog::AssignState::FailedOpen => {
                            a.failure.clone().unwrap_or_default()
                        }
                        crate::catalog::AssignState::Crashed => format!(
                            "its server {} died; it reopens once a live server has read that log",
                            a.server.clone().unwrap_or_default()
                        ),
                        _ => return None,
                    };
                    Some(FailedRegion {
                        table: r.table.clone(),
                        region_name: r.region_name(),
                        encoded_name: r.encoded_name.clone(),
                        file: None,
                        cause,
                    })
                })
                .collect();
            // Files set aside in a shared folder's quarantine (an object store's is not
            // listed here yet).
            let quarantined = basalt_db::health::quarantined(&m.config.store_root)?;
            Ok(ClusterHealth {
                failed_regions,
                quarantined,
                ..ClusterHealth::default()
            })
        })
    }
    fn grant(&self, permission: &basalt_api::UserPermission) -> Result<()> {
        self.block(self.master.grant(permission))
    }
    fn revoke(&self, permission: &basalt_api::UserPermission) -> Result<()> {
        self.block(self.master.revoke(permission))
    }
    fn get_user_permissions(
        &self,
        query: &basalt_api::PermissionQuery,
    ) -> Result<Vec<basalt_api::UserPermission>> {
        self.master.user_permissions(query)
    }
}
