//! Online schema changes: `ModifyTable(descriptor)`, `AddFamily(table, family)`,
//! `ModifyFamily(table, family)`, `DeleteFamily(table, family name)`.

use super::run_admin;
use crate::error::status;
use crate::shared::Shared;
use basalt_proto::convert::required;
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_types::{FamilyDescriptor, TableDescriptor, TableName};
use std::sync::Arc;
use tonic::Status;

pub async fn modify_table(
    shared: &Arc<Shared>,
    req: pb::TableDescriptor,
) -> Result<pb::Empty, Status> {
    let d = TableDescriptor::try_from(req).map_err(status)?;
    run_admin(shared, move |a| a.modify_table(&d)).await?;
    Ok(pb::Empty {})
}

fn family_request(req: pb::FamilyRequest) -> Result<(TableName, FamilyDescriptor), Status> {
    let table = decode_table(req.table).map_err(status)?;
    let family = FamilyDescriptor::try_from(required(req.family, "family").map_err(status)?)
        .map_err(status)?;
    Ok((table, family))
}

pub async fn add_family(shared: &Arc<Shared>, req: pb::FamilyRequest) -> Result<pb::Empty, Status> {
    let (t, f) = family_request(req)?;
    run_admin(shared, move |a| a.add_family(&t, &f)).await?;
    Ok(pb::Empty {})
}

pub async fn modify_family(
    shared: &Arc<Shared>,
    req: pb::FamilyRequest,
) -> Result<pb::Empty, Status> {
    let (t, f) = family_request(req)?;
    run_admin(shared, move |a| a.modify_family(&t, &f)).await?;
    Ok(pb::Empty {})
}

pub async fn delete_family(
    shared: &Arc<Shared>,
    req: pb::DeleteFamilyRequest,
) -> Result<pb::Empty, Status> {
    let t = decode_table(req.table).map_err(status)?;
    run_admin(shared, move |a| a.delete_family(&t, &req.family)).await?;
    Ok(pb::Empty {})
}
