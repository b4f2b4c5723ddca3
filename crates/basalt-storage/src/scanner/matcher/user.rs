//! [`UserMatcher`]: what a get or scan returns from one store.
//!
//! A normal read hides delete markers and the puts they mask, honours the time range
//! `[min, max)`, the wanted columns and `min(scan VERSIONS, family VERSIONS)`, then asks
//! the filter. A raw read (`RAW => true`) returns markers and masked puts alike, counts
//! only puts as versions (up to the *scan's* VERSIONS) and ignores the family TTL, as
//! HBase's raw scans do; cell TTLs still apply.
//!
//! With `KEEP_DELETED_CELLS` (`TRUE` or `TTL`) a normal read only lets markers *inside* its
//! time range mask cells, so a read whose range ends at or before a marker's timestamp
//! still sees what the marker deleted. Without it, markers at or after the range's start
//! mask as usual.
//!
//! With `NEW_VERSION_BEHAVIOR` a normal read decides masking and the family's versions by
//! write order ([`WriteOrderTracker`]), over every marker whatever the time range; the
//! read's own VERSIONS then count the visible puts. Raw reads are unchanged.
//!
//! With a filter, versions are counted twice, as HBase does: the column tracker allows the
//! family's VERSIONS (so cells the filter drops do not use up the read's versions), and
//! the cells both the tracker and the filter include are capped at the read's VERSIONS.

use super::{cell_ttl_expired, oldest_unexpired_ts, ColumnTracker, DeleteResult, DeleteTracker};
use super::{MatchCode, QueryMatcher, WriteOrder, WriteOrderTracker};
use basalt_filter::{Filter, ReturnCode};
use basalt_types::{Cell, FamilyDescriptor, KeepDeletedCells, Scan, TimeRange};
use bytes::Bytes;

/// The parts of a read that the matcher needs (for one family).
#[derive(Debug, Clone)]
pub struct UserScanOptions {
    /// The read's VERSIONS.
    pub max_versions: u32,
    pub time_range: TimeRange,
    /// Wanted qualifiers of this family; `None` for every column.
    pub columns: Option<Vec<Bytes>>,
    pub raw: bool,
    /// Whether a filter will be passed to [`QueryMatcher::match_cell`]: it changes how
    /// versions are counted (see the module documentation).
    pub has_filter: bool,
    pub now_ms: i64,
}

impl UserScanOptions {
    /// The options of `scan` for `family`.
    pub fn from_scan(scan: &Scan, family: &[u8], now_ms: i64) -> Self {
        Self {
            max_versions: scan.max_versions,
            time_range: scan.time_range,
            columns: scan
                .columns
                .qualifiers(family)
                .map(|q| q.iter().cloned().collect()),
            raw: scan.raw,
            has_filter: scan.filter.is_some(),
            now_ms,
        }
    }
}

/// Decides per cell for a get or scan of one store.
#[derive(Debug, Clone)]
pub struct UserMatcher {
    row: Option<Vec<u8>>,
    columns: ColumnTracker,
    deletes: DeleteTracker,
    /// `NEW_VERSION_BEHAVIOR` (not raw): replaces `deletes`.
    write_order: Option<WriteOrderTracker>,
    time_range: TimeRange,
    raw: bool,
    /// KEEP_DELETED_CELLS != FALSE: only markers inside the time range mask.
    see_past_markers: bool,
    now_ms: i64,
    /// Cap on cells included after the filter (read's versions), counted per column.
    versions_after_filter: u32,
    filtered_column: Option<Bytes>,
    filtered_count: u32,
}

impl UserMatcher {
    pub fn new(family: &FamilyDescriptor, options: UserScanOptions) -> Self {
        let family_versions = family.max_versions;
        let (after_filter, to_check) = match (options.raw, options.has_filter) {
            (true, true) => (options.max_versions, u32::MAX),
            (true, false) => (options.max_versions, options.max_versions),
            (false, has_filter) => {
                let wanted = options.max_versions.min(family_versions);
                (wanted, if has_filter { family_versions } else { wanted })
            }
        };
        // Raw reads ignore the family TTL (HBase sets the horizon to 0 for them).
        let oldest = if options.raw {
            i64::MIN
        } else {
            oldest_unexpired_ts(family.ttl_ms(), options.now_ms)
        };
        let mut columns = match options.columns {
            Some(qualifiers) => {
                ColumnTracker::explicit(qualifiers, to_check, family.min_versions, oldest)
            }
            None => ColumnTracker::wildcard(to_check, family.min_versions, oldest),
        };
        columns.set_finish_early(!options.raw);
        Self {
            row: None,
            columns,
            deletes: DeleteTracker::new(),
            write_order: (family.new_version_behavior && !options.raw)
                .then(|| WriteOrderTracker::new(family.max_versions)),
            time_range: options.time_range,
            raw: options.raw,
            see_past_markers: family.keep_deleted_cells != KeepDeletedCells::False,
            now_ms: options.now_ms,
            versions_after_filter: after_filter,
            filtered_column: None,
            filtered_count: 0,
        }
    }

