//! `scan`, `randomSeekScan` and `scanRange10/100/1000`, as HBase's PE runs them.

use super::{value_bytes, Client};
use crate::keys::pe_row;
use basalt_api::Result;
use basalt_types::Scan;
use std::time::Instant;

/// PE's `randomSeekScan` reads at most this many rows (its `PageFilter(120)`).
pub const SEEK_SCAN_ROWS: u64 = 120;

/// Reads every row of `scan`; returns (rows, value bytes).
fn drain(client: &Client<'_>, scan: &Scan) -> Result<(u64, u64)> {
    let mut rows = 0;
    let mut bytes = 0;
    for row in client.table.scan(scan)? {
        bytes += value_bytes(&row?);
        rows += 1;
    }
    Ok((rows, bytes))
}

/// One scanner over the client's own rows; each row it returns is one operation.
pub fn scan(client: &mut Client<'_>) -> Result<()> {
    let rows = client.own_rows();
    let scan = Scan::new().start(pe_row(rows.start)).stop(pe_row(rows.end));
    let mut scanner = client.table.scan(&scan)?;
    loop {
        if client.stopped() {
            break;
        }
        let started = Instant::now();
        match scanner.next() {
            Some(row) => {
                let bytes = value_bytes(&row?);
                client.record(None, started, bytes, 0);
            }
            None => break,
        }
    }
    Ok(())
}

/// Up to 120 rows from a random row.
pub fn random_seek_scan(client: &mut Client<'_>) -> Result<()> {
    for _ in 0..client.options.rows_per_client {
        if client.stopped() {
            break;
        }
        let scan = Scan::new()
            .start(pe_row(client.random_row()))
            .limit(SEEK_SCAN_ROWS);
        let started = Instant::now();
        let (rows, bytes) = drain(client, &scan)?;
        client.record(None, started, bytes, u64::from(rows == 0));
    }
    Ok(())
}

/// The key range `[row, row + range)` from a random row.
pub fn scan_range(client: &mut Client<'_>, range: u64) -> Result<()> {
    for _ in 0..client.options.rows_per_client {
        if client.stopped() {
            break;
        }
        let start = client.random_row();
        let scan = Scan::new().start(pe_row(start)).stop(pe_row(start + range));
        let started = Instant::now();
        let (rows, bytes) = drain(client, &scan)?;
        client.record(None, started, bytes, u64::from(rows == 0));
    }
    Ok(())
}
