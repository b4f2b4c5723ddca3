//! Server-side scanners: OpenScanner, ScannerNext, CloseScanner.
//!
//! `OpenScanner { table, scan }` opens a scanner and returns its first rows (and, for a
//! region's scan, the MVCC read point it reads at, which a client reopening the scan in
//! that region elsewhere gives back in `Scan.read_point`);
//! `ScannerNext { scanner_id, caching, call_seq }` returns the next ones (a repeated
//! `call_seq` gets the same rows again, so clients may retry a lost response); `more == false` means the
//! scan is finished and the server already forgot the scanner (a scan that fits in the
//! first response is never registered and has an empty id). `CloseScanner` forgets a
//! scanner early; closing an unknown one is not an error.
//!
//! Rows per response: the call's `caching`, else the scan's, else the server's default,
//! never more than `scanner_caching_max`; a response also stops past
//! `max_result_size_bytes` (the scan's, capped by the server's), after at least one row.

use crate::error::status;
use crate::scanners::Entry;
use crate::shared::Shared;
use basalt_proto::convert::required;
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_types::Scan;
use bytes::Bytes;
use std::sync::Arc;
use tonic::Status;

/// `rows` are converted by value (moved into the message) or, when a scanner keeps them
/// for a retry, by reference.
fn response(id: Option<[u8; 16]>, rows: Vec<pb::RowResult>, more: bool) -> pb::ScanResponse {
    pb::ScanResponse {
        scanner_id: id.map(|id| Bytes::copy_from_slice(&id)).unwrap_or_default(),
        rows,
        more,
        read_point: None,
    }
}

fn caching(shared: &Shared, asked: Option<u32>) -> u32 {
    asked
        .filter(|c| *c > 0)
        .unwrap_or(shared.config.scanner_caching_default)
        .clamp(1, shared.config.scanner_caching_max.max(1))
}

pub async fn open(
    shared: &Arc<Shared>,
    req: pb::OpenScannerRequest,
) -> Result<pb::ScanResponse, Status> {
    let origin = match shared.slowlog.is_enabled() {
        true => crate::table_service::described::open_scanner(&req),
        false => Default::default(),
    };
    let table = decode_table(req.table).map_err(status)?;
    let scan = Scan::try_from(required(req.scan, "scan").map_err(status)?).map_err(status)?;
    let rows_per_call = caching(shared, scan.caching);
    let result_max_bytes = scan
        .max_result_size_bytes
        .unwrap_or(u64::MAX)
        .min(shared.config.scanner_result_max_bytes);
    let region = req.region;
    shared
        .run_blocking(move |s| {
            let mut read_point = None;
            let table = s.conn.table(&table)?;
            let scanner = match region.is_empty() {
                true => table.scan(&scan)?,
                false => {
                    let opened = table.open_scan(&scan, Some(&region))?;
                    read_point = opened.read_point;
                    opened.rows
                }
            };
            let entry = Entry::new(scanner, rows_per_call, result_max_bytes).with_origin(origin);
            let (rows, more) = entry.next_rows(rows_per_call)?;
            let id = if more {
                Some(s.scanners.insert(entry)?)
            } else {
                None
            };
            Ok(pb::ScanResponse {
                read_point: read_point.map(basalt_types::SeqId::get),
                ..response(id, rows.into_iter().map(Into::into).collect(), more)
            })
        })
        .await
}

pub async fn next(
    shared: &Arc<Shared>,
    req: pb::ScannerNextRequest,
) -> Result<pb::ScanResponse, Status> {
    let id = req.scanner_id;
    let entry = shared.scanners.get(&id).map_err(status)?;
    let rows_per_call = if req.caching == 0 {
        entry.caching
    } else {
        caching(shared, Some(req.caching))
    };
    shared
        .run_blocking(move |s| {
            let outcome = entry.next_call(req.call_seq, rows_per_call);
            if !matches!(outcome, Ok((_, true))) {
                s.scanners.remove(&id);
            }
            let (rows, more) = outcome?;
            let id = id.as_ref().try_into().ok();
            Ok(response(id, rows.iter().map(Into::into).collect(), more))
        })
        .await
}

pub fn close(
    shared: &Arc<Shared>,
    req: pb::CloseScannerRequest,
) -> Result<pb::CloseScannerResponse, Status> {
    shared.scanners.remove(&req.scanner_id);
    Ok(pb::CloseScannerResponse {})
}
