//! `ClientService` Scan: open a scanner over one region (or `hbase:meta`), take rows from
//! it call by call, close it.
//!
//! A call with `renew` set on an open scanner only renews its lease. One answer holds at
//! most `number_of_rows` rows (none when 0, HBase's way to open
//! without reading) and stops early past the byte budget (the scan's `max_result_size`,
//! else [`DEFAULT_RESULT_BYTES`]). A scanner that reaches its region's end is finished:
//! `more_results_in_region = false` tells the client to go on to the next region;
//! `more_results = false` only when the scan's `limit_of_rows` is used up. A row is cut
//! into parts only by the scan's `batch_size` (each part but the last flagged partial);
//! the byte budget never cuts a row, and no answer is a heartbeat.

use super::client::{resolve, Target};
use super::scanners::{rows_of, within_region, Found, OpenScanner, Rows};
use super::{answer, convert, Answer, Service};
use crate::meta::{self, MetaSnapshot};
use crate::pb;
use crate::RpcError;
use basalt_types::{RowResult, Scan};
use bytes::Bytes;

/// The byte budget of one answer when the scan names none (HBase client's default 2 MiB).
pub const DEFAULT_RESULT_BYTES: u64 = 2 * 1024 * 1024;

pub fn scan(service: &Service, request: pb::ScanRequest) -> Answer {
    let close = request.close_scanner.unwrap_or(false);
    let rows_wanted = request.number_of_rows.unwrap_or(if close { 0 } else { 1 });
    let id = match request.scanner_id {
        // A lease renewal reads nothing (HBase's client sends it while the user is slow).
        Some(id) if request.renew.unwrap_or(false) && !close => {
            // Looking it up renews it (or answers UnknownScannerException).
            service.scanners.lookup(id)?;
            return answer(pb::ScanResponse {
                scanner_id: Some(id),
                more_results: Some(true),
                more_results_in_region: Some(true),
                ttl: Some(service.scanners.lease().as_millis() as u32),
                ..Default::default()
            });
        }
        Some(id) => {
            if close && rows_wanted == 0 {
                service.scanners.close(id, false);
                return answer(pb::ScanResponse {
                    scanner_id: Some(id),
                    more_results: Some(false),
                    ..Default::default()
                });
            }
            id
        }
        None => open(service, &request)?,
    };
    let scanner = match service.scanners.lookup(id)? {
        Found::Open(scanner) => scanner,
        Found::Finished => {
            return answer(pb::ScanResponse {
                scanner_id: Some(id),
                more_results: Some(true),
                more_results_in_region: Some(false),
                ttl: Some(service.scanners.lease().as_millis() as u32),
                ..Default::default()
            })
        }
    };
    let mut scanner = scanner.lock();
    let mut results = Vec::new();
    let mut bytes = 0u64;
    while (results.len() as u64) < u64::from(rows_wanted)
        && bytes < scanner.max_result_bytes
        && scanner.rows_left != Some(0)
    {
        let Some(row) = scanner.rows.next() else {
            break;
        };
        let row = row?;
        if row.is_empty() {
            continue;
        }
        bytes += row.cells.iter().map(|c| c.heap_size() as u64).sum::<u64>();
        // A row cut by the scan's batch counts once, at its last part.
        if let (Some(left), false) = (scanner.rows_left.as_mut(), row.partial) {
            *left -= 1;
        }
        results.push(convert::result(&row));
    }
    let limit_done = scanner.rows_left == Some(0);
    let region_done = limit_done || scanner.rows.peek().is_none();
    drop(scanner);
    if region_done || close {
        service.scanners.close(id, region_done);
    }
    answer(pb::ScanResponse {
        cells_per_result: Vec::new(),
        scanner_id: Some(id),
        more_results: Some(!limit_done),
        ttl: Some(service.scanners.lease().as_millis() as u32),
        partial_flag_per_result: results.iter().map(|r| r.partial == Some(true)).collect(),
        results,
        stale: Some(false),
        more_results_in_region: Some(!region_done),
        heartbeat_message: Some(false),
        mvcc_read_point: None,
    })
}

