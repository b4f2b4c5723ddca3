//! Thrift2's schema structs from and to Basalt's descriptors.
//!
//! | struct | fields (id) |
//! |---|---|
//! | `TTableName` | ns 1 (absent: `default`), qualifier 2 |
//! | `TTableDescriptor` | tableName 1, columns 2, attributes 3, durability 4 |
//! | `TColumnFamilyDescriptor` | name 1, blockSize 4, bloomnFilterType 5, compressionType 6, dataBlockEncoding 8, keepDeletedCells 9, maxVersions 10, minVersions 11, scope 12, timeToLive 13, blockCacheEnabled 14, inMemory 20 |
//! | `TNamespaceDescriptor` | name 1, configuration 2 |
//!
//! The enums keep the IDL's numbers: `TBloomFilterType` NONE 0, ROW 1, ROWCOL 2;
//! `TCompressionAlgorithm` LZO 0, GZ 1, NONE 2, SNAPPY 3, LZ4 4, BZIP2 5, ZSTD 6;
//! `TDataBlockEncoding` NONE 0, PREFIX 2; `TKeepDeletedCells` FALSE 0, TRUE 1, TTL 2. A value
//! Basalt does not implement (LZO, BZIP2, DIFF, …) is refused by name.

use crate::protocol::{Struct, TType, Value};
use crate::service::Failure;
use basalt_types::descriptor::TTL_FOREVER_SECS;
use basalt_types::{
    BloomType, Compression, DataBlockEncoding, FamilyDescriptor, KeepDeletedCells,
    NamespaceDescriptor, TableDescriptor, TableName,
};
use bytes::Bytes;

pub(super) fn utf8(raw: &Bytes, what: &str) -> Result<String, Failure> {
    String::from_utf8(raw.to_vec()).map_err(|_| Failure::illegal(format!("{what} is not UTF-8")))
}

/// A `TTableName`; an absent or empty namespace is `default`.
pub fn ttable_name(s: &Struct) -> Result<TableName, Failure> {
    let qualifier = utf8(
        s.binary(2)
            .ok_or_else(|| Failure::illegal("a TTableName needs a qualifier"))?,
        "the table qualifier",
    )?;
    let namespace = match s.binary(1).filter(|ns| !ns.is_empty()) {
        Some(ns) => utf8(ns, "the namespace")?,
        None => "default".to_string(),
    };
    Ok(TableName::new(&namespace, &qualifier)?)
}

pub(super) fn ttable_name_value(name: &TableName) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, Value::binary(name.namespace().to_string()))
            .with(2, Value::binary(name.qualifier().to_string())),
    )
}

pub(super) fn table_descriptor(table: &TableDescriptor) -> Value {
    let families = table.families.iter().map(family_descriptor).collect();
    Value::Struct(
        Struct::new()
            .with(1, ttable_name_value(&table.name))
            .with(2, Value::List(TType::Struct, families)),
    )
}

pub(super) fn table_from(s: &Struct) -> Result<TableDescriptor, Failure> {
    let name = ttable_name(
        s.structure(1)
            .ok_or_else(|| Failure::illegal("a TTableDescriptor needs a tableName"))?,
    )?;
    let mut families = Vec::new();
    for item in s.list(2).unwrap_or_default() {
        families.push(family_from(item.as_struct().ok_or_else(|| {
            Failure::illegal("columns must hold TColumnFamilyDescriptors")
        })?)?);
    }
    let mut table = TableDescriptor::new(name, families);
    table.durability = super::mutations::durability(s, 4)?;
    Ok(table)
}

fn unsupported(what: &str, code: i32, names: &str) -> Failure {
    Failure::io(format!(
        "{what} {code} is not supported (supported: {names})"
    ))
}

