//! Reads of whole rows or single columns.
//!
//! | method | arguments (id) |
//! |---|---|
//! | `get` / `getVer` / `getVerTs` | table 1, row 2, column 3, (ts 4), numVersions 4/5 |
//! | `getRow[WithColumns][Ts]` | table 1, row 2, (columns 3), (ts 3/4) |
//! | `getRows[WithColumns][Ts]` | table 1, rows 2, (columns 3), (ts 3/4) |
//!
//! A timestamp reads the range `[0, ts)`: exclusive, as HBase behaves (the IDL says ≤).
//! Absent columns and an empty list alike select every column.

use super::convert::{row_results, selection, tcells, Column};
use super::{required, CallResult, Failure, Service};
use crate::protocol::Struct;
use basalt_types::{Get, TimeRange};
use bytes::Bytes;

pub(super) fn call(service: &Service, name: &str, args: &Struct) -> CallResult {
    let table = service.table(args, 1)?;
    match name {
        "get" | "getVer" | "getVerTs" => {
            let row = required(args, 2, "row")?;
            let column = Column::parse(required(args, 3, "column")?);
            let (versions, ts) = match name {
                "get" => (1, None),
                "getVer" => (args.i32(4).unwrap_or(1), None),
                _ => (
                    args.i32(5).unwrap_or(1),
                    Some(args.i64(4).unwrap_or(i64::MAX)),
                ),
            };
            let versions = u32::try_from(versions)
                .ok()
                .filter(|v| *v > 0)
                .ok_or_else(|| {
                    Failure::io(format!("numVersions must be positive, got {versions}"))
                })?;
            let mut get = Get::new(row.clone()).versions(versions);
            get = match column.qualifier {
                Some(q) => get.column(column.family, q),
                None => get.family(column.family),
            };
            if let Some(ts) = ts {
                get = get.time_range(up_to(ts)?);
            }
            let result = table.get(&get)?;
            Ok(Some(tcells(&result.cells)))
        }
        _ => {
            let many = name.starts_with("getRows");
            let with_columns = name.contains("WithColumns");
            let timestamped = name.ends_with("Ts");
            let rows = if many {
                args.binary_list(2)
                    .ok_or_else(|| Failure::illegal("missing argument rows"))?
            } else {
                vec![required(args, 2, "row")?.clone()]
            };
            let columns = if with_columns {
                args.binary_list(3).unwrap_or_default()
            } else {
                Vec::new()
            };
            let ts_id = if with_columns { 4 } else { 3 };
            let range = match timestamped {
                true => up_to(args.i64(ts_id).unwrap_or(i64::MAX))?,
                false => TimeRange::ALL,
            };
            let gets = gets(rows, &columns, range);
            let results = table.get_many(&gets)?;
            Ok(Some(row_results(&results, false)))
        }
    }
}

/// HBase's Thrift reads at `ts`: the range `[0, ts)`.
pub(super) fn up_to(ts: i64) -> Result<TimeRange, Failure> {
    TimeRange::new(0, ts).map_err(|e| Failure::io(e.to_string()))
}

fn gets(rows: Vec<Bytes>, columns: &[Bytes], range: TimeRange) -> Vec<Get> {
    let columns = selection(columns);
    rows.into_iter()
        .map(|row| {
            let mut get = Get::new(row).time_range(range);
            get.columns = columns.clone();
            get
        })
        .collect()
}
