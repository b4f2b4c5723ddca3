//! Table lifecycle: `CreateTable(descriptor, split)`, `TableExists`, `DescribeTable`,
//! `ListTables(pattern)`, `IsTableEnabled`, `EnableTable`, `DisableTable`, `DeleteTable`,
//! `TruncateTable(table, preserve_splits)`.

use super::{read_admin, run_admin};
use crate::error::status;
use crate::shared::Shared;
use basalt_proto::convert::required;
use basalt_proto::convert::schema::{decode_pre_split, decode_table};
use basalt_proto::pb;
use basalt_types::{TableDescriptor, TableName};
use std::sync::Arc;
use tonic::Status;

fn name(t: pb::TableName) -> Result<TableName, Status> {
    TableName::try_from(t).map_err(status)
}

pub async fn create(
    shared: &Arc<Shared>,
    req: pb::CreateTableRequest,
) -> Result<pb::Empty, Status> {
    let descriptor =
        TableDescriptor::try_from(required(req.descriptor, "descriptor").map_err(status)?)
            .map_err(status)?;
    let split = decode_pre_split(req.split).map_err(status)?;
    run_admin(shared, move |a| a.create_table(&descriptor, &split)).await?;
    Ok(pb::Empty {})
}

pub fn exists(shared: &Shared, req: pb::TableName) -> Result<pb::Flag, Status> {
    let t = name(req)?;
    let value = read_admin(shared, |a| a.table_exists(&t))?;
    Ok(pb::Flag { value })
}

pub fn describe(shared: &Shared, req: pb::TableName) -> Result<pb::TableDescriptor, Status> {
    let t = name(req)?;
    let d = read_admin(shared, |a| a.describe_table(&t))?;
    Ok((&d).into())
}

pub async fn list(
    shared: &Arc<Shared>,
    req: pb::ListTablesRequest,
) -> Result<pb::TableNameList, Status> {
    let tables = run_admin(shared, move |a| a.list_tables(req.pattern.as_deref())).await?;
    Ok(pb::TableNameList {
        tables: tables.iter().map(Into::into).collect(),
    })
}

pub fn is_enabled(shared: &Shared, req: pb::TableName) -> Result<pb::Flag, Status> {
    let t = name(req)?;
    let value = read_admin(shared, |a| a.is_table_enabled(&t))?;
    Ok(pb::Flag { value })
}

pub async fn enable(shared: &Arc<Shared>, req: pb::TableName) -> Result<pb::Empty, Status> {
    let t = name(req)?;
    run_admin(shared, move |a| a.enable_table(&t)).await?;
    Ok(pb::Empty {})
}

pub async fn disable(shared: &Arc<Shared>, req: pb::TableName) -> Result<pb::Empty, Status> {
    let t = name(req)?;
    run_admin(shared, move |a| a.disable_table(&t)).await?;
    Ok(pb::Empty {})
}

pub async fn delete(shared: &Arc<Shared>, req: pb::TableName) -> Result<pb::Empty, Status> {
    let t = name(req)?;
    run_admin(shared, move |a| a.delete_table(&t)).await?;
    Ok(pb::Empty {})
}

pub async fn truncate(
    shared: &Arc<Shared>,
    req: pb::TruncateTableRequest,
) -> Result<pb::Empty, Status> {
    let t = decode_table(req.table).map_err(status)?;
    let preserve = req.preserve_splits;
    run_admin(shared, move |a| a.truncate_table(&t, preserve)).await?;
    Ok(pb::Empty {})
}
