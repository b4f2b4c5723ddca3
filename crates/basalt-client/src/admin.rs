//! The remote `Admin`: one `AdminService` call per method, retried on retryable kinds
//! (a cluster's `move`, `balancer` and `status` go to the active master's `MasterService`).

use crate::connection::{retryable, Inner};
use crate::table::bad_response;
use basalt_api::{Admin, ClusterHealth, PreSplit, RegionLocation, RegionReport, Result};
use basalt_proto::convert::schema::encode_pre_split;
use basalt_proto::pb;
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::Arc;

#[derive(Clone)]
pub struct RemoteAdmin {
    inner: Arc<Inner>,
}

/// One admin call with retries: `$method` on a clone of the admin client with `$req`.
macro_rules! admin_call {
    ($self:ident, $method:ident, $req:expr) => {{
        let req = $req;
        $self.inner.call(retryable, || {
            let mut c = $self.inner.admin();
            let req = req.clone();
            async move { c.$method(req).await }
        })
    }};
}

fn wire(name: &TableName) -> pb::TableName {
    name.into()
}

impl RemoteAdmin {
    pub(crate) fn new(inner: Arc<Inner>) -> Self {
        Self { inner }
    }
}

impl RemoteAdmin {
    /// One `locate_region` call, not retried: for callers that retry themselves (a row's
    /// call, a batch's rounds), so that one budget counts every try. Retrying here too
    /// multiplied the budgets: a batch of N rows in a region with no server waited N
    /// times the client's retries.
    pub(crate) fn locate_once(&self, table: &TableName, row: &[u8]) -> Result<RegionLocation> {
        let req = pb::LocateRegionRequest {
            table: Some(wire(table)),
            row: Bytes::copy_from_slice(row),
        };
        let mut client = self.inner.admin();
        let located = self
            .inner
            .once(async move { client.locate_region(req).await });
        if let (Err(e), Some(cluster)) = (&located, &self.inner.cluster) {
            cluster.note_failure(e);
        }
        Ok(located?.into())
    }
}

impl Admin for RemoteAdmin {
    fn create_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()> {
        admin_call!(
            self,
            create_namespace,
            pb::NamespaceDescriptor::from(namespace)
        )?;
        Ok(())
    }

    fn delete_namespace(&self, name: &str) -> Result<()> {
        admin_call!(
            self,
            delete_namespace,
            pb::NamespaceName { name: name.into() }
        )?;
        Ok(())
    }

    fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        let ns = admin_call!(
            self,
            describe_namespace,
            pb::NamespaceName { name: name.into() }
        )?;
        NamespaceDescriptor::try_from(ns).map_err(bad_response)
    }

    fn modify_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()> {
        admin_call!(
            self,
            modify_namespace,
            pb::NamespaceDescriptor::from(namespace)
        )?;
        Ok(())
    }

    fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>> {
        let list = admin_call!(self, list_namespaces, pb::Empty {})?;
        list.namespaces
            .into_iter()
            .map(|n| NamespaceDescriptor::try_from(n).map_err(bad_response))
            .collect()
    }

    fn create_table(&self, descriptor: &TableDescriptor, split: &PreSplit) -> Result<()> {
        let req = pb::CreateTableRequest {
            descriptor: Some(descriptor.into()),
            split: encode_pre_split(split),
        };
        admin_call!(self, create_table, req)?;
        Ok(())
    }

    fn table_exists(&self, name: &TableName) -> Result<bool> {
        Ok(admin_call!(self, table_exists, wire(name))?.value)
    }

    fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        let d = admin_call!(self, describe_table, wire(name))?;
        TableDescriptor::try_from(d).map_err(bad_response)
    }

    fn list_tables(&self, pattern: Option<&str>) -> Result<Vec<TableName>> {
        let req = pb::ListTablesRequest {
            pattern: pattern.map(str::to_string),
        };
        let list = admin_call!(self, list_tables, req)?;
        list.tables
            .into_iter()
            .map(|t| TableName::try_from(t).map_err(bad_response))
            .collect()
    }

    fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        Ok(admin_call!(self, is_table_enabled, wire(name))?.value)
    }

    fn enable_table(&self, name: &TableName) -> Result<()> {
        admin_call!(self, enable_table, wire(name))?;
        Ok(())
    }

    fn disable_table(&self, name: &TableName) -> Result<()> {
        admin_call!(self, disable_table, wire(name))?;
        Ok(())
    }

    fn delete_table(&self, name: &TableName) -> Result<()> {
        admin_call!(self, delete_table, wire(name))?;
        self.inner.locations.forget_table(name);
        Ok(())
    }

    fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        let req = pb::TruncateTableRequest {
            table: Some(wire(name)),
            preserve_splits,
        };
        admin_call!(self, truncate_table, req)?;
        self.inner.locations.forget_table(name);
        Ok(())
    }

    fn modify_table(&self, descriptor: &TableDescriptor) -> Result<()> {
        admin_call!(self, modify_table, pb::TableDescriptor::from(descriptor))?;
        Ok(())
    }

    fn add_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
        let req = pb::FamilyRequest {
            table: Some(wire(table)),
            family: Some(family.into()),
        };
        admin_call!(self, add_family, req)?;
        Ok(())
    }

    fn modify_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
        let req = pb::FamilyRequest {
            table: Some(wire(table)),
            family: Some(family.into()),
        };
        admin_call!(self, modify_family, req)?;
        Ok(())
    }

    fn delete_family(&self, table: &TableName, family: &[u8]) -> Result<()> {
        let req = pb::DeleteFamilyRequest {
            table: Some(wire(table)),
            family: Bytes::copy_from_slice(family),
        };
        admin_call!(self, delete_family, req)?;
        Ok(())
    }

    fn list_regions(&self, table: &TableName) -> Result<Vec<RegionReport>> {
        let list = admin_call!(self, list_regions, wire(table))?;
        list.regions
            .into_iter()
            .map(|r| RegionReport::try_from(r).map_err(bad_response))
            .collect()
    }

    fn locate_region(&self, table: &TableName, row: &[u8]) -> Result<RegionLocation> {
        let req = pb::LocateRegionRequest {
            table: Some(wire(table)),
            row: Bytes::copy_from_slice(row),
        };
        Ok(admin_call!(self, locate_region, req)?.into())
    }

    fn flush(&self, table: &TableName) -> Result<()> {
        admin_call!(self, flush, wire(table))?;
        Ok(())
    }

    fn compact(&self, table: &TableName, major: bool) -> Result<()> {
        let req = pb::CompactRequest {
            table: Some(wire(table)),
            major,
        };
        admin_call!(self, compact, req)?;
        Ok(())
    }

    fn compact_family(&self, table: &TableName, family: &[u8], major: bool) -> Result<()> {
        let req = pb::CompactFamilyRequest {
            table: Some(wire(table)),
            family: Bytes::copy_from_slice(family),
            major,
        };
        admin_call!(self, compact_family, req)?;
        Ok(())
    }

    fn flush_region(&self, region: &str) -> Result<()> {
        admin_call!(
            self,
            flush_region,
            pb::RegionName {
                name: region.into()
            }
        )?;
        Ok(())
    }

    fn compact_region(&self, region: &str, family: Option<&[u8]>, major: bool) -> Result<()> {
        let req = pb::CompactRegionRequest {
            region: region.into(),
            family: family.map(Bytes::copy_from_slice),
            major,
        };
        admin_call!(self, compact_region, req)?;
        Ok(())
    }

    fn split(&self, table: &TableName, key: Option<&[u8]>) -> Result<()> {
        let req = pb::SplitRequest {
            table: Some(wire(table)),
            key: key.map(Bytes::copy_from_slice),
        };
        admin_call!(self, split, req)?;
        Ok(())
    }

    fn merge_regions(&self, a: &str, b: &str) -> Result<()> {
        let req = pb::MergeRegionsRequest {
            a: a.into(),
            b: b.into(),
        };
        admin_call!(self, merge_regions, req)?;
        Ok(())
    }

    fn run_catalog_janitor(&self) -> Result<usize> {
        let count = admin_call!(self, run_catalog_janitor, pb::Empty {})?;
        Ok(usize::try_from(count.value).unwrap_or(usize::MAX))
    }

    fn cluster_health(&self) -> Result<ClusterHealth> {
        let report = admin_call!(self, cluster_health, pb::Empty {})?;
        ClusterHealth::try_from(report).map_err(bad_response)
    }

    fn move_region(&self, region: &str, server: Option<&str>) -> Result<()> {
        if self.inner.cluster.is_none() {
            return Ok(());
        }
        let req = pb::MoveRequest {
            region: region.to_string(),
            server: server.unwrap_or_default().to_string(),
        };
        self.inner.call(retryable, || {
            let mut c = self.inner.master();
            let req = req.clone();
            async move { c.move_region(req).await }
        })?;
        Ok(())
    }

    fn cluster_status(&self) -> Result<Option<basalt_api::ClusterStatus>> {
        if self.inner.cluster.is_none() {
            return Ok(None);
        }
        let status = self.inner.call(retryable, || {
            let mut c = self.inner.master();
            async move { c.get_cluster_status(pb::Empty {}).await }
        })?;
        Ok(Some(basalt_api::ClusterStatus {
            active_master: status.active_master,
            backup_masters: status.backup_masters,
            servers: status
                .servers
                .into_iter()
                .map(|s| basalt_api::ServerStatus {
                    name: s.name,
                    regions: s.regions,
                    read_requests: s.read_requests,
                    write_requests: s.write_requests,
                    memstore_bytes: s.memstore_bytes,
                    store_file_bytes: s.store_file_bytes,
                    requests_per_second: s.requests_per_second,
                })
                .collect(),
            dead_servers: status.dead_servers,
            regions_in_transition: status.regions_in_transition,
            balancer_on: status.balancer_on,
        }))
    }

    fn assign(&self, region: &str) -> Result<()> {
        let req = pb::RegionName {
            name: region.into(),
        };
        admin_call!(self, assign, req)?;
        Ok(())
    }

    fn unassign(&self, region: &str, force: bool) -> Result<()> {
        let req = pb::UnassignRequest {
            region: region.into(),
            force,
        };
        admin_call!(self, unassign, req)?;
        Ok(())
    }

    fn close_region(&self, region: &str, server: Option<&str>) -> Result<()> {
        let req = pb::CloseRegionRequest {
            region: region.into(),
            server: server.map(str::to_string),
        };
        admin_call!(self, close_region, req)?;
        Ok(())
    }

    fn balance_switch(&self, on: bool) -> Result<bool> {
        Ok(admin_call!(self, balance_switch, pb::Flag { value: on })?.value)
    }

    fn balancer_enabled(&self) -> Result<bool> {
        Ok(admin_call!(self, balancer_enabled, pb::Empty {})?.value)
    }

    fn decommission_region_servers(
        &self,
        servers: &[String],
        offload: bool,
    ) -> Result<Vec<String>> {
        let req = pb::DecommissionRequest {
            servers: servers.to_vec(),
            offload,
        };
        Ok(admin_call!(self, decommission_region_servers, req)?.names)
    }

    fn list_decommissioned_region_servers(&self) -> Result<Vec<String>> {
        Ok(admin_call!(self, list_decommissioned_region_servers, pb::Empty {})?.names)
    }

    fn recommission_region_server(&self, server: &str, regions: &[String]) -> Result<()> {
        let req = pb::RecommissionRequest {
            server: server.to_string(),
            regions: regions.to_vec(),
        };
        admin_call!(self, recommission_region_server, req)?;
        Ok(())
    }

    fn get_slowlog_responses(
        &self,
        servers: &[String],
        query: &basalt_api::SlowLogQuery,
    ) -> Result<Vec<basalt_api::SlowLogRecord>> {
        let req = basalt_proto::convert::slowlog::request(servers, query);
        let answer = admin_call!(self, get_slow_log_responses, req)?;
        Ok(answer.records.into_iter().map(Into::into).collect())
    }

    fn snapshot(
        &self,
        table: &TableName,
        name: &str,
        options: &basalt_api::SnapshotOptions,
    ) -> Result<()> {
        let req = pb::SnapshotRequest {
            table: Some(wire(table)),
            name: name.to_string(),
            skip_flush: options.skip_flush,
            ttl_secs: options.ttl_secs.unwrap_or(0),
        };
        admin_call!(self, snapshot, req)?;
        Ok(())
    }

    fn list_snapshots(
        &self,
        pattern: Option<&str>,
    ) -> Result<Vec<basalt_api::SnapshotDescription>> {
        let req = pb::SnapshotPattern {
            pattern: pattern.map(str::to_string),
        };
        admin_call!(self, list_snapshots, req)?
            .snapshots
            .into_iter()
            .map(|s| {
                let table =
                    basalt_proto::convert::required(s.table, "table").map_err(bad_response)?;
                Ok(basalt_api::SnapshotDescription {
                    name: s.name,
                    table: TableName::try_from(table).map_err(bad_response)?,
                    creation_time_ms: s.creation_time_ms,
                    ttl_secs: (s.ttl_secs > 0).then_some(s.ttl_secs),
                    version: s.version,
                })
            })
            .collect()
    }

    fn delete_snapshot(&self, name: &str) -> Result<()> {
        admin_call!(
            self,
            delete_snapshot,
            pb::SnapshotName {
                name: name.to_string()
            }
        )?;
        Ok(())
    }

    fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        let req = pb::CloneSnapshotRequest {
            name: name.to_string(),
            table: Some(wire(table)),
        };
        admin_call!(self, clone_snapshot, req)?;
        Ok(())
    }

    fn restore_snapshot_to(&self, name: &str, to_ms: i64) -> Result<()> {
        let req = pb::RestoreSnapshotToTimeRequest {
            name: name.to_string(),
            to_ms,
        };
        admin_call!(self, restore_snapshot_to_time, req)?;
        Ok(())
    }

    fn restore_snapshot(&self, name: &str) -> Result<()> {
        admin_call!(
            self,
            restore_snapshot,
            pb::SnapshotName {
                name: name.to_string()
            }
        )?;
        Ok(())
    }

    fn clear_slowlog_responses(&self, servers: &[String]) -> Result<Vec<(String, bool)>> {
        let req = pb::ServerNameList {
            names: servers.to_vec(),
        };
        let answer = admin_call!(self, clear_slow_log_responses, req)?;
        Ok(answer.servers.into_iter().zip(answer.cleared).collect())
    }

    fn clear_dead_servers(&self, servers: &[String]) -> Result<basalt_api::ClearedDeadServers> {
        let req = pb::ServerNameList {
            names: servers.to_vec(),
        };
        let answer = admin_call!(self, clear_dead_servers, req)?;
        if answer.refused.len() != answer.reasons.len() {
            return Err(basalt_api::ApiError::new(
                basalt_api::ErrorKind::Unavailable,
                "java.io.IOException",
                "malformed response: a refused server without its reason",
            ));
        }
        Ok(basalt_api::ClearedDeadServers {
            cleared: answer.cleared,
            refused: answer.refused.into_iter().zip(answer.reasons).collect(),
        })
    }

    fn balance(&self) -> Result<bool> {
        if self.inner.cluster.is_none() {
            // One server: nothing to move; it "runs" when switched on.
            return self.balancer_enabled();
        }
        let ran = self.inner.call(retryable, || {
            let mut c = self.inner.master();
            async move { c.balance(pb::Empty {}).await }
        })?;
        Ok(ran.value)
    }

    fn grant(&self, permission: &basalt_api::UserPermission) -> Result<()> {
        admin_call!(self, grant, basalt_proto::convert::acl::to_wire(permission))?;
        Ok(())
    }

    fn revoke(&self, permission: &basalt_api::UserPermission) -> Result<()> {
        admin_call!(
            self,
            revoke,
            basalt_proto::convert::acl::to_wire(permission)
        )?;
        Ok(())
    }

    fn get_user_permissions(
        &self,
        query: &basalt_api::PermissionQuery,
    ) -> Result<Vec<basalt_api::UserPermission>> {
        let req = pb::PermissionQuery {
            scope: query
                .scope
                .as_ref()
                .map(basalt_api::acl::grants::encode_scope),
            user: query.user.clone(),
        };
        let list = admin_call!(self, get_user_permissions, req)?;
        list.permissions
            .iter()
            .map(basalt_proto::convert::acl::from_wire)
            .collect()
    }

    fn security_capabilities(&self) -> Result<Vec<String>> {
        Ok(admin_call!(self, security_capabilities, pb::Empty {})?.names)
    }
}
