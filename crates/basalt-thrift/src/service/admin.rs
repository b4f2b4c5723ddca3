//! Table administration: create, delete, enable, disable, list, describe, regions,
//! compactions.

use super::convert::{column_descriptor, family_from_descriptor, region_info};
use super::{required, table_name, CallResult, Failure, Service};
use crate::protocol::{Struct, TType, Value};
use basalt_api::PreSplit;
use basalt_types::{TableDescriptor, TableName};

/// `getClusterId`: a fixed id, as standalone has one cluster.
const CLUSTER_ID: &str = "basalt";
/// `TThriftServerType.ONE`.
const SERVER_TYPE_ONE: i32 = 1;

pub(super) fn call(service: &Service, name: &str, args: &Struct) -> CallResult {
    let admin = service.conn.admin();
    match name {
        "enableTable" => {
            admin.enable_table(&table_name(args, 1)?)?;
            Ok(None)
        }
        "disableTable" => {
            admin.disable_table(&table_name(args, 1)?)?;
            Ok(None)
        }
        "isTableEnabled" => Ok(Some(Value::Bool(
            admin.is_table_enabled(&table_name(args, 1)?)?,
        ))),
        "compact" | "majorCompact" => {
            let major = name == "majorCompact";
            let target = required(args, 1, "tableNameOrRegionName")?;
            let text = String::from_utf8_lossy(target);
            match TableName::parse(&text) {
                Ok(table) if admin.table_exists(&table)? => admin.compact(&table, major)?,
                _ => admin.compact_region(&text, None, major)?,
            }
            Ok(None)
        }
        "getTableNames" => {
            let names = user_tables(service)?
                .into_iter()
                .map(|t| Value::binary(t.to_string()))
                .collect();
            Ok(Some(Value::List(TType::Binary, names)))
        }
        "getTableNamesWithIsTableEnabled" => {
            let mut entries = Vec::new();
            for table in user_tables(service)? {
                let enabled = admin.is_table_enabled(&table)?;
                entries.push((Value::binary(table.to_string()), Value::Bool(enabled)));
            }
            Ok(Some(Value::Map(TType::Binary, TType::Bool, entries)))
        }
        "getColumnDescriptors" => {
            let descriptor = admin.describe_table(&table_name(args, 1)?)?;
            let entries = descriptor
                .families
                .iter()
                .map(|family| {
                    let value = column_descriptor(family);
                    let key = value
                        .as_struct()
                        .and_then(|s| s.binary(1))
                        .cloned()
                        .unwrap_or_default();
                    (Value::Binary(key), value)
                })
                .collect();
            Ok(Some(Value::Map(TType::Binary, TType::Struct, entries)))
        }
        "getTableRegions" => {
            let regions = admin.list_regions(&table_name(args, 1)?)?;
            Ok(Some(Value::List(
                TType::Struct,
                regions.iter().map(region_info).collect(),
            )))
        }
        "createTable" => create_table(service, args),
        "deleteTable" => {
            let table = table_name(args, 1)?;
            if !admin.table_exists(&table)? {
                return Err(Failure::io("table does not exist"));
            }
            admin.delete_table(&table)?;
            Ok(None)
        }
        "getThriftServerType" => Ok(Some(Value::I32(SERVER_TYPE_ONE))),
        "getClusterId" => Ok(Some(Value::binary(CLUSTER_ID))),
        _ => Err(Failure::UnknownMethod),
    }
}

fn user_tables(service: &Service) -> Result<Vec<TableName>, Failure> {
    let tables = service.conn.admin().list_tables(None)?;
    Ok(tables.into_iter().filter(|t| !t.is_system()).collect())
}

fn create_table(service: &Service, args: &Struct) -> CallResult {
    let table = table_name(args, 1)?;
    let mut families = Vec::new();
    for item in args.list(2).unwrap_or_default() {
        let descriptor = item
            .as_struct()
            .ok_or_else(|| Failure::illegal("columnFamilies must hold ColumnDescriptors"))?;
        families.push(family_from_descriptor(descriptor)?);
    }
    if families.is_empty() {
        return Err(Failure::illegal("a table needs at least one column family"));
    }
    let admin = service.conn.admin();
    if admin.table_exists(&table)? {
        return Err(Failure::AlreadyExists("table name already in use".into()));
    }
    admin.create_table(&TableDescriptor::new(table, families), &PreSplit::None)?;
    Ok(None)
}
