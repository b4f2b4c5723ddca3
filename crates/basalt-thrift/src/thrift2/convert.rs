//! Thrift2's data structs from and to Basalt's operations (field ids of HBase's
//! `thrift2/hbase.thrift`; as `ThriftUtilities` reads them).
//!
//! | Thrift2 | Basalt |
//! |---|---|
//! | `TColumn{1:family, 2:qualifier, 3:timestamp}` | a family or a column |
//! | `TColumnValue{1:family, 2:qualifier, 3:value, 4:timestamp, 6:type}` | a [`Cell`] |
//! | `TResult{1:row, 2:columnValues, 3:stale, 4:partial}` | a [`RowResult`] |
//! | `TGet{1:row, 2:columns, 3:timestamp, 4:timeRange, 5:maxVersions, 6:filterString, 11:cacheBlocks, 12:storeLimit, 13:storeOffset, 14:existence_only}` | a [`Get`] |
//! | `TPut{1:row, 2:columnValues, 3:timestamp, 6:durability}` | a `Put` |
//! | `TDelete{1:row, 2:columns, 3:timestamp, 4:deleteType, 7:durability}` | a `Delete` |
//! | `TIncrement{1:row, 2:columns, 5:durability, 7:returnResults}` | an `Increment` |
//! | `TAppend{1:row, 2:columns, 4:durability, 6:returnResults}` | an `Append` |
//! | `TScan{1:startRow, 2:stopRow, 3:columns, 4:caching, 5:maxVersions, 6:timeRange, 7:filterString, 8:batchSize, 11:reversed, 12:cacheBlocks, 15:limit}` | a [`Scan`] |
//! | `TRowMutations{1:row, 2:mutations}` of `TMutation{1:put \| 2:deleteSingle}` | `RowMutations` |
//!
//! A `TGet`'s `timestamp` reads exactly that timestamp; a `timeRange` is `[min, max)`.

use crate::protocol::{Struct, TType, Value};
use crate::service::Failure;
use basalt_types::{
    Cell, ColumnSelection, CompareOp, FilterSpec, Get, RowResult, Scan, TimeRange, LATEST_TIMESTAMP,
};
use bytes::Bytes;

/// `TColumnValue.type` of a put cell (HBase's `KeyValue.Type.Put` code).
const PUT_TYPE: i8 = 4;

pub(super) fn required<'a>(s: &'a Struct, id: i16, what: &str) -> Result<&'a Bytes, Failure> {
    s.binary(id)
        .ok_or_else(|| Failure::illegal(format!("missing required field {what}")))
}

pub(super) fn structs<'a>(s: &'a Struct, id: i16, what: &str) -> Result<Vec<&'a Struct>, Failure> {
    s.list(id)
        .unwrap_or_default()
        .iter()
        .map(|v| {
            v.as_struct()
                .ok_or_else(|| Failure::illegal(format!("{what} must hold structs")))
        })
        .collect()
}

/// A `TTimeRange{1:minStamp, 2:maxStamp}`.
fn time_range(s: &Struct) -> Result<TimeRange, Failure> {
    let min = s.i64(1).unwrap_or(0);
    let max = s.i64(2).unwrap_or(LATEST_TIMESTAMP);
    TimeRange::new(min, max).map_err(|e| Failure::io(e.to_string()))
}

fn exactly(ts: i64) -> Result<TimeRange, Failure> {
    TimeRange::new(ts, ts.saturating_add(1)).map_err(|e| Failure::io(e.to_string()))
}

/// The columns of a `list<TColumn>`; none selects everything.
fn columns(s: &Struct, id: i16) -> Result<ColumnSelection, Failure> {
    let mut selection = ColumnSelection::default();
    for column in structs(s, id, "columns")? {
        let family = required(column, 1, "TColumn.family")?.clone();
        match column.binary(2) {
            Some(q) => selection.add_column(family, q.clone()),
            None => selection.add_family(family),
        }
    }
    Ok(selection)
}

fn filter(text: Option<&Bytes>) -> Result<Option<FilterSpec>, Failure> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    // `filterString` is Thrift `binary`: bytes, as HBase's `ParseFilter` reads them.
    basalt_filter::parse(text)
        .map(Some)
        .map_err(|e| Failure::io(format!("bad filter string: {e}")))
}

fn positive(value: Option<i32>, what: &str) -> Result<Option<u32>, Failure> {
    match value {
        None => Ok(None),
        Some(v) => u32::try_from(v)
            .ok()
            .filter(|v| *v > 0)
            .map(Some)
            .ok_or_else(|| Failure::io(format!("{what} must be positive, got {v}"))),
    }
}

