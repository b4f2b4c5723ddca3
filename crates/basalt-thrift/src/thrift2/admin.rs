//! `THBaseService`'s admin methods: tables, families and namespaces (the structs are in
//! [`super::schema`]).

use super::schema::{
    family_from, namespace_descriptor, namespace_from, table_descriptor, table_from, ttable_name,
    ttable_name_value,
};
use crate::protocol::{Struct, TType, Value};
use crate::service::{CallResult, Failure, Service};
use basalt_api::PreSplit;
use basalt_types::TableName;

/// `TThriftServerType.TWO`.
const SERVER_TYPE_TWO: i32 = 2;
const CLUSTER_ID: &str = "basalt";

pub const METHODS: &[&str] = &[
    "getTableDescriptor",
    "getTableDescriptors",
    "tableExists",
    "getTableDescriptorsByPattern",
    "getTableDescriptorsByNamespace",
    "getTableNamesByPattern",
    "getTableNamesByNamespace",
    "createTable",
    "deleteTable",
    "truncateTable",
    "enableTable",
    "disableTable",
    "isTableEnabled",
    "isTableDisabled",
    "isTableAvailable",
    "addColumnFamily",
    "deleteColumnFamily",
    "modifyColumnFamily",
    "modifyTable",
    "createNamespace",
    "modifyNamespace",
    "deleteNamespace",
    "getNamespaceDescriptor",
    "listNamespaceDescriptors",
    "listNamespaces",
    "getThriftServerType",
    "getClusterId",
];

pub(super) fn call(service: &Service, name: &str, args: &Struct) -> CallResult {
    let admin = service.conn.admin();
    let table = || table_name_arg(args, 1);
    let none = |r: basalt_api::Result<()>| r.map(|()| None).map_err(Failure::from);
    match name {
        "getTableDescriptor" => Ok(Some(table_descriptor(&admin.describe_table(&table()?)?))),
        "getTableDescriptors" => {
            let mut out = Vec::new();
            for item in args.list(1).unwrap_or_default() {
                let name = ttable_name(
                    item.as_struct()
                        .ok_or_else(|| Failure::illegal("tables must hold TTableNames"))?,
                )?;
                out.push(table_descriptor(&admin.describe_table(&name)?));
            }
            Ok(Some(Value::List(TType::Struct, out)))
        }
        "tableExists" => Ok(Some(Value::Bool(admin.table_exists(&table()?)?))),
        "getTableDescriptorsByPattern" | "getTableNamesByPattern" => {
            let pattern = args
                .binary(1)
                .map(|p| String::from_utf8_lossy(p).into_owned());
            let system = args.bool(2).unwrap_or(false);
            let names: Vec<TableName> = admin
                .list_tables(pattern.as_deref())?
                .into_iter()
                .filter(|t| system || !t.is_system())
                .collect();
            listing(service, name.starts_with("getTableDescriptors"), names)
        }
        "getTableDescriptorsByNamespace" | "getTableNamesByNamespace" => {
            let ns = string_arg(args, 1, "name")?;
            let names: Vec<TableName> = admin
                .list_tables(None)?
                .into_iter()
                .filter(|t| t.namespace() == ns)
                .collect();
            listing(service, name.starts_with("getTableDescriptors"), names)
        }
        "createTable" => {
            let descriptor = args
                .structure(1)
                .ok_or_else(|| Failure::illegal("missing argument desc"))?;
            let descriptor = table_from(descriptor)?;
            let splits = args.binary_list(2).unwrap_or_default();
            let split = match splits.is_empty() {
                true => PreSplit::None,
                false => PreSplit::Keys(splits),
            };
            none(admin.create_table(&descriptor, &split))
        }
        "deleteTable" => none(admin.delete_table(&table()?)),
        "truncateTable" => none(admin.truncate_table(&table()?, args.bool(2).unwrap_or(false))),
        "enableTable" => none(admin.enable_table(&table()?)),
        "disableTable" => none(admin.disable_table(&table()?)),
        "isTableEnabled" => Ok(Some(Value::Bool(admin.is_table_enabled(&table()?)?))),
        "isTableDisabled" => Ok(Some(Value::Bool(!admin.is_table_enabled(&table()?)?))),
        "isTableAvailable" => {
            let name = table()?;
            let available = admin.table_exists(&name)? && admin.is_table_enabled(&name)?;
            Ok(Some(Value::Bool(available)))
        }
        "addColumnFamily" | "modifyColumnFamily" => {
            let family = args
                .structure(2)
                .ok_or_else(|| Failure::illegal("missing argument column"))?;
            let family = family_from(family)?;
            match name {
                "addColumnFamily" => none(admin.add_family(&table()?, &family)),
                _ => none(admin.modify_family(&table()?, &family)),
            }
        }
        "deleteColumnFamily" => {
            let family = args
                .binary(2)
                .ok_or_else(|| Failure::illegal("missing argument column"))?;
            none(admin.delete_family(&table()?, family))
        }
        "modifyTable" => {
            let descriptor = args
                .structure(1)
                .ok_or_else(|| Failure::illegal("missing argument desc"))?;
            none(admin.modify_table(&table_from(descriptor)?))
        }
        "createNamespace" | "modifyNamespace" => {
            let descriptor = args
                .structure(1)
                .ok_or_else(|| Failure::illegal("missing argument namespaceDesc"))?;
            let namespace = namespace_from(descriptor)?;
            match name {
                "createNamespace" => none(admin.create_namespace(&namespace)),
                _ => none(admin.modify_namespace(&namespace)),
            }
        }
        "deleteNamespace" => none(admin.delete_namespace(&string_arg(args, 1, "name")?)),
        "getNamespaceDescriptor" => Ok(Some(namespace_descriptor(
            &admin.describe_namespace(&string_arg(args, 1, "name")?)?,
        ))),
        "listNamespaceDescriptors" => Ok(Some(Value::List(
            TType::Struct,
            admin
                .list_namespaces()?
                .iter()
                .map(namespace_descriptor)
                .collect(),
        ))),
        "listNamespaces" => Ok(Some(Value::List(
            TType::Binary,
            admin
                .list_namespaces()?
                .into_iter()
                .map(|ns| Value::binary(ns.name))
                .collect(),
        ))),
        "getThriftServerType" => Ok(Some(Value::I32(SERVER_TYPE_TWO))),
        "getClusterId" => Ok(Some(Value::binary(CLUSTER_ID))),
        _ => Err(Failure::UnknownMethod),
    }
}

fn listing(service: &Service, descriptors: bool, names: Vec<TableName>) -> CallResult {
    let mut out = Vec::with_capacity(names.len());
    for name in &names {
        out.push(match descriptors {
            true => table_descriptor(&service.conn.admin().describe_table(name)?),
            false => ttable_name_value(name),
        });
    }
    Ok(Some(Value::List(TType::Struct, out)))
}

fn string_arg(args: &Struct, id: i16, what: &str) -> Result<String, Failure> {
    let raw = args
        .binary(id)
        .ok_or_else(|| Failure::illegal(format!("missing argument {what}")))?;
    String::from_utf8(raw.to_vec()).map_err(|_| Failure::illegal(format!("{what} is not UTF-8")))
}

fn table_name_arg(args: &Struct, id: i16) -> Result<TableName, Failure> {
    ttable_name(
        args.structure(id)
            .ok_or_else(|| Failure::illegal("missing argument tableName"))?,
    )
}