fn open(service: &Service, request: &pb::ScanRequest) -> Result<u64, RpcError> {
    let (Some(region), Some(pb_scan)) = (&request.region, &request.scan) else {
        return Err(RpcError::do_not_retry(
            "a scan request needs a scanner id, or a region and a scan to open one",
        ));
    };
    let scan = convert::scan(pb_scan)?;
    let rows = match resolve(service, region)? {
        Target::Meta => meta_rows(service, &scan)?,
        Target::Region { table, region } => {
            let scan = clip(scan, &region.start_key, &region.end_key);
            within_region(
                match service.roles.master {
                    // Standalone: the connection routes the scan (cut at the region's end).
                    true => table.scan(&scan)?,
                    // A region server reads its one region.
                    false => table.scan_region(&scan, &region.encoded_name)?,
                },
                region.start_key.clone(),
                region.end_key.clone(),
            )
        }
    };
    let limit = request.limit_of_rows.filter(|l| *l > 0).map(u64::from);
    service.scanners.open(OpenScanner {
        rows: rows.peekable(),
        rows_left: limit,
        max_result_bytes: pb_scan
            .max_result_size
            .filter(|m| *m > 0)
            .unwrap_or(DEFAULT_RESULT_BYTES),
    })
}

/// `scan` moved inside the region `[start, end)`: it starts no earlier than the region in
/// its direction (rows past the region's far end are cut by [`within_region`]).
pub fn clip(mut scan: Scan, start: &Bytes, end: &Bytes) -> Scan {
    if !scan.reversed {
        if scan.start_row.is_empty() || scan.start_row < *start {
            scan.start_row = start.clone();
            scan.start_inclusive = true;
        }
    } else if !end.is_empty() && (scan.start_row.is_empty() || scan.start_row >= *end) {
        scan.start_row = end.clone();
        scan.start_inclusive = false;
    }
    scan
}

/// `hbase:meta`'s rows that `scan` selects, in its order.
fn meta_rows(service: &Service, scan: &Scan) -> Result<Rows, RpcError> {
    // A scan bounded on both ends inside one table's rows (HBase's own locator scans
    // `table,row,99999999999999` down to `table,,`) reads that table alone.
    let one_table = match (
        meta::table_of_meta_row(&scan.start_row),
        meta::table_of_meta_row(&scan.stop_row),
    ) {
        (Some(a), Some(b)) if a == b && !scan.stop_row.is_empty() => Some(a),
        _ => None,
    };
    let (conn, topology) = (service.conn.as_ref(), service.topology.as_ref());
    let snapshot = match one_table {
        Some(table) => MetaSnapshot::read_tables(conn, topology, &[table])?,
        None => MetaSnapshot::read(conn, topology)?,
    };
    let select = |(row, cells): (&Bytes, &Vec<basalt_types::Cell>)| {
        if !scan.contains_row(row) {
            return None;
        }
        let cells: Vec<_> = cells
            .iter()
            .filter(|c| scan.columns.is_all() || scan.columns.wants(&c.family, &c.qualifier))
            .cloned()
            .collect();
        (!cells.is_empty()).then(|| RowResult::new(cells))
    };
    let rows: Vec<RowResult> = match scan.reversed {
        false => snapshot.rows.iter().filter_map(select).collect(),
        true => snapshot.rows.iter().rev().filter_map(select).collect(),
    };
    let rows = match scan.limit {
        Some(limit) => rows.into_iter().take(limit as usize).collect(),
        None => rows,
    };
    Ok(rows_of(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_starts_inside_its_region_in_either_direction() {
        let (start, end) = (Bytes::from_static(b"m"), Bytes::from_static(b"t"));
        let forward = clip(Scan::new(), &start, &end);
        assert_eq!(forward.start_row, start);
        let later = clip(Scan::new().start(Bytes::from_static(b"p")), &start, &end);
        assert_eq!(&later.start_row[..], b"p");
        let reversed = clip(Scan::new().reversed(true), &start, &end);
        assert_eq!(reversed.start_row, end);
        assert!(!reversed.start_inclusive);
        let last = clip(Scan::new().reversed(true), &start, &Bytes::new());
        assert!(last.start_row.is_empty());
    }
}