pub fn get(s: &Struct) -> Result<Get, Failure> {
    let mut get = Get::new(required(s, 1, "TGet.row")?.clone());
    get.columns = columns(s, 2)?;
    if let Some(ts) = s.i64(3) {
        get.time_range = exactly(ts)?;
    } else if let Some(range) = s.structure(4) {
        get.time_range = time_range(range)?;
    }
    if let Some(versions) = positive(s.i32(5), "maxVersions")? {
        get.max_versions = versions;
    }
    get.filter = filter(s.binary(6))?;
    if let Some(limit) = positive(s.i32(12), "storeLimit")? {
        get.max_results_per_family = Some(limit);
    }
    if let Some(offset) = s.i32(13) {
        get.row_offset_per_family = u32::try_from(offset).unwrap_or(0);
    }
    get.check_existence_only = s.bool(14).unwrap_or(false);
    Ok(get)
}

pub fn scan(s: &Struct) -> Result<Scan, Failure> {
    let mut scan = Scan::new()
        .start(s.binary(1).cloned().unwrap_or_default())
        .stop(s.binary(2).cloned().unwrap_or_default())
        .reversed(s.bool(11).unwrap_or(false));
    scan.columns = columns(s, 3)?;
    scan.caching = positive(s.i32(4), "caching")?;
    if let Some(versions) = positive(s.i32(5), "maxVersions")? {
        scan.max_versions = versions;
    }
    if let Some(range) = s.structure(6) {
        scan.time_range = time_range(range)?;
    }
    scan.filter = filter(s.binary(7))?;
    scan.batch = positive(s.i32(8), "batchSize")?;
    scan.cache_blocks = s.bool(12).unwrap_or(true);
    if let Some(limit) = s.i32(15).filter(|l| *l > 0) {
        scan = scan.limit(u64::try_from(limit).unwrap_or(0));
    }
    Ok(scan)
}

/// `TCompareOperator`.
pub fn compare_op(value: Option<i32>) -> Result<CompareOp, Failure> {
    Ok(match value {
        Some(0) => CompareOp::Less,
        Some(1) => CompareOp::LessOrEqual,
        Some(2) => CompareOp::Equal,
        Some(3) => CompareOp::NotEqual,
        Some(4) => CompareOp::GreaterOrEqual,
        Some(5) => CompareOp::Greater,
        Some(6) => CompareOp::NoOp,
        other => return Err(Failure::io(format!("unknown TCompareOperator {other:?}"))),
    })
}

fn column_value(cell: &Cell) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, Value::Binary(cell.family_bytes()))
            .with(2, Value::Binary(cell.qualifier_bytes()))
            .with(3, Value::Binary(cell.value_bytes()))
            .with(4, Value::I64(cell.timestamp()))
            .with(6, Value::Byte(PUT_TYPE)),
    )
}

/// A `TResult`; an empty result has no row and no column values.
pub fn result(result: &RowResult) -> Value {
    let mut out = Struct::new();
    if let Some(first) = result.cells.first() {
        out = out.with(1, Value::Binary(first.row_bytes()));
    }
    let values = result.cells.iter().map(column_value).collect();
    Value::Struct(
        out.with(2, Value::List(TType::Struct, values))
            .with(3, Value::Bool(false))
            .with(4, Value::Bool(false)),
    )
}

pub fn results<'a>(rows: impl IntoIterator<Item = &'a RowResult>) -> Value {
    Value::List(TType::Struct, rows.into_iter().map(result).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_get_timestamp_reads_exactly_it_and_a_range_is_half_open() {
        let g = get(&Struct::new()
            .with(1, Value::binary("r"))
            .with(3, Value::I64(5)))
        .expect("valid");
        assert_eq!(g.time_range, TimeRange::new(5, 6).expect("range"));
        let range = Struct::new().with(1, Value::I64(2)).with(2, Value::I64(9));
        let g = get(&Struct::new()
            .with(1, Value::binary("r"))
            .with(4, Value::Struct(range))
            .with(5, Value::I32(3)))
        .expect("valid");
        assert_eq!(g.time_range, TimeRange::new(2, 9).expect("range"));
        assert_eq!(g.max_versions, 3);
        assert!(get(&Struct::new()).is_err(), "the row is required");
    }

    #[test]
    fn compare_operators_follow_the_idl_numbering() {
        assert_eq!(compare_op(Some(2)).expect("known"), CompareOp::Equal);
        assert_eq!(compare_op(Some(6)).expect("known"), CompareOp::NoOp);
        assert!(compare_op(Some(7)).is_err());
        assert!(compare_op(None).is_err());
    }
}
