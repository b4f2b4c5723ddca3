//! Reads: gets and scanners, at one MVCC read point: the region's current one, or an
//! older one the scan asks for ([`read_point_for`]).

use super::Region;
use crate::scanner::region_scanner::RegionScanner;
use crate::scanner::store_scanner::StoreScanner;
use crate::{Error, Result};
use basalt_types::{Get, RowResult, Scan, SeqId};
use std::sync::atomic::Ordering;

impl Region {
    /// Opens a scanner over the part of `scan` this region holds.
    pub fn scanner(&self, scan: &Scan) -> Result<RegionScanner> {
        self.check_open()?;
        for family in scan.columns.families() {
            self.store(family)?;
        }
        let scan = self.clamp_to_region(scan);
        let filter = match &scan.filter {
            Some(spec) => {
                Some(basalt_filter::build(spec).map_err(|e| Error::invalid(e.to_string()))?)
            }
            None => None,
        };
        // The read point and every family's sources are taken together, between flush
        // snapshots: a flush prunes versions, so a file snapshotted after this read point
        // could lack a version the read point still needs (seen as half a row mutation).
        // Recursive: read-modify-writes scan while holding the lock shared.
        let consistent = self.updates.read_recursive();
        let read_point = read_point_for(scan.read_point, self.mvcc.read_point());
        let now_ms = self.ctx.clock.now_ms();
        let single_row = !scan.start_row.is_empty()
            && scan.start_row == scan.stop_row
            && scan.start_inclusive
            && scan.stop_inclusive;
        let mut stores = Vec::with_capacity(self.stores.len());
        for store in &self.stores {
            if !scan.columns.wants_family(&store.family().name) {
                continue;
            }
            let sources = store.sources(&scan, read_point, single_row);
            stores.push(StoreScanner::open(store.family(), &scan, sources, now_ms)?);
        }
        drop(consistent);
        self.read_requests.fetch_add(1, Ordering::Relaxed);
        let scanner = RegionScanner::new(stores, scan, filter).reading_at(SeqId(read_point));
        Ok(match super::load::accounting() {
            true => scanner.counting_into(self.load.clone()),
            false => scanner,
        })
    }

    /// Reads one row.
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        let mut scanner = self.scanner(&Scan::from_get(get))?;
        let mut cells = Vec::new();
        while let Some(part) = scanner.next_row()? {
            if cells.is_empty() {
                cells = part.cells;
            } else {
                cells.extend(part.cells);
            }
        }
        if get.check_existence_only {
            return Ok(RowResult {
                cells: Vec::new(),
                exists: Some(!cells.is_empty()),
                partial: false,
            });
        }
        Ok(RowResult::new(cells))
    }

    /// The region's current read point (what a scanner opened now reads at).
    pub fn read_point(&self) -> SeqId {
        SeqId(self.mvcc.read_point())
    }

    /// The scan narrowed to this region's key range.
    fn clamp_to_region(&self, scan: &Scan) -> Scan {
        let mut scan = scan.clone();
        let (start, end) = (&self.info.start_key, &self.info.end_key);
        if scan.reversed {
            // Reversed: start is the high end, stop the low end.
            if !end.is_empty() && (scan.start_row.is_empty() || scan.start_row >= *end) {
                scan.start_row = end.clone();
                scan.start_inclusive = false;
            }
            if !start.is_empty() && (scan.stop_row.is_empty() || scan.stop_row < *start) {
                scan.stop_row = start.clone();
                scan.stop_inclusive = true;
            }
        } else {
            if !start.is_empty() && scan.start_row < *start {
                scan.start_row = start.clone();
                scan.start_inclusive = true;
            }
            if !end.is_empty() && (scan.stop_row.is_empty() || scan.stop_row > *end) {
                scan.stop_row = end.clone();
                scan.stop_inclusive = false;
            }
        }
        scan
    }
}

/// The read point a scanner reads at: the one the scan asks for (HBase's
/// `mvcc_read_point`, given back by a client reopening a scanner), but never above the
/// region's `current` one, which would show writes still in progress.
///
/// | asked | current | reads at |
/// |-------|---------|----------|
/// | none  | 40      | 40       |
/// | 25    | 40      | 25       |
/// | 60    | 40      | 40       |
pub fn read_point_for(asked: Option<SeqId>, current: u64) -> u64 {
    asked.map_or(current, |SeqId(asked)| asked.min(current))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_reads_at_the_point_it_asks_for_but_never_above_the_current_one() {
        let cases = [
            (None, 40, 40),
            (Some(25), 40, 25),
            (Some(60), 40, 40),
            (Some(40), 40, 40),
        ];
        for (asked, current, expected) in cases {
            assert_eq!(
                read_point_for(asked.map(SeqId), current),
                expected,
                "{asked:?}"
            );
        }
    }
}
