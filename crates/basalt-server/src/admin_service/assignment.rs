//! Where regions are served: `Assign(name)`, `Unassign(name, force)`,
//! `CloseRegion(name, server?)`, `BalanceSwitch(on)` (answers the previous state) and
//! `BalancerEnabled`; decommissioning region servers (`DecommissionRegionServers`,
//! `ListDecommissionedRegionServers`, `RecommissionRegionServer`) and `ClearDeadServers`.
//! A cluster's master carries them out; one process (standalone) serves every region, so
//! it only keeps the balancer switch and refuses to close regions or decommission itself.

use super::run_admin;
use crate::shared::Shared;
use basalt_proto::pb;
use std::sync::Arc;
use tonic::Status;

pub async fn assign(shared: &Arc<Shared>, req: pb::RegionName) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.assign(&req.name)).await?;
    Ok(pb::Empty {})
}

pub async fn unassign(shared: &Arc<Shared>, req: pb::UnassignRequest) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.unassign(&req.region, req.force)).await?;
    Ok(pb::Empty {})
}

pub async fn close_region(
    shared: &Arc<Shared>,
    req: pb::CloseRegionRequest,
) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| {
        a.close_region(&req.region, req.server.as_deref())
    })
    .await?;
    Ok(pb::Empty {})
}

pub async fn balance_switch(shared: &Arc<Shared>, req: pb::Flag) -> Result<pb::Flag, Status> {
    let previous = run_admin(shared, move |a| a.balance_switch(req.value)).await?;
    Ok(pb::Flag { value: previous })
}

pub async fn balancer_enabled(shared: &Arc<Shared>) -> Result<pb::Flag, Status> {
    let on = run_admin(shared, |a| a.balancer_enabled()).await?;
    Ok(pb::Flag { value: on })
}

pub async fn decommission(
    shared: &Arc<Shared>,
    req: pb::DecommissionRequest,
) -> Result<pb::ServerNameList, Status> {
    let names = run_admin(shared, move |a| {
        a.decommission_region_servers(&req.servers, req.offload)
    })
    .await?;
    Ok(pb::ServerNameList { names })
}

pub async fn list_decommissioned(shared: &Arc<Shared>) -> Result<pb::ServerNameList, Status> {
    let names = run_admin(shared, |a| a.list_decommissioned_region_servers()).await?;
    Ok(pb::ServerNameList { names })
}

pub async fn recommission(
    shared: &Arc<Shared>,
    req: pb::RecommissionRequest,
) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| {
        a.recommission_region_server(&req.server, &req.regions)
    })
    .await?;
    Ok(pb::Empty {})
}

pub async fn clear_dead_servers(
    shared: &Arc<Shared>,
    req: pb::ServerNameList,
) -> Result<pb::ClearDeadServersResponse, Status> {
    let outcome = run_admin(shared, move |a| a.clear_dead_servers(&req.names)).await?;
    let (refused, reasons) = outcome.refused.into_iter().unzip();
    Ok(pb::ClearDeadServersResponse {
        cleared: outcome.cleared,
        refused,
        reasons,
    })
}
