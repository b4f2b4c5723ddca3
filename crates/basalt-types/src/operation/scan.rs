//! Scan: read a range of rows (reference §1.8).

use super::{ColumnSelection, Get};
use crate::{FilterSpec, SeqId, TimeRange};
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A read of the rows in a key range, forwards or backwards.
///
/// Forwards, `start_row` is the low end and `stop_row` the high end; reversed, `start_row`
/// is the high end and `stop_row` the low end (HBase's convention). An empty `stop_row`
/// means "to the end of the table" in the scan's direction; an empty `start_row` means
/// "from the beginning" in the scan's direction.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    pub start_row: Bytes,
    pub start_inclusive: bool,
    pub stop_row: Bytes,
    pub stop_inclusive: bool,
    pub reversed: bool,
    /// Stop after this many rows.
    pub limit: Option<u64>,
    /// At most this many cells in one result; a wider row comes in parts.
    pub batch: Option<u32>,
    /// Stop filling a result list past this many bytes (the server's page size).
    pub max_result_size_bytes: Option<u64>,
    /// Rows per round trip for remote scanners.
    pub caching: Option<u32>,
    /// Return delete markers and the cells they mask.
    pub raw: bool,
    pub max_versions: u32,
    pub time_range: TimeRange,
    pub columns: ColumnSelection,
    pub filter: Option<FilterSpec>,
    pub max_results_per_family: Option<u32>,
    pub row_offset_per_family: u32,
    /// Whether blocks read by this scan enter the block cache (default true).
    pub cache_blocks: bool,
    /// Read at this MVCC read point of the region rather than its current one (HBase's
    /// `Scan.mvcc_read_point`): a scanner reopened after its region moved or split sees
    /// the cells the first one saw, and none written since. Only meaningful in the region
    /// (or its daughters) that gave it; a scan crossing into the next region drops it.
    pub read_point: Option<SeqId>,
    /// Raised by the scan's owner to stop its reading between rows (a closed scanner whose
    /// rows another thread reads ahead). Not data: it never travels on a wire.
    pub cancel: Option<ScanCancel>,
}

/// A flag that stops a scan's reading between rows once raised. Shared by its clones;
/// any two compare equal (it is not part of what a scan asks for).
#[derive(Debug, Clone, Default)]
pub struct ScanCancel(Arc<AtomicBool>);

impl ScanCancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the scans reading with this flag at their next row.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl PartialEq for ScanCancel {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Default for Scan {
    fn default() -> Self {
        Self {
            start_row: Bytes::new(),
            start_inclusive: true,
            stop_row: Bytes::new(),
            stop_inclusive: false,
            reversed: false,
            limit: None,
            batch: None,
            max_result_size_bytes: None,
            caching: None,
            raw: false,
            max_versions: 1,
            time_range: TimeRange::ALL,
            columns: ColumnSelection::default(),
            filter: None,
            max_results_per_family: None,
            row_offset_per_family: 0,
            cache_blocks: true,
            read_point: None,
            cancel: None,
        }
    }
}

impl Scan {
    pub fn new() -> Self {
        Self::default()
    }

    /// The one-row scan that answers `get`.
    pub fn from_get(get: &Get) -> Self {
        Self {
            start_row: get.row.clone(),
            start_inclusive: true,
            stop_row: get.row.clone(),
            stop_inclusive: true,
            max_versions: get.max_versions,
            time_range: get.time_range,
            columns: get.columns.clone(),
            filter: get.filter.clone(),
            max_results_per_family: get.max_results_per_family,
            row_offset_per_family: get.row_offset_per_family,
            limit: Some(1),
            ..Self::default()
        }
    }

    pub fn start(mut self, row: impl Into<Bytes>) -> Self {
        self.start_row = row.into();
        self
    }

    pub fn stop(mut self, row: impl Into<Bytes>) -> Self {
        self.stop_row = row.into();
        self
    }

