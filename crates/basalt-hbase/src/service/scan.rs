//! `ClientService` Scan: open a scanner over one region (or `hbase:meta`), take rows from
//! it call by call, close it.
//!
//! A call with `renew` set on an open scanner only renews its lease. One answer holds at
//! most `number_of_rows` rows (none when 0, HBase's way to open
//! without reading) and stops early past the byte budget (the scan's `max_result_size`,
//! else [`DEFAULT_RESULT_BYTES`]). A scanner that reaches its region's end is finished:
//! `more_results_in_region = false` tells the client to go on to the next region;
//! `more_results = false` only when the scan's `limit_of_rows` is used up. A row is cut
//! into parts by the scan's `batch_size` (each part but the last flagged partial), and by
//! the byte budget only for a client that says `client_handles_partials` ([`partial`]).
//!
//! A client that says `client_handles_heartbeats` gets an answer within the call's time
//! limit (the server's, half the scanner lease by default, or half the call's timeout
//! when shorter): past it, the call answers the rows it has with `heartbeat_message` and
//! `more_results_in_region` set, and the client calls again. A filtered scan for such a
//! client reads ahead on its own thread so a long filtering run can be interrupted
//! ([`super::source`]); closing such a scanner stops that thread at its next row read.
//!
//! A scanner reads at one point: its region's scanner opens, and takes its MVCC read point,
//! in the open call, and every next reads from that same region scanner. The open answer
//! tells the point (`mvcc_read_point`, as HBase's region servers do); a client that must
//! reopen the scanner (the region moved, split, or its server died) sends it back in
//! `Scan.mvcc_read_point` and the new scanner reads at it (never above the region's
//! current point): cells written since the scan began stay invisible. 0 means none.

use super::client::Answer;
use super::client::{resolve, Target};
use super::partial;
use super::scanners::{rows_of, within_region, Found, OpenScanner, Rows};
use super::source::{Next, RowSource};
use super::{convert, CallContext, Reply, Results, Service};
use crate::meta::{self, MetaSnapshot};
use crate::pb;
use crate::RpcError;
use basalt_types::{RowResult, Scan, ScanCancel, SeqId};
use bytes::Bytes;
use std::time::Instant;

/// The byte budget of one answer when the scan names none (HBase client's default 2 MiB).
pub const DEFAULT_RESULT_BYTES: u64 = 2 * 1024 * 1024;

pub fn scan(
    service: &Service,
    request: pb::ScanRequest,
    mut out: Results,
    ctx: CallContext,
) -> Answer {
    let close = request.close_scanner.unwrap_or(false);
    let rows_wanted = request.number_of_rows.unwrap_or(if close { 0 } else { 1 });
    // The read point of a scanner opened by this call, told to the client.
    let mut opened_at = None;
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
        None => {
            let (id, read_point) = open(service, &request)?;
            opened_at = read_point;
            id
        }
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
    // Heartbeats for a client that handles them, after the call's time limit: half the
    // call's own timeout when that is shorter (HBase's rule).
    let time_limit = ctx.timeout.map_or(service.scan_time_limit, |t| {
        service.scan_time_limit.min(t / 2)
    });
    let deadline = request
        .client_handles_heartbeats
        .unwrap_or(false)
        .then(|| Instant::now() + time_limit);
    let partials = request.client_handles_partials.unwrap_or(false);
    let mut results = Vec::new();
    let mut bytes = 0u64;
    let mut heartbeat = false;
    while (results.len() as u64) < u64::from(rows_wanted)
        && bytes < scanner.max_result_bytes
        && scanner.rows_left != Some(0)
    {
        if deadline.is_some_and(|at| Instant::now() >= at) && !results.is_empty() {
            heartbeat = true;
            break;
        }
        let row = match scanner.pending.take() {
            Some(rest) => rest,
            None => match scanner.rows.next_until(deadline) {
                Next::Row(row) => row?,
                Next::End => break,
                Next::TimedOut => {
                    heartbeat = true;
                    break;
                }
            },
        };
        if row.is_empty() {
            continue;
        }
        let row = match partials {
            true => {
                let (part, rest) = partial::cut(row, scanner.max_result_bytes - bytes);
                scanner.pending = rest;
                part
            }
            false => row,
        };
        bytes += row.cells.iter().map(|c| c.heap_size() as u64).sum::<u64>();
        // A row cut by the scan's batch or the byte budget counts once, at its last part.
        if let (Some(left), false) = (scanner.rows_left.as_mut(), row.partial) {
            *left -= 1;
        }
        results.push(out.result(&row));
    }
    let limit_done = scanner.rows_left == Some(0);
    let region_done = limit_done
        || (!heartbeat
            && scanner.pending.is_none()
            && scanner.rows.ended_by(deadline) == Some(true));
    drop(scanner);
    if region_done || close {
        service.scanners.close(id, region_done);
    }
    let partial_flag_per_result = results.iter().map(|r| r.partial == Some(true)).collect();
    let (results, cells_per_result) = out.scan_results(results);
    Ok(out.reply(pb::ScanResponse {
        cells_per_result,
        scanner_id: Some(id),
        more_results: Some(!limit_done),
        ttl: Some(service.scanners.lease().as_millis() as u32),
        partial_flag_per_result,
        results,
        stale: Some(false),
        more_results_in_region: Some(!region_done),
        heartbeat_message: Some(heartbeat),
        mvcc_read_point: opened_at.map(SeqId::get),
    }))
}

fn answer(message: pb::ScanResponse) -> Answer {
    Ok(Reply::inline(prost::Message::encode_to_vec(&message)))
}

/// Opens a scanner: its id, and the read point its region's scanner reads at.
fn open(service: &Service, request: &pb::ScanRequest) -> Result<(u64, Option<SeqId>), RpcError> {
    let (Some(region), Some(pb_scan)) = (&request.region, &request.scan) else {
        return Err(RpcError::do_not_retry(
            "a scan request needs a scanner id, or a region and a scan to open one",
        ));
    };
    let mut scan = convert::scan(pb_scan)?;
    // A filtered scan may read long between rows: read ahead, so a heartbeat can answer,
    // and stop that reading when the scanner is closed.
    let ahead = pb_scan.filter.is_some() && request.client_handles_heartbeats == Some(true);
    let cancel = ahead.then(ScanCancel::new);
    scan.cancel = cancel.clone();
    let mut read_point = None;
    let rows = match resolve(service, region)? {
        Target::Meta => meta_rows(service, &scan)?,
        Target::Region { table, region } => {
            let scan = clip(scan, &region.start_key, &region.end_key);
            // Standalone: the connection routes the scan (cut at the region's end); a
            // region server reads its one region.
            let only = (!service.roles.master).then_some(region.encoded_name.as_str());
            let opened = table.open_scan(&scan, only)?;
            read_point = opened.read_point;
            within_region(
                opened.rows,
                region.start_key.clone(),
                region.end_key.clone(),
            )
        }
    };
    let limit = request.limit_of_rows.filter(|l| *l > 0).map(u64::from);
    let rows = match cancel {
        Some(cancel) => RowSource::ahead(rows).cancelling(cancel),
        None => RowSource::direct(rows),
    };
    let id = service.scanners.open(OpenScanner {
        rows,
        pending: None,
        rows_left: limit,
        max_result_bytes: pb_scan
            .max_result_size
            .filter(|m| *m > 0)
            .unwrap_or(DEFAULT_RESULT_BYTES),
    })?;
    Ok((id, read_point))
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
            .filter(|c| scan.columns.is_all() || scan.columns.wants(c.family(), c.qualifier()))
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
