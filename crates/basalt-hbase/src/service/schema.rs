//! Table and family schemas between HBase's `TableSchema` / `ColumnFamilySchema` (options
//! as `BytesBytesPair`s under HBase's keys: `VERSIONS`, `TTL`, `COMPRESSION`, ...) and
//! Basalt's descriptors. Keys Basalt does not know are kept as metadata, as HBase keeps
//! unknown attributes.

use crate::meta::table_name_pb;
use crate::pb;
use crate::RpcError;
use basalt_types::{
    BloomType, Compression, DataBlockEncoding, Durability, FamilyDescriptor, KeepDeletedCells,
    TableDescriptor, TableName,
};
use bytes::Bytes;

fn invalid(e: impl std::fmt::Display) -> RpcError {
    RpcError::do_not_retry(e.to_string())
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, RpcError> {
    value
        .parse()
        .map_err(|_| RpcError::do_not_retry(format!("{key} must be a number, not {value:?}")))
}

fn flag(key: &str, value: &str) -> Result<bool, RpcError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(RpcError::do_not_retry(format!(
            "{key} must be true or false, not {value:?}"
        ))),
    }
}

pub fn table_name(pb: &pb::TableName) -> Result<TableName, RpcError> {
    let namespace = String::from_utf8_lossy(&pb.namespace);
    let namespace = if namespace.is_empty() {
        "default"
    } else {
        &namespace
    };
    TableName::new(namespace, &String::from_utf8_lossy(&pb.qualifier)).map_err(invalid)
}

pub fn family(pb: &pb::ColumnFamilySchema) -> Result<FamilyDescriptor, RpcError> {
    let mut family = FamilyDescriptor::new(pb.name.clone()).map_err(invalid)?;
    for pair in &pb.attributes {
        let key = String::from_utf8_lossy(&pair.first).to_string();
        let value = String::from_utf8_lossy(&pair.second).to_string();
        match key.as_str() {
            "VERSIONS" => family.max_versions = number(&key, &value)?,
            "MIN_VERSIONS" => family.min_versions = number(&key, &value)?,
            "TTL" => {
                family.ttl_secs = match value.as_str() {
                    "FOREVER" => basalt_types::descriptor::TTL_FOREVER_SECS,
                    _ => number(&key, &value)?,
                }
            }
            "KEEP_DELETED_CELLS" => {
                family.keep_deleted_cells = KeepDeletedCells::parse(&value).map_err(invalid)?
            }
            "NEW_VERSION_BEHAVIOR" => family.new_version_behavior = flag(&key, &value)?,
            "BLOOMFILTER" => family.bloom_filter = BloomType::parse(&value).map_err(invalid)?,
            "BLOCKSIZE" => family.block_size_bytes = number(&key, &value)?,
            "BLOCKCACHE" => family.block_cache = flag(&key, &value)?,
            "IN_MEMORY" => family.in_memory = flag(&key, &value)?,
            "COMPRESSION" => family.compression = Compression::parse(&value).map_err(invalid)?,
            "DATA_BLOCK_ENCODING" => {
                family.data_block_encoding = DataBlockEncoding::parse(&value).map_err(invalid)?
            }
            "REPLICATION_SCOPE" => family.replication_scope = number(&key, &value)?,
            _ => {
                family.metadata.insert(key, value);
            }
        }
    }
    for pair in &pb.configuration {
        family
            .configuration
            .insert(pair.name.clone(), pair.value.clone());
    }
    family.validate().map_err(invalid)?;
    Ok(family)
}

pub fn table(pb: &pb::TableSchema) -> Result<TableDescriptor, RpcError> {
    let name = pb
        .table_name
        .as_ref()
        .ok_or_else(|| RpcError::do_not_retry("a table schema without a name"))?;
    let families = pb
        .column_families
        .iter()
        .map(family)
        .collect::<Result<_, _>>()?;
    let mut table = TableDescriptor::new(table_name(name)?, families);
    for pair in &pb.attributes {
        let key = String::from_utf8_lossy(&pair.first).to_string();
        let value = String::from_utf8_lossy(&pair.second).to_string();
        match key.as_str() {
            "MAX_FILESIZE" => table.max_file_size_bytes = number(&key, &value)?,
            "MEMSTORE_FLUSHSIZE" => table.memstore_flush_size_bytes = number(&key, &value)?,
            "READONLY" => table.read_only = flag(&key, &value)?,
            "COMPACTION_ENABLED" => table.compaction_enabled = flag(&key, &value)?,
            "SPLIT_ENABLED" => table.split_enabled = flag(&key, &value)?,
            "MERGE_ENABLED" => table.merge_enabled = flag(&key, &value)?,
            "DURABILITY" => table.durability = Durability::parse(&value).map_err(invalid)?,
            // Set by HBase's own descriptors; nothing to keep.
            "IS_META" | "IS_ROOT" => {}
            _ => {
                table.metadata.insert(key, value);
            }
        }
    }
    for pair in &pb.configuration {
        table
            .configuration
            .insert(pair.name.clone(), pair.value.clone());
    }
    table.validate().map_err(invalid)?;
    Ok(table)
}

