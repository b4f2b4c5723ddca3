//! Scanners: open, fetch, close.
//!
//! | method | arguments (id) |
//! |---|---|
//! | `scannerOpenWithScan` | table 1, TScan 2 |
//! | `scannerOpen` | table 1, startRow 2, columns 3 |
//! | `scannerOpenWithStop` | table 1, startRow 2, stopRow 3, columns 4 |
//! | `scannerOpenWithPrefix` | table 1, prefix 2, columns 3 |
//! | `scannerOpenTs` | table 1, startRow 2, columns 3, ts 4 |
//! | `scannerOpenWithStopTs` | table 1, startRow 2, stopRow 3, columns 4, ts 5 |
//! | `scannerGet` / `scannerGetList` / `scannerClose` | id 1, (nbRows 2) |
//!
//! `TScan{1:startRow, 2:stopRow, 3:timestamp, 4:columns, 5:caching, 6:filterString,
//! 7:batchSize, 8:sortColumns, 9:reversed, 10:cacheBlocks}`; its timestamp reads `[0, ts)`,
//! `batchSize` caps the cells per result, `filterString` is HBase's filter language.

use super::convert::{row_result, selection};
use super::read::up_to;
use super::{required, CallResult, Failure, Service};
use crate::protocol::{Struct, TType, Value};
use crate::scanners::OpenScanner;
use basalt_types::Scan;

/// The most rows one `scannerGetList` returns, whatever it asks for.
const ROWS_PER_CALL_MAX: usize = 100_000;

pub(super) fn call(service: &Service, session: u64, name: &str, args: &Struct) -> CallResult {
    match name {
        "scannerGet" | "scannerGetList" => {
            let id = args
                .i32(1)
                .ok_or_else(|| Failure::illegal("missing argument id"))?;
            let wanted = match name {
                "scannerGet" => 1,
                _ => args.i32(2).unwrap_or(1),
            };
            let wanted = usize::try_from(wanted).unwrap_or(0).min(ROWS_PER_CALL_MAX);
            let scanner = service.scanners.get(session, id)?;
            let mut scanner = scanner.lock();
            let sort = scanner.sort_columns;
            let mut rows = Vec::new();
            while rows.len() < wanted {
                match scanner.rows.next() {
                    Some(result) => rows.extend(row_result(&result?, sort)),
                    None => break,
                }
            }
            Ok(Some(Value::List(TType::Struct, rows)))
        }
        "scannerClose" => {
            let id = args
                .i32(1)
                .ok_or_else(|| Failure::illegal("missing argument id"))?;
            service.scanners.close(session, id)?;
            Ok(None)
        }
        _ => {
            let table = service.table(args, 1)?;
            let (scan, sort_columns) = scan_of(name, args)?;
            let rows = table.scan(&scan)?;
            let id = service
                .scanners
                .open(session, OpenScanner { rows, sort_columns })?;
            Ok(Some(Value::I32(id)))
        }
    }
}

/// The scan an open call asks for, and whether it wants sorted columns.
fn scan_of(name: &str, args: &Struct) -> Result<(Scan, bool), Failure> {
    let binary = |id| args.binary(id).cloned().unwrap_or_default();
    let columns = |id| args.binary_list(id).unwrap_or_default();
    let mut scan = Scan::new();
    match name {
        "scannerOpenWithScan" => return with_scan(args),
        "scannerOpen" => {
            scan = scan.start(binary(2));
            scan.columns = selection(&columns(3));
        }
        "scannerOpenWithStop" => {
            scan = scan.start(binary(2)).stop(binary(3));
            scan.columns = selection(&columns(4));
        }
        "scannerOpenWithPrefix" => {
            scan = scan.prefix(required(args, 2, "startAndPrefix")?.clone());
            scan.columns = selection(&columns(3));
        }
        "scannerOpenTs" => {
            scan = scan
                .start(binary(2))
                .time_range(up_to(args.i64(4).unwrap_or(i64::MAX))?);
            scan.columns = selection(&columns(3));
        }
        "scannerOpenWithStopTs" => {
            scan = scan
                .start(binary(2))
                .stop(binary(3))
                .time_range(up_to(args.i64(5).unwrap_or(i64::MAX))?);
            scan.columns = selection(&columns(4));
        }
        _ => return Err(Failure::UnknownMethod),
    }
    Ok((scan, false))
}

fn with_scan(args: &Struct) -> Result<(Scan, bool), Failure> {
    let t = args
        .structure(2)
        .ok_or_else(|| Failure::illegal("missing argument scan"))?;
    let mut scan = Scan::new()
        .start(t.binary(1).cloned().unwrap_or_default())
        .stop(t.binary(2).cloned().unwrap_or_default())
        .reversed(t.bool(9).unwrap_or(false));
    if let Some(ts) = t.i64(3) {
        scan = scan.time_range(up_to(ts)?);
    }
    scan.columns = selection(&t.binary_list(4).unwrap_or_default());
    if let Some(caching) = t
        .i32(5)
        .and_then(|c| u32::try_from(c).ok())
        .filter(|c| *c > 0)
    {
        scan.caching = Some(caching);
    }
    if let Some(text) = t.binary(6).filter(|f| !f.is_empty()) {
        // `Text` is Thrift `binary`: the filter string is bytes, as HBase parses it.
        let filter = basalt_filter::parse(text)
            .map_err(|e| Failure::io(format!("bad filter string: {e}")))?;
        scan = scan.filter(filter);
    }
    if let Some(batch) = t
        .i32(7)
        .and_then(|b| u32::try_from(b).ok())
        .filter(|b| *b > 0)
    {
        scan = scan.batch(batch);
    }
    scan.cache_blocks = t.bool(10).unwrap_or(true);
    Ok((scan, t.bool(8).unwrap_or(false)))
}