    /// A matcher for `scan` over `family`.
    pub fn for_scan(family: &FamilyDescriptor, scan: &Scan, now_ms: i64) -> Self {
        Self::new(
            family,
            UserScanOptions::from_scan(scan, &family.name, now_ms),
        )
    }

    /// The next wanted qualifier of an explicit-column read, for seeking straight to it.
    pub fn column_hint(&self) -> Option<&Bytes> {
        self.columns.column_hint()
    }

    fn track_marker(&mut self, marker: &Cell) {
        let ts = marker.timestamp();
        let masks = if self.see_past_markers {
            self.time_range.contains(ts)
        } else {
            self.time_range.is_all() || ts >= self.time_range.min
        };
        if masks {
            self.deletes.add(marker);
        }
    }

    /// Time range, wanted column, versions, then the filter.
    fn match_column(&mut self, cell: &Cell, filter: Option<&mut dyn Filter>) -> MatchCode {
        let ts = cell.timestamp();
        if !self.time_range.is_all() {
            if ts >= self.time_range.max {
                return MatchCode::Skip;
            }
            if ts < self.time_range.min {
                return self.columns.next_row_or_next_col(cell.qualifier());
            }
        }
        let code = self.columns.check_column(cell.qualifier());
        if code != MatchCode::Include {
            return code;
        }
        let code = self.columns.check_versions(cell);
        if !code.includes() {
            return code;
        }
        match filter {
            None => code,
            Some(filter) => {
                let answer = filter.filter_cell(cell);
                self.merge_filter(cell, code, answer)
            }
        }
    }

    /// Combines the column tracker's include with the filter's answer (HBase's table in
    /// `UserScanQueryMatcher.mergeFilterResponse`), then caps versions after the filter.
    fn merge_filter(&mut self, cell: &Cell, code: MatchCode, answer: ReturnCode) -> MatchCode {
        use MatchCode::*;
        let code = match answer {
            ReturnCode::Skip => {
                return match code {
                    IncludeAndSeekNextCol => SeekNextCol,
                    IncludeAndSeekNextRow => SeekNextRow,
                    _ => Skip,
                }
            }
            ReturnCode::NextCol => {
                return match code {
                    IncludeAndSeekNextRow => SeekNextRow,
                    _ => self.columns.next_row_or_next_col(cell.qualifier()),
                }
            }
            ReturnCode::NextRow => return SeekNextRow,
            ReturnCode::SeekNextUsingHint => return SeekNextUsingHint,
            ReturnCode::Include => code,
            ReturnCode::IncludeAndNextCol if code == Include => IncludeAndSeekNextCol,
            ReturnCode::IncludeAndNextCol => code,
            ReturnCode::IncludeAndSeekNextRow => IncludeAndSeekNextRow,
        };
        if self.filtered_column.as_ref() != Some(&cell.qualifier_bytes()) {
            self.filtered_column = Some(cell.qualifier_bytes());
            self.filtered_count = 0;
        }
        self.filtered_count = self.filtered_count.saturating_add(1);
        if self.filtered_count > self.versions_after_filter {
            return self.columns.next_row_or_next_col(cell.qualifier());
        }
        if self.filtered_count == self.versions_after_filter && code == Include {
            return IncludeAndSeekNextCol;
        }
        code
    }
}

impl QueryMatcher for UserMatcher {
    fn start_row(&mut self, row: &[u8]) {
        let buf = self.row.get_or_insert_with(Vec::new);
        buf.clear();
        buf.extend_from_slice(row);
        self.columns.reset();
        self.deletes.reset();
        if let Some(w) = &mut self.write_order {
            w.reset();
        }
        self.filtered_column = None;
        self.filtered_count = 0;
    }

