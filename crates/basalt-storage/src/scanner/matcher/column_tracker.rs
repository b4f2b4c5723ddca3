//! Which columns a read wants and how many versions of each survive.
//!
//! A column tracker sees the cells of one row and one family in cell order, after delete
//! markers have had their say, and answers two questions:
//!
//! 1. *Is this column wanted?* A wildcard tracker wants every column; an explicit tracker
//!    walks its sorted list of qualifiers alongside the row and tells the caller to seek to
//!    the next wanted column, or past the row once the list is exhausted.
//! 2. *Is this version one too many?* Versions are counted per column, newest first; delete
//!    markers are never counted. Version `n` (1-based) survives when
//!    `n <= max_versions && (n <= min_versions || !expired(ts))`: TTL removes versions, but
//!    the newest `MIN_VERSIONS` stay. A second cell with the timestamp and type of the
//!    previously counted one is an older write of the same coordinates and is skipped.
//!
//! Family TTL expiry is `ts < now - ttl` (HBase's `oldestUnexpiredTS`). With
//! `min_versions == 0`, an expired cell means the rest of its column is expired too
//! ([`ColumnTracker::expired_early`]).

use super::MatchCode;
use basalt_types::{Cell, CellType};
use bytes::Bytes;

/// Counts versions per column and knows which columns are wanted.
#[derive(Debug, Clone)]
pub struct ColumnTracker {
    /// `None`: every column. Otherwise sorted, deduplicated qualifiers.
    wanted: Option<Vec<Bytes>>,
    /// Explicit only: index into `wanted` of the next column of interest.
    index: usize,
    max_versions: u32,
    min_versions: u32,
    /// Cells with `ts < oldest_unexpired_ts` are expired by the family TTL.
    oldest_unexpired_ts: i64,
    /// Explicit only: answer `IncludeAndSeekNext*` on a column's last version (only safe
    /// when no delete markers reach the tracker, i.e. not in raw scans).
    finish_early: bool,
    /// The column being counted (a reused buffer, valid when `counting`), its count, and
    /// the last counted (timestamp, type).
    column: Vec<u8>,
    counting: bool,
    count: u32,
    previous: Option<(i64, CellType)>,
}

impl ColumnTracker {
    /// Every column of the family.
    pub fn wildcard(max_versions: u32, min_versions: u32, oldest_unexpired_ts: i64) -> Self {
        Self {
            wanted: None,
            index: 0,
            max_versions,
            min_versions,
            oldest_unexpired_ts,
            finish_early: false,
            column: Vec::new(),
            counting: false,
            count: 0,
            previous: None,
        }
    }

    /// Only the given qualifiers (sorted and deduplicated here). An empty list wants every
    /// column, as HBase treats an empty column set.
    pub fn explicit(
        qualifiers: impl IntoIterator<Item = Bytes>,
        max_versions: u32,
        min_versions: u32,
        oldest_unexpired_ts: i64,
    ) -> Self {
        let mut wanted: Vec<Bytes> = qualifiers.into_iter().collect();
        wanted.sort();
        wanted.dedup();
        let mut tracker = Self::wildcard(max_versions, min_versions, oldest_unexpired_ts);
        if !wanted.is_empty() {
            tracker.wanted = Some(wanted);
            tracker.finish_early = true;
        }
        tracker
    }

    /// Whether explicit columns may end a column (or row) on its last wanted version.
    pub fn set_finish_early(&mut self, finish_early: bool) {
        self.finish_early = finish_early && self.wanted.is_some();
    }

    /// Starts a new row.
    pub fn reset(&mut self) {
        self.index = 0;
        self.reset_count();
    }

    fn reset_count(&mut self) {
        self.counting = false;
        self.count = 0;
        self.previous = None;
    }

    /// Whether every wanted column has been served (never for a wildcard).
    pub fn done(&self) -> bool {
        self.wanted.as_ref().is_some_and(|w| self.index >= w.len())
    }

    /// The next wanted qualifier, for a caller that seeks straight to it.
    pub fn column_hint(&self) -> Option<&Bytes> {
        self.wanted.as_ref().and_then(|w| w.get(self.index))
    }

    pub fn is_expired(&self, ts: i64) -> bool {
        ts < self.oldest_unexpired_ts
    }

    /// True when `ts` is expired and no MIN_VERSIONS can save it: every older cell of the
    /// column is expired as well.
    pub fn expired_early(&self, ts: i64) -> bool {
        self.min_versions == 0 && self.is_expired(ts)
    }

    /// Done with the column of `qualifier`: `SeekNextCol`, or `SeekNextRow` when no wanted
    /// column is left.
    pub fn next_row_or_next_col(&mut self, qualifier: &[u8]) -> MatchCode {
        if let Some(wanted) = &self.wanted {
            let before = self.index;
            while self.index < wanted.len() && wanted[self.index].as_ref() <= qualifier {
                self.index += 1;
            }
            if self.index != before {
                self.reset_count();
            }
            if self.done() {
                return MatchCode::SeekNextRow;
            }
        }
        MatchCode::SeekNextCol
    }

