//! The query matcher: HBase's read and compaction rules, decided one cell at a time.
//!
//! A store scanner merges a family's memstore and files into one stream in cell order and
//! asks a matcher about each cell. The matcher is pure — no I/O, no clock (`now_ms` is
//! given) — and answers with a [`MatchCode`]: keep the cell or not, and how far the
//! caller may jump ahead. The caller carries the decision out (see [`apply()`] for the
//! reference driver).
//!
//! The same rules serve every reader, in this order per cell:
//!
//! 1. the row: a cell of another row ends this one ([`MatchCode::DoneRow`]);
//! 2. TTL: expired by the family TTL (`ts < now - ttl`, unless MIN_VERSIONS keeps it) or
//!    by its own TTL (`ts + ttl_ms < now`);
//! 3. delete markers ([`DeleteTracker`]): a marker masks the puts at or below its
//!    timestamp that follow it, whatever their sequence id — or, for a family with
//!    `NEW_VERSION_BEHAVIOR`, the write order ([`WriteOrderTracker`]): a marker masks only
//!    puts written before it, and versions are counted in write order;
//! 4. time range (reads only), wanted columns and versions ([`ColumnTracker`]);
//! 5. the filter (reads only), last, merged with the version decision.
//!
//! # Layout
//! - [`delete_tracker`]: the markers of the current row.
//! - [`column_tracker`]: wanted columns, version counting, TTL with MIN_VERSIONS.
//! - [`user`]: [`UserMatcher`] for gets and scans, raw or not.
//! - [`compaction`]: [`CompactionMatcher`] for flushes, minor and major compactions.
//! - [`write_order`]: `NEW_VERSION_BEHAVIOR`'s masking and version counting by sequence id.
//! - [`mod@apply`]: drives a matcher over a sorted slice; the reference for callers and tests.
//!
//! # Worked example
//! Family `VERSIONS => 2`, reads with `VERSIONS => 2`; the cells of row `r1` in cell order
//! and what each reader decides (the `worked_example_holds` test checks this table):
//!
//! | cell                 | normal scan             | raw scan | flush / minor | major |
//! |----------------------|-------------------------|----------|---------------|-------|
//! | `a` 14 Put           | Include                 | Include  | Include       | Include |
//! | `a` 12 Put           | Include                 | Include  | Include       | Include |
//! | `a` 11 DeleteColumn  | Skip (tracked)          | Include  | Include (tracked) | Skip (tracked) |
//! | `a` 10 Put           | SeekNextCol (masked)    | SeekNextCol (3rd version) | SeekNextCol (masked) | SeekNextCol |
//! | `b` 5 Put            | Include                 | Include  | Include       | Include |
//!
//! A normal scan with `VERSIONS => 1` would answer `SeekNextCol` already at `a` 12. The raw
//! scan stops at `a` 10 because it is the third put, not because it is masked.
//!
//! # Driving a matcher
//! Call [`QueryMatcher::start_row`] before the first cell of each row (a [`MatchCode::DoneRow`]
//! answer says the cell belongs to another row: finish the row, start the next, and ask
//! again about the same cell). Then per code:
//!
//! | code | the caller |
//! |------|------------|
//! | `Include` | emits the cell, moves to the next cell |
//! | `IncludeAndSeekNextCol` / `IncludeAndSeekNextRow` | emits it, then seeks as below |
//! | `Skip` | moves to the next cell |
//! | `SeekNextCol` | moves past the cell's column — **except** when the qualifier is empty: then only to the next cell, since DeleteFamily markers (empty qualifier) of lower timestamps may follow |
//! | `SeekNextRow` | moves past the row |
//! | `SeekNextUsingHint` | seeks to the filter's `next_cell_hint` (or the next cell) |
//! | `DoneRow` | stops this row for this store without consuming the cell |

pub mod apply;
pub mod column_tracker;
pub mod compaction;
pub mod delete_tracker;
pub mod user;
pub mod write_order;

pub use apply::{apply, trace};
pub use column_tracker::ColumnTracker;
pub use compaction::{CompactionKind, CompactionMatcher, CompactionOptions};
pub use delete_tracker::{DeleteResult, DeleteTracker};
pub use user::{UserMatcher, UserScanOptions};
pub use write_order::{WriteOrder, WriteOrderTracker};

use basalt_filter::Filter;
use basalt_types::Cell;

/// What to do with one cell (HBase's `ScanQueryMatcher.MatchCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchCode {
    /// Emit the cell.
    Include,
    /// Emit the cell; nothing more of its column is wanted.
    IncludeAndSeekNextCol,
    /// Emit the cell; nothing more of its row is wanted from this store.
    IncludeAndSeekNextRow,
    /// Drop the cell; the next one may be wanted.
    Skip,
    /// Drop the cell and the rest of its column (see the module table for empty qualifiers).
    SeekNextCol,
    /// Drop the cell and the rest of its row.
    SeekNextRow,
    /// Drop the cell; seek to the filter's hint.
    SeekNextUsingHint,
    /// The cell belongs to another row: this row is finished for this store.
    DoneRow,
}

impl MatchCode {
    /// Whether the cell is emitted.
    pub fn includes(self) -> bool {
        matches!(
            self,
            Self::Include | Self::IncludeAndSeekNextCol | Self::IncludeAndSeekNextRow
        )
    }

