//! `AdminService`: one RPC per method of [`basalt_api::Admin`]. The handlers decode the
//! request, run the admin call (inline for reads of the in-memory catalog, on a blocking
//! thread for the rest) and encode the answer.
//!
//! # Layout
//! - [`namespaces`]: create, delete, describe, modify, list.
//! - [`tables`]: create, exists, describe, list, enable/disable, delete, truncate.
//! - [`alter`]: modify table, add/modify/delete family.
//! - [`regions`]: list regions, flush and compact (table, family, region), split, merge,
//!   catalog janitor, cluster health.
//! - [`assignment`]: assign, unassign, close a region; the balancer switch; decommissioning
//!   region servers and clearing dead ones.
//! - [`slowlog`]: the slow log, this server's and the region servers' (on a master).
//! - [`snapshots`]: take, list, delete, clone and restore snapshots.
//! - [`acl`]: grants: grant, revoke, list; the security capabilities.

pub mod acl;
pub mod alter;
pub mod assignment;
pub mod namespaces;
pub mod regions;
pub mod slowlog;
pub mod snapshots;
pub mod tables;

use crate::shared::Shared;
use basalt_api::{Admin, Result as ApiResult};
use basalt_proto::pb;
use basalt_proto::pb::admin_service_server::AdminService;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct AdminSvc {
    shared: Arc<Shared>,
}