    /// Whether `qualifier` is wanted: `Include`, `SeekNextCol` (a wanted column lies
    /// ahead) or `SeekNextRow` (none does).
    pub fn check_column(&mut self, qualifier: &[u8]) -> MatchCode {
        if self.wanted.is_none() {
            return MatchCode::Include;
        }
        while let Some(next) = self.wanted.as_ref().and_then(|w| w.get(self.index)) {
            match qualifier.cmp(next.as_ref()) {
                std::cmp::Ordering::Equal => return MatchCode::Include,
                std::cmp::Ordering::Less => return MatchCode::SeekNextCol,
                std::cmp::Ordering::Greater => {
                    self.index += 1;
                    self.reset_count();
                }
            }
        }
        MatchCode::SeekNextRow
    }

    /// Counts `cell` as a version of its column: `Include` (or `IncludeAndSeekNextCol` /
    /// `IncludeAndSeekNextRow` for the last wanted version of an explicit column), `Skip`
    /// for a duplicate, or a seek once the column has nothing more to give.
    pub fn check_versions(&mut self, cell: &Cell) -> MatchCode {
        if !self.counting || self.column != cell.qualifier() {
            self.reset_count();
            self.column.clear();
            self.column.extend_from_slice(cell.qualifier());
            self.counting = true;
        }
        let key = (cell.timestamp(), cell.cell_type());
        if self.previous == Some(key) {
            return MatchCode::Skip;
        }
        if !cell.cell_type().is_delete() {
            self.count = self.count.saturating_add(1);
        }
        let survives = self.count <= self.max_versions
            && (self.count <= self.min_versions || !self.is_expired(cell.timestamp()));
        if !survives {
            return self.next_row_or_next_col(cell.qualifier());
        }
        self.previous = Some(key);
        let last_version = self.count == self.max_versions && !cell.cell_type().is_delete();
        if self.finish_early && last_version {
            return match self.next_row_or_next_col(cell.qualifier()) {
                MatchCode::SeekNextRow => MatchCode::IncludeAndSeekNextRow,
                _ => MatchCode::IncludeAndSeekNextCol,
            };
        }
        MatchCode::Include
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MatchCode::*;

    fn put(q: &'static str, ts: i64) -> Cell {
        Cell::put("r", "cf", q, ts, "v")
    }

    #[test]
    fn wildcard_counts_versions_per_column() {
        let mut t = ColumnTracker::wildcard(2, 0, i64::MIN);
        assert_eq!(t.check_versions(&put("a", 3)), Include);
        assert_eq!(t.check_versions(&put("a", 2)), Include);
        assert_eq!(t.check_versions(&put("a", 1)), SeekNextCol);
        assert_eq!(t.check_versions(&put("b", 9)), Include);
    }

    #[test]
    fn markers_are_not_versions_and_duplicates_are_skipped() {
        let mut t = ColumnTracker::wildcard(1, 0, i64::MIN);
        let marker = Cell::marker("r", "cf", "a", 5, CellType::DeleteColumn);
        assert_eq!(t.check_versions(&marker), Include);
        assert_eq!(t.check_versions(&put("a", 5).with_seq(9)), Include);
        assert_eq!(t.check_versions(&put("a", 5).with_seq(2)), Skip);
        assert_eq!(t.check_versions(&put("a", 4)), SeekNextCol);
    }

    #[test]
    fn min_versions_survive_expiry() {
        // Expired below ts 100.
        let mut t = ColumnTracker::wildcard(5, 2, 100);
        assert!(!t.expired_early(50));
        assert_eq!(t.check_versions(&put("a", 50)), Include);
        assert_eq!(t.check_versions(&put("a", 40)), Include);
        assert_eq!(t.check_versions(&put("a", 30)), SeekNextCol);
        let t0 = ColumnTracker::wildcard(5, 0, 100);
        assert!(t0.expired_early(99) && !t0.expired_early(100));
    }

    #[test]
    fn explicit_walks_its_columns() {
        let cols = [Bytes::from_static(b"d"), Bytes::from_static(b"b")];
        let mut t = ColumnTracker::explicit(cols, 1, 0, i64::MIN);
        assert_eq!(t.check_column(b"a"), SeekNextCol);
        assert_eq!(t.check_column(b"b"), Include);
        assert_eq!(t.check_versions(&put("b", 7)), IncludeAndSeekNextCol);
        assert_eq!(t.column_hint().map(|b| b.as_ref()), Some(&b"d"[..]));
        assert_eq!(t.check_column(b"c"), SeekNextCol);
        assert_eq!(t.check_column(b"d"), Include);
        assert_eq!(t.check_versions(&put("d", 7)), IncludeAndSeekNextRow);
        assert!(t.done());
        t.reset();
        assert_eq!(t.check_column(b"e"), SeekNextRow);
    }

    #[test]
    fn explicit_next_row_or_next_col_moves_past_the_column() {
        let cols = [Bytes::from_static(b"b"), Bytes::from_static(b"c")];
        let mut t = ColumnTracker::explicit(cols, 3, 0, i64::MIN);
        assert_eq!(t.next_row_or_next_col(b"a"), SeekNextCol);
        assert_eq!(t.next_row_or_next_col(b"b"), SeekNextCol);
        assert_eq!(t.next_row_or_next_col(b"c"), SeekNextRow);
    }

    #[test]
    fn empty_explicit_list_is_a_wildcard() {
        let mut t = ColumnTracker::explicit(Vec::new(), 1, 0, i64::MIN);
        assert_eq!(t.check_column(b"zz"), Include);
        assert!(!t.done());
    }
}