pub(super) fn family_from(s: &Struct) -> Result<FamilyDescriptor, Failure> {
    let name = s
        .binary(1)
        .ok_or_else(|| Failure::illegal("a TColumnFamilyDescriptor needs a name"))?;
    let mut family = FamilyDescriptor::new(name.clone())?;
    let count = |id: i16, what: &str| -> Result<Option<u32>, Failure> {
        s.i32(id)
            .map(|v| {
                u32::try_from(v)
                    .map_err(|_| Failure::io(format!("{what} must not be negative, got {v}")))
            })
            .transpose()
    };
    if let Some(size) = count(4, "blockSize")? {
        family.block_size_bytes = size;
    }
    if let Some(code) = s.i32(5) {
        family.bloom_filter = match code {
            0 => BloomType::None,
            1 => BloomType::Row,
            2 => BloomType::RowCol,
            _ => return Err(unsupported("TBloomFilterType", code, "NONE, ROW, ROWCOL")),
        };
    }
    if let Some(code) = s.i32(6) {
        family.compression = match code {
            // LZO: refused with the codecs to use instead (see `Compression::parse`).
            0 => Compression::parse("LZO").map_err(|e| Failure::io(e.to_string()))?,
            1 => Compression::Gz,
            2 => Compression::None,
            3 => Compression::Snappy,
            4 => Compression::Lz4,
            6 => Compression::Zstd,
            _ => {
                return Err(unsupported(
                    "TCompressionAlgorithm",
                    code,
                    "GZ, NONE, SNAPPY, LZ4, ZSTD",
                ))
            }
        };
    }
    if let Some(code) = s.i32(8) {
        family.data_block_encoding = match code {
            0 => DataBlockEncoding::None,
            2 => DataBlockEncoding::Prefix,
            3 => DataBlockEncoding::Diff,
            4 => DataBlockEncoding::FastDiff,
            7 => DataBlockEncoding::RowIndexV1,
            _ => {
                return Err(unsupported(
                    "TDataBlockEncoding",
                    code,
                    "NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1",
                ))
            }
        };
    }
    if let Some(code) = s.i32(9) {
        family.keep_deleted_cells = match code {
            0 => KeepDeletedCells::False,
            1 => KeepDeletedCells::True,
            2 => KeepDeletedCells::Ttl,
            _ => return Err(unsupported("TKeepDeletedCells", code, "FALSE, TRUE, TTL")),
        };
    }
    if let Some(versions) = count(10, "maxVersions")? {
        family.max_versions = versions;
    }
    if let Some(versions) = count(11, "minVersions")? {
        family.min_versions = versions;
    }
    if let Some(scope) = count(12, "scope")? {
        family.replication_scope = scope;
    }
    if let Some(ttl) = s.i32(13) {
        family.ttl_secs = match ttl {
            ttl if ttl > 0 => u64::try_from(ttl).unwrap_or(TTL_FOREVER_SECS),
            _ => TTL_FOREVER_SECS,
        };
    }
    if let Some(on) = s.bool(14) {
        family.block_cache = on;
    }
    if let Some(on) = s.bool(20) {
        family.in_memory = on;
    }
    // `attributes` (2): HBase's family values; NEW_VERSION_BEHAVIOR travels there.
    if let Some(Value::Map(_, _, entries)) = s.get(2) {
        for (key, value) in entries {
            if let (Value::Binary(k), Value::Binary(v)) = (key, value) {
                if k.as_ref() == b"NEW_VERSION_BEHAVIOR" {
                    family.new_version_behavior = match v.to_ascii_lowercase().as_slice() {
                        b"true" => true,
                        b"false" => false,
                        _ => {
                            return Err(Failure::io(format!(
                                "NEW_VERSION_BEHAVIOR must be true or false, got '{}'",
                                String::from_utf8_lossy(v)
                            )))
                        }
                    };
                }
            }
        }
    }
    family.validate()?;
    Ok(family)
}

pub(super) fn family_descriptor(family: &FamilyDescriptor) -> Value {
    let bloom = match family.bloom_filter {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
    };
    let compression = match family.compression {
        Compression::Gz => 1,
        Compression::None => 2,
        Compression::Snappy => 3,
        Compression::Lz4 => 4,
        Compression::Zstd => 6,
    };
    let encoding = match family.data_block_encoding {
        DataBlockEncoding::None => 0,
        DataBlockEncoding::Prefix => 2,
        DataBlockEncoding::Diff => 3,
        DataBlockEncoding::FastDiff => 4,
        DataBlockEncoding::RowIndexV1 => 7,
    };
    let keep = match family.keep_deleted_cells {
        KeepDeletedCells::False => 0,
        KeepDeletedCells::True => 1,
        KeepDeletedCells::Ttl => 2,
    };
    let int = |v: u64| Value::I32(i32::try_from(v).unwrap_or(i32::MAX));
    let mut out = Struct::new();
    if family.new_version_behavior {
        let entry = (
            Value::binary(&b"NEW_VERSION_BEHAVIOR"[..]),
            Value::binary(&b"true"[..]),
        );
        out = out.with(2, Value::Map(TType::Binary, TType::Binary, vec![entry]));
    }
    Value::Struct(
        out.with(1, Value::Binary(family.name.clone()))
            .with(4, int(family.block_size_bytes.into()))
            .with(5, Value::I32(bloom))
            .with(6, Value::I32(compression))
            .with(8, Value::I32(encoding))
            .with(9, Value::I32(keep))
            .with(10, int(family.max_versions.into()))
            .with(11, int(family.min_versions.into()))
            .with(12, int(family.replication_scope.into()))
            .with(13, int(family.ttl_secs))
            .with(14, Value::Bool(family.block_cache))
            .with(20, Value::Bool(family.in_memory)),
    )
}

