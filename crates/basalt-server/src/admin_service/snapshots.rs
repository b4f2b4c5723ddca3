//! Snapshots: `Snapshot(table, name, skip_flush, ttl)`, `ListSnapshots(pattern)`,
//! `DeleteSnapshot(name)`, `CloneSnapshot(name, table)`, `RestoreSnapshot(name)`.

use super::run_admin;
use crate::error::status;
use crate::shared::Shared;
use basalt_proto::convert::required;
use basalt_proto::pb;
use basalt_types::TableName;
use std::sync::Arc;
use tonic::Status;

fn table(t: Option<pb::TableName>) -> Result<TableName, Status> {
    TableName::try_from(required(t, "table").map_err(status)?).map_err(status)
}

pub async fn take(shared: &Arc<Shared>, req: pb::SnapshotRequest) -> Result<pb::Empty, Status> {
    let t = table(req.table)?;
    let options = basalt_api::SnapshotOptions {
        skip_flush: req.skip_flush,
        ttl_secs: (req.ttl_secs > 0).then_some(req.ttl_secs),
    };
    run_admin(shared, move |a| a.snapshot(&t, &req.name, &options)).await?;
    Ok(pb::Empty {})
}

pub async fn list(
    shared: &Arc<Shared>,
    req: pb::SnapshotPattern,
) -> Result<pb::SnapshotList, Status> {
    let list = run_admin(shared, move |a| a.list_snapshots(req.pattern.as_deref())).await?;
    Ok(pb::SnapshotList {
        snapshots: list
            .into_iter()
            .map(|s| pb::SnapshotInfo {
                name: s.name,
                table: Some((&s.table).into()),
                creation_time_ms: s.creation_time_ms,
                ttl_secs: s.ttl_secs.unwrap_or(0),
                version: s.version,
            })
            .collect(),
    })
}

pub async fn delete(shared: &Arc<Shared>, req: pb::SnapshotName) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.delete_snapshot(&req.name)).await?;
    Ok(pb::Empty {})
}

pub async fn clone(
    shared: &Arc<Shared>,
    req: pb::CloneSnapshotRequest,
) -> Result<pb::Empty, Status> {
    let t = table(req.table)?;
    run_admin(shared, move |a| a.clone_snapshot(&req.name, &t)).await?;
    Ok(pb::Empty {})
}

pub async fn restore(shared: &Arc<Shared>, req: pb::SnapshotName) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.restore_snapshot(&req.name)).await?;
    Ok(pb::Empty {})
}

pub async fn restore_to(
    shared: &Arc<Shared>,
    req: pb::RestoreSnapshotToTimeRequest,
) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.restore_snapshot_to(&req.name, req.to_ms)).await?;
    Ok(pb::Empty {})
}
