//! A scan across a table's regions, forwards or reversed.
//!
//! The scanner reads one region at a time. When a region is exhausted it looks up the next
//! region from the catalog *by key* — the one holding the finished region's end key
//! (forwards) or the one ending at its start key (reversed) — so a split or merge between
//! two regions neither repeats nor skips a row. A region closed under the scanner (split
//! just then) is looked up again; a FAILED_OPEN region ends the scan with its error.
//! A scan's asked-for read point (`Scan::read_point`) applies to the region it starts in,
//! and is dropped when the scan goes on to the next region.

use crate::catalog::TableEntry;
use crate::database::Database;
use crate::error::{from_storage, io};
use crate::table::backoff;
use basalt_api::{ErrorKind, Result};
use basalt_storage::scanner::region_scanner::RegionScanner;
use basalt_types::{RowResult, Scan, SeqId, TableName};
use bytes::Bytes;
use std::sync::Arc;

const OPEN_ATTEMPTS: u32 = 100;

pub struct TableScanner {
    db: Arc<Database>,
    table: TableName,
    /// The scan still to do: its start moves as regions are finished.
    scan: Scan,
    current: Option<(Bytes, Bytes, RegionScanner)>,
    rows_left: Option<u64>,
    done: bool,
    /// Set on a region server: the one region (encoded name) this scan reads.
    only: Option<String>,
}

impl TableScanner {
    pub fn open(db: Arc<Database>, table: TableName, scan: Scan) -> Result<Self> {
        {
            let catalog = db.catalog.read();
            let entry = catalog.table(&table)?;
            if !entry.enabled {
                return Err(crate::error::table_disabled(&table));
            }
        }
        let rows_left = scan.limit;
        Ok(Self {
            db,
            table,
            scan,
            current: None,
            rows_left,
            done: false,
            only: None,
        })
    }

    /// A scan of the one region `encoded` (a region server's scans: the client walks the
    /// table region by region). NotServingRegion when it is not open here.
    pub fn open_region(
        db: Arc<Database>,
        table: TableName,
        scan: Scan,
        encoded: &str,
    ) -> Result<Self> {
        let known = db
            .catalog
            .read()
            .table(&table)
            .is_ok_and(|t| t.regions.values().any(|e| e.record.encoded_name == encoded));
        if !known {
            return Err(crate::host::not_serving(&format!(
                "region {encoded} of {table} is not open on this server"
            )));
        }
        let mut scanner = Self::open(db, table, scan)?;
        scanner.only = Some(encoded.to_string());
        Ok(scanner)
    }

    /// Opens the region where the scan starts now rather than at the first row, and tells
    /// the read point its scanner reads at (`None` once the scan has nothing left).
    pub fn start(&mut self) -> Result<Option<SeqId>> {
        if self.current.is_none() && !self.done && self.rows_left != Some(0) {
            self.open_next()?;
        }
        Ok(self
            .current
            .as_ref()
            .map(|(_, _, scanner)| scanner.read_point()))
    }

    /// Opens the region where the remaining scan starts.
    fn open_next(&mut self) -> Result<()> {
        let mut attempt = 0;
        loop {
            let (start, end, region) = {
                let catalog = self.db.catalog.read();
                let entry = catalog.table(&self.table)?;
                let found = match &self.only {
                    Some(name) => entry
                        .regions
                        .values()
                        .find(|e| &e.record.encoded_name == name),
                    None => first_region(entry, &self.scan),
                };
                let Some(found) = found else {
                    if let Some(name) = &self.only {
                        return Err(crate::host::not_serving(&format!(
                            "region {name} of {} is no longer open on this server",
                            self.table
                        )));
                    }
                    return Err(io(format!(
                        "no region of {} holds the scan's start",
                        self.table
                    )));
                };
                // A scan that reaches a FAILED_OPEN region fails there: skipping its rows
                // would return a silently wrong answer.
                if let Some(failure) = &found.failure {
                    return Err(failure.error());
                }
                let region = found
                    .region
                    .clone()
                    .ok_or_else(|| crate::error::table_disabled(&self.table))?;
                (
                    found.record.start_key.clone(),
                    found.record.end_key.clone(),
                    region,
                )
            };
            let mut scan = self.scan.clone();
            scan.limit = self.rows_left;
            match region.scanner(&scan).map_err(from_storage) {
                Ok(scanner) => {
                    self.current = Some((start, end, scanner));
                    return Ok(());
                }
                Err(e) if e.kind == ErrorKind::RetryElsewhere && attempt < OPEN_ATTEMPTS => {
                    attempt += 1;
                    std::thread::sleep(backoff(attempt));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Moves the scan's start past the finished region `[start, end)`; false when the
    /// scan has nothing left.
    fn advance_past(&mut self, start: &Bytes, end: &Bytes) -> bool {
        if self.only.is_some() {
            return false;
        }
        // A read point belongs to the region that gave it: the next one reads at its own.
        self.scan.read_point = None;
        if self.scan.reversed {
            if start.is_empty() || (!self.scan.stop_row.is_empty() && *start <= self.scan.stop_row)
            {
                return false;
            }
            self.scan.start_row = start.clone();
            self.scan.start_inclusive = false;
        } else {
            if end.is_empty() || self.scan.past_stop(end) {
                return false;
            }
            self.scan.start_row = end.clone();
            self.scan.start_inclusive = true;
        }
        true
    }

    fn next_row(&mut self) -> Result<Option<RowResult>> {
        while !self.done {
            if self.rows_left == Some(0) {
                self.done = true;
                break;
            }
            if self.current.is_none() {
                self.open_next()?;
            }
            let (start, end, scanner) = self.current.as_mut().expect("opened above");
            match scanner.next_row().map_err(from_storage)? {
                Some(row) => {
                    if !row.partial {
                        if let Some(left) = self.rows_left.as_mut() {
                            *left -= 1;
                        }
                    }
                    return Ok(Some(row));
                }
                None => {
                    let (start, end) = (start.clone(), end.clone());
                    self.current = None;
                    if !self.advance_past(&start, &end) {
                        self.done = true;
                    }
                }
            }
        }
        Ok(None)
    }
}

/// The region where `scan` starts: holding its start row (forwards), or the last region at
/// or before it (reversed; the last region of all for an empty start).
fn first_region<'a>(entry: &'a TableEntry, scan: &Scan) -> Option<&'a crate::catalog::RegionEntry> {
    if !scan.reversed {
        return entry.region_for(&scan.start_row);
    }
    if scan.start_row.is_empty() {
        return entry.regions.values().next_back();
    }
    match entry.region_for(&scan.start_row) {
        // Exclusive start at a region's first key: the rows are all in the region before.
        Some(found) if !scan.start_inclusive && found.record.start_key == scan.start_row => {
            entry.region_ending_at(&scan.start_row).or(Some(found))
        }
        other => other,
    }
}

impl Iterator for TableScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_row().transpose()
    }
}