    /// The name used in golden files and logs.
    pub fn name(self) -> &'static str {
        match self {
            Self::Include => "Include",
            Self::IncludeAndSeekNextCol => "IncludeAndSeekNextCol",
            Self::IncludeAndSeekNextRow => "IncludeAndSeekNextRow",
            Self::Skip => "Skip",
            Self::SeekNextCol => "SeekNextCol",
            Self::SeekNextRow => "SeekNextRow",
            Self::SeekNextUsingHint => "SeekNextUsingHint",
            Self::DoneRow => "DoneRow",
        }
    }

    /// Parses [`MatchCode::name`].
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Include,
            Self::IncludeAndSeekNextCol,
            Self::IncludeAndSeekNextRow,
            Self::Skip,
            Self::SeekNextCol,
            Self::SeekNextRow,
            Self::SeekNextUsingHint,
            Self::DoneRow,
        ]
        .into_iter()
        .find(|code| code.name() == name)
    }
}

/// A per-store, per-scan decision maker (user reads and compactions alike). One matcher
/// serves one family: its column and delete tracking look at qualifiers only.
pub trait QueryMatcher {
    /// Starts `row`: forgets the previous row's markers, column position and counts.
    fn start_row(&mut self, row: &[u8]);

    /// The decision for `cell`, the next cell of the store in cell order. `filter` is
    /// consulted only for cells the read would otherwise include; compactions ignore it.
    fn match_cell(&mut self, cell: &Cell, filter: Option<&mut dyn Filter>) -> MatchCode;
}

/// HBase's family-TTL horizon: cells with `ts <` this are expired (`i64::MIN`: never).
pub fn oldest_unexpired_ts(ttl_ms: Option<u64>, now_ms: i64) -> i64 {
    match ttl_ms {
        None => i64::MIN,
        Some(ttl_ms) => now_ms.saturating_sub(i64::try_from(ttl_ms).unwrap_or(i64::MAX)),
    }
}

/// Whether the cell's own TTL has run out: `ts + ttl_ms < now` (HBase's comparison; a
/// cell TTL never extends the family TTL, which is checked separately).
pub fn cell_ttl_expired(cell: &Cell, now_ms: i64) -> bool {
    cell.ttl_ms().is_some_and(|ttl_ms| {
        let ttl_ms = i64::try_from(ttl_ms).unwrap_or(i64::MAX);
        cell.timestamp().saturating_add(ttl_ms) < now_ms
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_ttl_uses_a_strict_comparison() {
        let cell = Cell::put("r", "f", "q", 100, "v").with_ttl_ms(Some(10));
        assert!(!cell_ttl_expired(&cell, 110));
        assert!(cell_ttl_expired(&cell, 111));
        assert!(!cell_ttl_expired(
            &Cell::put("r", "f", "q", 1, "v"),
            i64::MAX
        ));
    }

    #[test]
    fn family_ttl_horizon() {
        assert_eq!(oldest_unexpired_ts(None, 5), i64::MIN);
        assert_eq!(oldest_unexpired_ts(Some(1000), 5000), 4000);
        assert_eq!(oldest_unexpired_ts(Some(u64::MAX), 0), -i64::MAX);
    }

    #[test]
    fn worked_example_holds() {
        use basalt_types::{CellType, FamilyDescriptor};
        use MatchCode::*;
        let cells = [
            Cell::put("r1", "cf", "a", 14, "v"),
            Cell::put("r1", "cf", "a", 12, "v"),
            Cell::marker("r1", "cf", "a", 11, CellType::DeleteColumn),
            Cell::put("r1", "cf", "a", 10, "v"),
            Cell::put("r1", "cf", "b", 5, "v"),
        ];
        let mut family = FamilyDescriptor::new("cf").expect("valid name");
        family.max_versions = 2;
        let read = |raw| UserScanOptions {
            max_versions: 2,
            time_range: basalt_types::TimeRange::ALL,
            columns: None,
            raw,
            has_filter: false,
            now_ms: 0,
        };
        let codes = |m: &mut dyn QueryMatcher| -> Vec<MatchCode> {
            trace(m, &cells, None).into_iter().map(|(_, c)| c).collect()
        };
        let compaction = |kind| CompactionMatcher::new(&family, CompactionOptions::new(kind, 0));
        assert_eq!(
            codes(&mut UserMatcher::new(&family, read(false))),
            [Include, Include, Skip, SeekNextCol, Include]
        );
        assert_eq!(
            codes(&mut UserMatcher::new(&family, read(true))),
            [Include, Include, Include, SeekNextCol, Include]
        );
        for kind in [CompactionKind::Flush, CompactionKind::Minor] {
            assert_eq!(
                codes(&mut compaction(kind)),
                [Include, Include, Include, SeekNextCol, Include]
            );
        }
        assert_eq!(
            codes(&mut compaction(CompactionKind::Major)),
            [Include, Include, Skip, SeekNextCol, Include]
        );
    }

    #[test]
    fn code_names_round_trip() {
        for name in ["Include", "SeekNextUsingHint", "DoneRow"] {
            assert_eq!(MatchCode::parse(name).map(MatchCode::name), Some(name));
        }
        assert_eq!(MatchCode::parse("include"), None);
    }
}