fn pair(key: &str, value: impl ToString) -> pb::BytesBytesPair {
    pb::BytesBytesPair {
        first: Bytes::from(key.to_string()),
        second: Bytes::from(value.to_string()),
    }
}

pub fn family_pb(f: &FamilyDescriptor) -> pb::ColumnFamilySchema {
    let mut attributes = vec![
        pair("VERSIONS", f.max_versions),
        pair("MIN_VERSIONS", f.min_versions),
        pair("TTL", f.ttl_secs),
        pair("KEEP_DELETED_CELLS", f.keep_deleted_cells.name()),
        pair("BLOOMFILTER", f.bloom_filter.name()),
        pair("BLOCKSIZE", f.block_size_bytes),
        pair("BLOCKCACHE", f.block_cache),
        pair("IN_MEMORY", f.in_memory),
        pair("COMPRESSION", f.compression.name()),
        pair("DATA_BLOCK_ENCODING", f.data_block_encoding.name()),
        pair("REPLICATION_SCOPE", f.replication_scope),
    ];
    if f.new_version_behavior {
        attributes.push(pair("NEW_VERSION_BEHAVIOR", true));
    }
    attributes.extend(f.metadata.iter().map(|(k, v)| pair(k, v)));
    pb::ColumnFamilySchema {
        name: f.name.clone(),
        attributes,
        configuration: f
            .configuration
            .iter()
            .map(|(k, v)| pb::NameStringPair {
                name: k.clone(),
                value: v.clone(),
            })
            .collect(),
    }
}

pub fn table_pb(t: &TableDescriptor) -> pb::TableSchema {
    let mut attributes = vec![
        pair("MAX_FILESIZE", t.max_file_size_bytes),
        pair("MEMSTORE_FLUSHSIZE", t.memstore_flush_size_bytes),
        pair("READONLY", t.read_only),
        pair("COMPACTION_ENABLED", t.compaction_enabled),
        pair("SPLIT_ENABLED", t.split_enabled),
        pair("MERGE_ENABLED", t.merge_enabled),
        pair("DURABILITY", t.durability.name()),
    ];
    attributes.extend(t.metadata.iter().map(|(k, v)| pair(k, v)));
    pb::TableSchema {
        table_name: Some(table_name_pb(&t.name)),
        attributes,
        column_families: t.families.iter().map(family_pb).collect(),
        configuration: t
            .configuration
            .iter()
            .map(|(k, v)| pb::NameStringPair {
                name: k.clone(),
                value: v.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_round_trips_and_keeps_unknown_keys() {
        let schema = pb::TableSchema {
            table_name: Some(pb::TableName {
                namespace: Bytes::from_static(b"default"),
                qualifier: Bytes::from_static(b"t"),
            }),
            attributes: vec![pair("READONLY", "false"), pair("OWNER", "ann")],
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"cf"),
                attributes: vec![
                    pair("VERSIONS", 3),
                    pair("COMPRESSION", "SNAPPY"),
                    pair("max_versions", "3"),
                    pair("NEW_VERSION_BEHAVIOR", "true"),
                ],
                configuration: vec![],
            }],
            configuration: vec![],
        };
        let table = table(&schema).expect("valid");
        assert_eq!(table.families[0].max_versions, 3);
        assert_eq!(table.families[0].compression, Compression::Snappy);
        assert!(table.families[0].new_version_behavior);
        assert_eq!(table.metadata.get("OWNER").map(String::as_str), Some("ann"));
        let back = super::table(&table_pb(&table)).expect("round trip");
        assert_eq!(back, table);
    }

    #[test]
    fn bad_options_are_refused_by_name() {
        let bad = pb::ColumnFamilySchema {
            name: Bytes::from_static(b"cf"),
            attributes: vec![pair("VERSIONS", "many")],
            configuration: vec![],
        };
        let err = family(&bad).expect_err("refused");
        assert!(err.message.contains("VERSIONS"), "{err}");
    }
}
