//! Thrift1 structs from and to Basalt's types, and HBase's column strings.
//!
//! | Thrift | Basalt |
//! |---|---|
//! | `TCell{1:value, 2:timestamp}` | a [`Cell`]'s value and timestamp |
//! | `TRowResult{1:row, 2:columns map "f:q"→TCell, 3:sortedColumns}` | a [`RowResult`] |
//! | `ColumnDescriptor{1:name "f:", 2:maxVersions, …, 9:timeToLive}` | a [`FamilyDescriptor`] |
//! | `TRegionInfo{1:startKey, 2:endKey, 3:id, 4:name, 5:version, 6:serverName, 7:port}` | a [`RegionReport`] |

use super::Failure;
use crate::protocol::{Struct, TType, Value};
use basalt_api::RegionReport;
use basalt_types::descriptor::TTL_FOREVER_SECS;
use basalt_types::{BloomType, Cell, ColumnSelection, Compression, FamilyDescriptor, RowResult};
use bytes::{BufMut, Bytes, BytesMut};

/// A column string: `family` alone, or `family:qualifier` (split at the first `:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub family: Bytes,
    pub qualifier: Option<Bytes>,
}

impl Column {
    pub fn parse(text: &Bytes) -> Self {
        match text.iter().position(|b| *b == b':') {
            Some(i) => Self {
                family: text.slice(..i),
                qualifier: Some(text.slice(i + 1..)),
            },
            None => Self {
                family: text.clone(),
                qualifier: None,
            },
        }
    }
}

/// The selection of `columns`; none (or absent) selects everything.
pub fn selection(columns: &[Bytes]) -> ColumnSelection {
    let mut selection = ColumnSelection::default();
    for text in columns {
        let column = Column::parse(text);
        match column.qualifier {
            Some(q) => selection.add_column(column.family, q),
            None => selection.add_family(column.family),
        }
    }
    selection
}

/// `family:qualifier` of a cell.
pub fn column_name(cell: &Cell) -> Bytes {
    let mut name = BytesMut::with_capacity(cell.family().len() + 1 + cell.qualifier().len());
    name.put_slice(cell.family());
    name.put_u8(b':');
    name.put_slice(cell.qualifier());
    name.freeze()
}

pub fn tcell(cell: &Cell) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, Value::Binary(cell.value_bytes()))
            .with(2, Value::I64(cell.timestamp())),
    )
}

/// `list<TCell>` of every cell.
pub fn tcells(cells: &[Cell]) -> Value {
    Value::List(TType::Struct, cells.iter().map(tcell).collect())
}

/// A `TRowResult`, or `None` for an empty result. Unsorted, a column's first (newest)
/// cell wins the map entry; sorted, every cell is listed in cell order.
pub fn row_result(result: &RowResult, sort_columns: bool) -> Option<Value> {
    let row = result.cells.first()?.row_bytes();
    let mut out = Struct::new().with(1, Value::Binary(row));
    if sort_columns {
        let columns = result
            .cells
            .iter()
            .map(|cell| {
                Value::Struct(
                    Struct::new()
                        .with(1, Value::Binary(column_name(cell)))
                        .with(2, tcell(cell)),
                )
            })
            .collect();
        out = out.with(3, Value::List(TType::Struct, columns));
    } else {
        let mut entries: Vec<(Value, Value)> = Vec::with_capacity(result.cells.len());
        for cell in &result.cells {
            let name = column_name(cell);
            let seen = entries
                .last()
                .is_some_and(|(k, _)| k.as_binary() == Some(&name));
            if !seen {
                entries.push((Value::Binary(name), tcell(cell)));
            }
        }
        out = out.with(2, Value::Map(TType::Binary, TType::Struct, entries));
    }
    Some(Value::Struct(out))
}

/// `list<TRowResult>` of the non-empty results.
pub fn row_results<'a>(results: impl IntoIterator<Item = &'a RowResult>, sort: bool) -> Value {
    Value::List(
        TType::Struct,
        results
            .into_iter()
            .filter_map(|r| row_result(r, sort))
            .collect(),
    )
}