    /// Rows starting with `prefix`: start = prefix, stop = the prefix's successor
    /// (`ROWPREFIXFILTER`; overrides start and stop).
    pub fn prefix(mut self, prefix: impl Into<Bytes>) -> Self {
        let prefix = prefix.into();
        self.stop_row = prefix_successor(&prefix);
        self.stop_inclusive = false;
        self.start_row = prefix;
        self.start_inclusive = true;
        self
    }

    pub fn reversed(mut self, reversed: bool) -> Self {
        self.reversed = reversed;
        self
    }

    pub fn limit(mut self, rows: u64) -> Self {
        self.limit = Some(rows);
        self
    }

    pub fn versions(mut self, max_versions: u32) -> Self {
        self.max_versions = max_versions;
        self
    }

    pub fn raw(mut self, raw: bool) -> Self {
        self.raw = raw;
        self
    }

    pub fn time_range(mut self, time_range: TimeRange) -> Self {
        self.time_range = time_range;
        self
    }

    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.columns.add_family(family);
        self
    }

    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.columns.add_column(family, qualifier);
        self
    }

    pub fn filter(mut self, filter: FilterSpec) -> Self {
        self.filter = Some(filter);
        self
    }

    pub fn batch(mut self, cells: u32) -> Self {
        self.batch = Some(cells);
        self
    }

    /// Whether `row` lies before the scan's start, in the scan's direction.
    pub fn before_start(&self, row: &[u8]) -> bool {
        if self.start_row.is_empty() {
            return false;
        }
        let ord = row.cmp(&self.start_row);
        match (self.reversed, self.start_inclusive) {
            (false, true) => ord.is_lt(),
            (false, false) => ord.is_le(),
            (true, true) => ord.is_gt(),
            (true, false) => ord.is_ge(),
        }
    }

    /// Whether `row` lies past the scan's stop, in the scan's direction.
    pub fn past_stop(&self, row: &[u8]) -> bool {
        if self.stop_row.is_empty() {
            return false;
        }
        let ord = row.cmp(&self.stop_row);
        match (self.reversed, self.stop_inclusive) {
            (false, true) => ord.is_gt(),
            (false, false) => ord.is_ge(),
            (true, true) => ord.is_lt(),
            (true, false) => ord.is_le(),
        }
    }

    /// Whether `row` is inside the scan's range.
    pub fn contains_row(&self, row: &[u8]) -> bool {
        !self.before_start(row) && !self.past_stop(row)
    }
}

/// The smallest key greater than every key that starts with `prefix`: drop trailing 0xFF
/// bytes and increment the last byte. An all-0xFF (or empty) prefix has no successor:
/// the empty key, meaning "to the end".
pub fn prefix_successor(prefix: &[u8]) -> Bytes {
    let mut stop = prefix.to_vec();
    while let Some(last) = stop.pop() {
        if last != 0xFF {
            stop.push(last + 1);
            return Bytes::from(stop);
        }
    }
    Bytes::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_successor_increments_last_non_ff_byte() {
        assert_eq!(prefix_successor(b"abc").as_ref(), b"abd");
        assert_eq!(prefix_successor(b"a\xff\xff").as_ref(), b"b");
        assert!(prefix_successor(b"\xff\xff").is_empty());
    }

    #[test]
    fn forward_bounds() {
        let scan = Scan::new().start("b").stop("d");
        assert!(!scan.contains_row(b"a"));
        assert!(scan.contains_row(b"b"));
        assert!(scan.contains_row(b"c\xff"));
        assert!(!scan.contains_row(b"d"));
    }

    #[test]
    fn reversed_bounds() {
        let scan = Scan::new().start("d").stop("b").reversed(true);
        assert!(!scan.contains_row(b"e"));
        assert!(scan.contains_row(b"d"));
        assert!(scan.contains_row(b"c"));
        assert!(!scan.contains_row(b"b"));
    }

    #[test]
    fn get_is_a_one_row_scan() {
        let scan = Scan::from_get(&Get::new("r"));
        assert!(scan.contains_row(b"r"));
        assert!(!scan.contains_row(b"r\0"));
        assert!(!scan.contains_row(b"q"));
    }
}
