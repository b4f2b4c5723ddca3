//! Where regions are served: `Assign(name)`, `Unassign(name, force)`,
//! `CloseRegion(name, server?)`, `BalanceSwitch(on)` (answers the previous state) and
//! `BalancerEnabled`. A cluster's master carries them out; one process (standalone) serves
//! every region, so it only keeps the balancer switch and refuses to close regions.

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