/// A `ColumnDescriptor` for a family; the name ends with `:`.
pub fn column_descriptor(family: &FamilyDescriptor) -> Value {
    let mut name = BytesMut::with_capacity(family.name.len() + 1);
    name.put_slice(&family.name);
    name.put_u8(b':');
    let ttl = i32::try_from(family.ttl_secs).unwrap_or(i32::MAX);
    Value::Struct(
        Struct::new()
            .with(1, Value::Binary(name.freeze()))
            .with(
                2,
                Value::I32(i32::try_from(family.max_versions).unwrap_or(i32::MAX)),
            )
            .with(3, Value::binary(family.compression.name()))
            .with(4, Value::Bool(family.in_memory))
            .with(5, Value::binary(family.bloom_filter.name()))
            .with(6, Value::I32(0))
            .with(7, Value::I32(0))
            .with(8, Value::Bool(family.block_cache))
            .with(9, Value::I32(ttl)),
    )
}

/// A family from a `ColumnDescriptor`; absent fields take the IDL's defaults (3 versions,
/// no compression, not in memory, no bloom filter, block cache off, TTL forever).
pub fn family_from_descriptor(descriptor: &Struct) -> Result<FamilyDescriptor, Failure> {
    let name = descriptor
        .binary(1)
        .ok_or_else(|| Failure::illegal("a column descriptor needs a name"))?;
    let mut family = FamilyDescriptor::new(Column::parse(name).family)?;
    let versions = descriptor.i32(2).unwrap_or(3);
    family.max_versions = u32::try_from(versions)
        .ok()
        .filter(|v| *v > 0)
        .ok_or_else(|| Failure::illegal(format!("maxVersions must be positive, got {versions}")))?;
    family.compression = match descriptor.binary(3) {
        Some(text) => Compression::parse(&String::from_utf8_lossy(text))?,
        None => Compression::None,
    };
    family.in_memory = descriptor.bool(4).unwrap_or(false);
    family.bloom_filter = match descriptor.binary(5) {
        Some(text) => BloomType::parse(&String::from_utf8_lossy(text))?,
        None => BloomType::None,
    };
    family.block_cache = descriptor.bool(8).unwrap_or(false);
    family.ttl_secs = match descriptor.i32(9) {
        Some(ttl) if ttl > 0 => u64::try_from(ttl).unwrap_or(TTL_FOREVER_SECS),
        _ => TTL_FOREVER_SECS,
    };
    Ok(family)
}

/// A `TRegionInfo`. The region id is the number after the last `,` of the region name.
pub fn region_info(region: &RegionReport) -> Value {
    let (host, port) = basalt_api::server_host_port(&region.server);
    let port = i32::from(port);
    let id = crate::thrift2::regions::region_id(&region.region_name);
    Value::Struct(
        Struct::new()
            .with(1, Value::Binary(region.start_key.clone()))
            .with(2, Value::Binary(region.end_key.clone()))
            .with(3, Value::I64(id))
            .with(4, Value::binary(region.region_name.clone()))
            .with(5, Value::Byte(1))
            .with(6, Value::binary(host))
            .with(7, Value::I32(port)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_split_at_the_first_colon() {
        let c = Column::parse(&Bytes::from_static(b"cf:a:b"));
        assert_eq!(c.family, Bytes::from_static(b"cf"));
        assert_eq!(c.qualifier, Some(Bytes::from_static(b"a:b")));
        let c = Column::parse(&Bytes::from_static(b"cf"));
        assert_eq!(c.qualifier, None);
        let c = Column::parse(&Bytes::from_static(b"cf:"));
        assert_eq!(c.qualifier, Some(Bytes::new()));
    }

    #[test]
    fn descriptors_take_the_idl_defaults() {
        let d = Struct::new().with(1, Value::binary("cf:"));
        let f = family_from_descriptor(&d).expect("valid");
        assert_eq!(f.name, Bytes::from_static(b"cf"));
        assert_eq!(f.max_versions, 3);
        assert!(!f.block_cache);
        assert_eq!(f.bloom_filter, BloomType::None);
        assert_eq!(f.ttl_secs, TTL_FOREVER_SECS);
        let bad = Struct::new()
            .with(1, Value::binary("cf:"))
            .with(2, Value::I32(0));
        assert!(matches!(
            family_from_descriptor(&bad),
            Err(Failure::IllegalArgument(_))
        ));
    }
}