impl AdminSvc {
    pub fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

/// Runs one admin call on a blocking thread.
pub(crate) async fn run_admin<T, F>(shared: &Arc<Shared>, call: F) -> Result<T, Status>
where
    T: Send + 'static,
    F: FnOnce(&dyn Admin) -> ApiResult<T> + Send + 'static,
{
    shared.run_blocking(move |s| call(s.admin.as_ref())).await
}

/// Runs one admin read of the in-memory catalog (an existence check, a descriptor, a
/// region's location) inline on the async thread.
pub(crate) fn read_admin<T>(
    shared: &Shared,
    call: impl FnOnce(&dyn Admin) -> ApiResult<T>,
) -> Result<T, Status> {
    shared.run_inline(|s| call(s.admin.as_ref()))
}

type Reply<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl AdminService for AdminSvc {
    async fn create_namespace(&self, r: Request<pb::NamespaceDescriptor>) -> Reply<pb::Empty> {
        namespaces::create(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn delete_namespace(&self, r: Request<pb::NamespaceName>) -> Reply<pb::Empty> {
        namespaces::delete(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn describe_namespace(
        &self,
        r: Request<pb::NamespaceName>,
    ) -> Reply<pb::NamespaceDescriptor> {
        namespaces::describe(&self.shared, r.into_inner()).map(Response::new)
    }
    async fn modify_namespace(&self, r: Request<pb::NamespaceDescriptor>) -> Reply<pb::Empty> {
        namespaces::modify(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn list_namespaces(&self, _r: Request<pb::Empty>) -> Reply<pb::NamespaceList> {
        namespaces::list(&self.shared).map(Response::new)
    }
    async fn create_table(&self, r: Request<pb::CreateTableRequest>) -> Reply<pb::Empty> {
        tables::create(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn table_exists(&self, r: Request<pb::TableName>) -> Reply<pb::Flag> {
        tables::exists(&self.shared, r.into_inner()).map(Response::new)
    }
    async fn describe_table(&self, r: Request<pb::TableName>) -> Reply<pb::TableDescriptor> {
        tables::describe(&self.shared, r.into_inner()).map(Response::new)
    }
    async fn list_tables(&self, r: Request<pb::ListTablesRequest>) -> Reply<pb::TableNameList> {
        tables::list(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn is_table_enabled(&self, r: Request<pb::TableName>) -> Reply<pb::Flag> {
        tables::is_enabled(&self.shared, r.into_inner()).map(Response::new)
    }
    async fn enable_table(&self, r: Request<pb::TableName>) -> Reply<pb::Empty> {
        tables::enable(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn disable_table(&self, r: Request<pb::TableName>) -> Reply<pb::Empty> {
        tables::disable(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn delete_table(&self, r: Request<pb::TableName>) -> Reply<pb::Empty> {
        tables::delete(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn truncate_table(&self, r: Request<pb::TruncateTableRequest>) -> Reply<pb::Empty> {
        tables::truncate(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn modify_table(&self, r: Request<pb::TableDescriptor>) -> Reply<pb::Empty> {
        alter::modify_table(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn add_family(&self, r: Request<pb::FamilyRequest>) -> Reply<pb::Empty> {
        alter::add_family(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn modify_family(&self, r: Request<pb::FamilyRequest>) -> Reply<pb::Empty> {
        alter::modify_family(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn delete_family(&self, r: Request<pb::DeleteFamilyRequest>) -> Reply<pb::Empty> {
        alter::delete_family(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn list_regions(&self, r: Request<pb::TableName>) -> Reply<pb::RegionList> {
        regions::list(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn locate_region(
        &self,
        r: Request<pb::LocateRegionRequest>,
    ) -> Reply<pb::RegionLocation> {
        regions::locate(&self.shared, r.into_inner()).map(Response::new)
    }
    async fn flush(&self, r: Request<pb::TableName>) -> Reply<pb::Empty> {
        regions::flush(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn compact(&self, r: Request<pb::CompactRequest>) -> Reply<pb::Empty> {
        regions::compact(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn compact_family(&self, r: Request<pb::CompactFamilyRequest>) -> Reply<pb::Empty> {
        regions::compact_family(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn flush_region(&self, r: Request<pb::RegionName>) -> Reply<pb::Empty> {
        regions::flush_region(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn compact_region(&self, r: Request<pb::CompactRegionRequest>) -> Reply<pb::Empty> {
        regions::compact_region(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn split(&self, r: Request<pb::SplitRequest>) -> Reply<pb::Empty> {
        regions::split(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn merge_regions(&self, r: Request<pb::MergeRegionsRequest>) -> Reply<pb::Empty> {
        regions::merge(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn run_catalog_janitor(&self, _r: Request<pb::Empty>) -> Reply<pb::Count> {
        regions::janitor(&self.shared).await.map(Response::new)
    }
    async fn cluster_health(&self, _r: Request<pb::Empty>) -> Reply<pb::ClusterHealthReport> {
        regions::health(&self.shared).await.map(Response::new)
    }
    async fn assign(&self, r: Request<pb::RegionName>) -> Reply<pb::Empty> {
        assignment::assign(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn unassign(&self, r: Request<pb::UnassignRequest>) -> Reply<pb::Empty> {
        assignment::unassign(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn close_region(&self, r: Request<pb::CloseRegionRequest>) -> Reply<pb::Empty> {
        assignment::close_region(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn balance_switch(&self, r: Request<pb::Flag>) -> Reply<pb::Flag> {
        assignment::balance_switch(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn balancer_enabled(&self, _r: Request<pb::Empty>) -> Reply<pb::Flag> {
        assignment::balancer_enabled(&self.shared)
            .await
            .map(Response::new)
    }
    async fn decommission_region_servers(
        &self,
        r: Request<pb::DecommissionRequest>,
    ) -> Reply<pb::ServerNameList> {
        assignment::decommission(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn list_decommissioned_region_servers(
        &self,
        _r: Request<pb::Empty>,
    ) -> Reply<pb::ServerNameList> {
        assignment::list_decommissioned(&self.shared)
            .await
            .map(Response::new)
    }
    async fn recommission_region_server(
        &self,
        r: Request<pb::RecommissionRequest>,
    ) -> Reply<pb::Empty> {
        assignment::recommission(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn clear_dead_servers(
        &self,
        r: Request<pb::ServerNameList>,
    ) -> Reply<pb::ClearDeadServersResponse> {
        assignment::clear_dead_servers(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn snapshot(&self, r: Request<pb::SnapshotRequest>) -> Reply<pb::Empty> {
        snapshots::take(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn list_snapshots(&self, r: Request<pb::SnapshotPattern>) -> Reply<pb::SnapshotList> {
        snapshots::list(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn delete_snapshot(&self, r: Request<pb::SnapshotName>) -> Reply<pb::Empty> {
        snapshots::delete(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn clone_snapshot(&self, r: Request<pb::CloneSnapshotRequest>) -> Reply<pb::Empty> {
        snapshots::clone(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn restore_snapshot(&self, r: Request<pb::SnapshotName>) -> Reply<pb::Empty> {
        snapshots::restore(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn restore_snapshot_to_time(
        &self,
        r: Request<pb::RestoreSnapshotToTimeRequest>,
    ) -> Reply<pb::Empty> {
        snapshots::restore_to(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn get_slow_log_responses(
        &self,
        r: Request<pb::SlowLogRequest>,
    ) -> Reply<pb::SlowLogResponses> {
        slowlog::get(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn clear_slow_log_responses(
        &self,
        r: Request<pb::ServerNameList>,
    ) -> Reply<pb::ClearSlowLogResponses> {
        slowlog::clear(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn grant(&self, r: Request<pb::UserPermission>) -> Reply<pb::Empty> {
        acl::grant(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn revoke(&self, r: Request<pb::UserPermission>) -> Reply<pb::Empty> {
        acl::revoke(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn get_user_permissions(
        &self,
        r: Request<pb::PermissionQuery>,
    ) -> Reply<pb::UserPermissionList> {
        acl::get_user_permissions(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }
    async fn security_capabilities(&self, _r: Request<pb::Empty>) -> Reply<pb::ServerNameList> {
        acl::security_capabilities(&self.shared)
            .await
            .map(Response::new)
    }
}
