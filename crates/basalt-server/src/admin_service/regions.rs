//! Regions and maintenance: `ListRegions`, `LocateRegion(table, row)`, `Flush`, `Compact(major)`,
//! `CompactFamily(table, family, major)`, `FlushRegion(name)`,
//! `CompactRegion(name, family?, major)`, `Split(key?)`,
//! `MergeRegions(a, b)`, `RunCatalogJanitor`, `ClusterHealth`.

use super::{read_admin, run_admin};
use crate::error::status;
use crate::shared::Shared;
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_types::TableName;
use std::sync::Arc;
use tonic::Status;

fn name(t: pb::TableName) -> Result<TableName, Status> {
    TableName::try_from(t).map_err(status)
}

pub async fn list(shared: &Arc<Shared>, req: pb::TableName) -> Result<pb::RegionList, Status> {
    let t = name(req)?;
    let regions = run_admin(shared, move |a| a.list_regions(&t)).await?;
    Ok(pb::RegionList {
        regions: regions.iter().map(Into::into).collect(),
    })
}

pub fn locate(shared: &Shared, req: pb::LocateRegionRequest) -> Result<pb::RegionLocation, Status> {
    let t = decode_table(req.table).map_err(status)?;
    let location = read_admin(shared, |a| a.locate_region(&t, &req.row))?;
    Ok((&location).into())
}

pub async fn flush(shared: &Arc<Shared>, req: pb::TableName) -> Result<pb::Empty, Status> {
    let t = name(req)?;
    run_admin(shared, move |a| a.flush(&t)).await?;
    Ok(pb::Empty {})
}

pub async fn compact(shared: &Arc<Shared>, req: pb::CompactRequest) -> Result<pb::Empty, Status> {
    let t = decode_table(req.table).map_err(status)?;
    let major = req.major;
    run_admin(shared, move |a| a.compact(&t, major)).await?;
    Ok(pb::Empty {})
}

pub async fn compact_family(
    shared: &Arc<Shared>,
    req: pb::CompactFamilyRequest,
) -> Result<pb::Empty, Status> {
    let t = decode_table(req.table).map_err(status)?;
    let (family, major) = (req.family, req.major);
    run_admin(shared, move |a| a.compact_family(&t, &family, major)).await?;
    Ok(pb::Empty {})
}

pub async fn flush_region(shared: &Arc<Shared>, req: pb::RegionName) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.flush_region(&req.name)).await?;
    Ok(pb::Empty {})
}

pub async fn compact_region(
    shared: &Arc<Shared>,
    req: pb::CompactRegionRequest,
) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| {
        a.compact_region(&req.region, req.family.as_deref(), req.major)
    })
    .await?;
    Ok(pb::Empty {})
}

pub async fn split(shared: &Arc<Shared>, req: pb::SplitRequest) -> Result<pb::Empty, Status> {
    let t = decode_table(req.table).map_err(status)?;
    let key = req.key;
    run_admin(shared, move |a| a.split(&t, key.as_deref())).await?;
    Ok(pb::Empty {})
}

pub async fn merge(
    shared: &Arc<Shared>,
    req: pb::MergeRegionsRequest,
) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.merge_regions(&req.a, &req.b)).await?;
    Ok(pb::Empty {})
}

pub async fn janitor(shared: &Arc<Shared>) -> Result<pb::Count, Status> {
    let cleaned = run_admin(shared, |a| a.run_catalog_janitor()).await?;
    Ok(pb::Count {
        value: u64::try_from(cleaned).unwrap_or(u64::MAX),
    })
}

pub async fn health(shared: &Arc<Shared>) -> Result<pb::ClusterHealthReport, Status> {
    let health = run_admin(shared, |a| a.cluster_health()).await?;
    Ok((&health).into())
}