    fn match_cell(&mut self, cell: &Cell, filter: Option<&mut dyn Filter>) -> MatchCode {
        if self.row.as_deref() != Some(cell.row()) {
            return MatchCode::DoneRow;
        }
        if self.columns.done() {
            return MatchCode::SeekNextRow;
        }
        if self.columns.expired_early(cell.timestamp()) {
            return self.columns.next_row_or_next_col(cell.qualifier());
        }
        if cell_ttl_expired(cell, self.now_ms) {
            return MatchCode::Skip;
        }
        if self.raw {
            return self.match_column(cell, filter);
        }
        if let Some(w) = &mut self.write_order {
            if cell.is_delete() {
                w.add_marker(cell);
                return MatchCode::Skip;
            }
            return match w.put(cell) {
                WriteOrder::Visible => self.match_column(cell, filter),
                // Puts below it may still be visible: look at each.
                WriteOrder::Masked | WriteOrder::Replaced | WriteOrder::Evicted => MatchCode::Skip,
            };
        }
        if cell.is_delete() {
            self.track_marker(cell);
            return MatchCode::Skip;
        }
        match self.deletes.is_deleted(cell) {
            DeleteResult::NotDeleted => self.match_column(cell, filter),
            DeleteResult::FamilyDeleted | DeleteResult::ColumnDeleted => {
                self.columns.next_row_or_next_col(cell.qualifier())
            }
            DeleteResult::VersionDeleted | DeleteResult::FamilyVersionDeleted => MatchCode::Skip,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scanner::matcher::apply;
    use basalt_types::CellType;

    fn family(versions: u32, keep: KeepDeletedCells) -> FamilyDescriptor {
        let mut f = FamilyDescriptor::new("cf").expect("valid name");
        f.max_versions = versions;
        f.keep_deleted_cells = keep;
        f
    }

    fn options(versions: u32) -> UserScanOptions {
        UserScanOptions {
            max_versions: versions,
            time_range: TimeRange::ALL,
            columns: None,
            raw: false,
            has_filter: false,
            now_ms: 0,
        }
    }

    #[test]
    fn a_cell_of_another_row_ends_the_row_without_being_consumed() {
        let mut m = UserMatcher::new(&family(1, KeepDeletedCells::False), options(1));
        let cell = Cell::put("r1", "cf", "a", 1, "v");
        assert_eq!(m.match_cell(&cell, None), MatchCode::DoneRow);
        m.start_row(b"r1");
        assert_eq!(m.match_cell(&cell, None), MatchCode::Include);
        let next = Cell::put("r2", "cf", "a", 1, "v");
        assert_eq!(m.match_cell(&next, None), MatchCode::DoneRow);
        m.start_row(b"r2");
        assert_eq!(m.match_cell(&next, None), MatchCode::Include);
    }

    #[test]
    fn markers_are_reset_per_row() {
        let mut m = UserMatcher::new(&family(1, KeepDeletedCells::False), options(1));
        let cells = [
            Cell::marker("r1", "cf", "", 9, CellType::DeleteFamily),
            Cell::put("r2", "cf", "a", 1, "v"),
        ];
        assert_eq!(apply(&mut m, &cells, None), vec![cells[1].clone()]);
    }

    #[test]
    fn from_scan_takes_the_family_columns_and_filter_presence() {
        let scan = Scan::new().column("cf", "q").versions(3);
        let o = UserScanOptions::from_scan(&scan, b"cf", 7);
        assert_eq!(o.columns, Some(vec![Bytes::from_static(b"q")]));
        assert!(!o.has_filter && !o.raw);
        assert_eq!((o.max_versions, o.now_ms), (3, 7));
        let all = UserScanOptions::from_scan(&Scan::new().family("cf"), b"cf", 0);
        assert_eq!(all.columns, None);
    }

    #[test]
    fn keep_deleted_cells_lets_a_range_before_the_marker_see_masked_puts() {
        let cells = [
            Cell::marker("r", "cf", "a", 11, CellType::DeleteColumn),
            Cell::put("r", "cf", "a", 10, "v"),
        ];
        let mut o = options(5);
        o.time_range = TimeRange::new(0, 11).expect("valid");
        let mut kept = UserMatcher::new(&family(5, KeepDeletedCells::True), o.clone());
        assert_eq!(apply(&mut kept, &cells, None), vec![cells[1].clone()]);
        let mut plain = UserMatcher::new(&family(5, KeepDeletedCells::False), o);
        assert!(apply(&mut plain, &cells, None).is_empty());
    }
}