pub(super) fn namespace_from(s: &Struct) -> Result<NamespaceDescriptor, Failure> {
    let name = utf8(
        s.binary(1)
            .ok_or_else(|| Failure::illegal("a TNamespaceDescriptor needs a name"))?,
        "the namespace",
    )?;
    let mut namespace = NamespaceDescriptor::new(&name)?;
    if let Some(Value::Map(_, _, entries)) = s.get(2) {
        for (key, value) in entries {
            let (Some(key), Some(value)) = (key.as_binary(), value.as_binary()) else {
                return Err(Failure::illegal(
                    "configuration must map strings to strings",
                ));
            };
            namespace.properties.insert(
                utf8(key, "a configuration key")?,
                utf8(value, "a configuration value")?,
            );
        }
    }
    Ok(namespace)
}

pub(super) fn namespace_descriptor(namespace: &NamespaceDescriptor) -> Value {
    let entries = namespace
        .properties
        .iter()
        .map(|(k, v)| (Value::binary(k.clone()), Value::binary(v.clone())))
        .collect();
    Value::Struct(
        Struct::new()
            .with(1, Value::binary(namespace.name.clone()))
            .with(2, Value::Map(TType::Binary, TType::Binary, entries)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_default_to_the_default_namespace() {
        let t = ttable_name(&Struct::new().with(2, Value::binary("t"))).expect("valid");
        assert_eq!(t.namespace(), "default");
        let t = ttable_name(
            &Struct::new()
                .with(1, Value::binary("ns"))
                .with(2, Value::binary("t")),
        )
        .expect("valid");
        assert_eq!((t.namespace(), t.qualifier()), ("ns", "t"));
        assert!(ttable_name(&Struct::new()).is_err());
    }

    #[test]
    fn new_version_behavior_travels_in_the_attributes_map() {
        let entry = (Value::binary("NEW_VERSION_BEHAVIOR"), Value::binary("TRUE"));
        let s = Struct::new()
            .with(1, Value::binary("cf"))
            .with(2, Value::Map(TType::Binary, TType::Binary, vec![entry]));
        let family = family_from(&s).expect("valid");
        assert!(family.new_version_behavior);
        let back = family_descriptor(&family);
        assert_eq!(
            family_from(back.as_struct().expect("struct")).expect("valid"),
            family
        );
        let plain = family_descriptor(&FamilyDescriptor::new("cf").expect("valid"));
        assert!(plain.as_struct().expect("struct").get(2).is_none());
        let bad = (Value::binary("NEW_VERSION_BEHAVIOR"), Value::binary("yes"));
        let s = Struct::new()
            .with(1, Value::binary("cf"))
            .with(2, Value::Map(TType::Binary, TType::Binary, vec![bad]));
        assert!(
            matches!(family_from(&s), Err(Failure::Io { message, .. }) if message.contains("NEW_VERSION_BEHAVIOR"))
        );
    }

    #[test]
    fn family_descriptors_round_trip_with_the_idl_numbers() {
        let s = Struct::new()
            .with(1, Value::binary("cf"))
            .with(5, Value::I32(2))
            .with(6, Value::I32(6))
            .with(10, Value::I32(4))
            .with(13, Value::I32(3600));
        let family = family_from(&s).expect("valid");
        assert_eq!(family.bloom_filter, BloomType::RowCol);
        assert_eq!(family.compression, Compression::Zstd);
        assert_eq!((family.max_versions, family.ttl_secs), (4, 3600));
        let back = family_descriptor(&family);
        let back = back.as_struct().expect("struct");
        assert_eq!(family_from(back).expect("valid"), family);
        let lzo = Struct::new()
            .with(1, Value::binary("cf"))
            .with(6, Value::I32(0));
        assert!(matches!(family_from(&lzo), Err(Failure::Io { message, .. })
                if message.contains("LZO") && message.contains("SNAPPY, ZSTD or GZ")));
    }

    /// HBase's `DataBlockEncoding` ids, which Thrift2's `TDataBlockEncoding` repeats.
    #[test]
    fn every_data_block_encoding_round_trips_with_hbase_ids() {
        for (code, encoding) in [
            (0, DataBlockEncoding::None),
            (2, DataBlockEncoding::Prefix),
            (3, DataBlockEncoding::Diff),
            (4, DataBlockEncoding::FastDiff),
            (7, DataBlockEncoding::RowIndexV1),
        ] {
            let s = Struct::new()
                .with(1, Value::binary("cf"))
                .with(8, Value::I32(code));
            let family = family_from(&s).expect("valid");
            assert_eq!(family.data_block_encoding, encoding);
            let back = family_descriptor(&family);
            let back = back.as_struct().expect("struct");
            assert_eq!(back.i32(8), Some(code));
        }
        let s = Struct::new()
            .with(1, Value::binary("cf"))
            .with(8, Value::I32(6));
        assert!(
            matches!(family_from(&s), Err(Failure::Io { message, .. }) if message.contains("FAST_DIFF"))
        );
    }
}
