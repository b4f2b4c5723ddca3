//! [`CompactionMatcher`]: which cells a flush or compaction writes to its output file.
//!
//! Every column is kept ("wildcard"), up to the family's VERSIONS, counting only puts that
//! no marker masks; TTL-expired cells go beyond MIN_VERSIONS; cells past their own TTL go.
//!
//! | kind            | delete markers                              | puts masked by a marker |
//! |-----------------|---------------------------------------------|-------------------------|
//! | flush, minor    | kept (they may mask cells in other files)   | dropped, unless KEEP_DELETED_CELLS |
//! | major           | dropped, unless KEEP_DELETED_CELLS (below)  | dropped, unless KEEP_DELETED_CELLS |
//!
//! With `KEEP_DELETED_CELLS => TRUE` a major compaction keeps a marker while puts at or
//! below its timestamp may remain (`ts >= earliest_put_ts` of the files compacted) and
//! while it is within the column's VERSIONS and not expired — the marker is counted
//! along with the puts, though not as a version itself. `TTL` behaves like `TRUE` until the
//! marker expires by the family TTL; from then on it masks and is dropped as with `FALSE`.
//! With `NEW_VERSION_BEHAVIOR` ([`WriteOrderTracker`]) a flush or minor compaction keeps
//! every put (a put masked or evicted still shaped, while it lived, which older puts in other
//! files were evicted), and a major compaction, which sees every file, keeps only the puts a
//! read would see (and masked ones with KEEP_DELETED_CELLS) and drops markers as above.
//!
//! A marker younger than `purge_deletes_delay_ms` (HBase's
//! `hbase.hstore.time.to.purge.deletes`) is always kept by a major compaction.

use super::{cell_ttl_expired, oldest_unexpired_ts, ColumnTracker, DeleteResult, DeleteTracker};
use super::{MatchCode, QueryMatcher, WriteOrder, WriteOrderTracker};
use basalt_filter::Filter;
use basalt_types::{Cell, FamilyDescriptor, KeepDeletedCells};

/// Which rewrite is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionKind {
    /// Memstore snapshot to file (HBase runs it as a minor compaction).
    Flush,
    /// Some files: delete markers must stay.
    Minor,
    /// All files: delete markers can go.
    Major,
}

#[derive(Debug, Clone, Copy)]
pub struct CompactionOptions {
    pub kind: CompactionKind,
    pub now_ms: i64,
    /// The smallest timestamp of any put in the inputs (HBase's `EARLIEST_PUT_TS`);
    /// `i64::MIN` when unknown. Only a major compaction uses it.
    pub earliest_put_ts: i64,
    /// Markers younger than this stay through major compactions (0: no delay).
    pub purge_deletes_delay_ms: u64,
}

impl CompactionOptions {
    /// `kind` at `now_ms`, nothing else known.
    pub fn new(kind: CompactionKind, now_ms: i64) -> Self {
        Self {
            kind,
            now_ms,
            earliest_put_ts: i64::MIN,
            purge_deletes_delay_ms: 0,
        }
    }
}

/// Decides per cell what a flush or compaction of one store keeps.
#[derive(Debug, Clone)]
pub struct CompactionMatcher {
    row: Option<Vec<u8>>,
    columns: ColumnTracker,
    deletes: DeleteTracker,
    /// `NEW_VERSION_BEHAVIOR`: replaces `deletes`.
    write_order: Option<WriteOrderTracker>,
    options: CompactionOptions,
    keep_deleted_cells: KeepDeletedCells,
    oldest_unexpired_ts: i64,
}

impl CompactionMatcher {
    pub fn new(family: &FamilyDescriptor, options: CompactionOptions) -> Self {
        let oldest = oldest_unexpired_ts(family.ttl_ms(), options.now_ms);
        Self {
            row: None,
            columns: ColumnTracker::wildcard(family.max_versions, family.min_versions, oldest),
            deletes: DeleteTracker::new(),
            write_order: family
                .new_version_behavior
                .then(|| WriteOrderTracker::new(family.max_versions)),
            options,
            keep_deleted_cells: family.keep_deleted_cells,
            oldest_unexpired_ts: oldest,
        }
    }

    /// Whether the marker has expired by the family TTL.
    fn marker_expired(&self, marker: &Cell) -> bool {
        marker.timestamp() < self.oldest_unexpired_ts
    }

    /// Whether markers mask puts here: always without KEEP_DELETED_CELLS, and for `TTL`
    /// once the marker itself has expired.
    fn marker_masks(&self, marker: &Cell) -> bool {
        match self.keep_deleted_cells {
            KeepDeletedCells::False => true,
            KeepDeletedCells::True => false,
            KeepDeletedCells::Ttl => self.marker_expired(marker),
        }
    }

    fn match_marker(&mut self, marker: &Cell) -> MatchCode {
        if let Some(w) = &mut self.write_order {
            w.add_marker(marker);
        } else if self.marker_masks(marker) {
            self.deletes.add(marker);
        }
        if self.options.kind != CompactionKind::Major {
            return MatchCode::Include;
        }
        let delay_ms = i64::try_from(self.options.purge_deletes_delay_ms).unwrap_or(i64::MAX);
        if delay_ms > 0 && self.options.now_ms.saturating_sub(marker.timestamp()) <= delay_ms {
            return MatchCode::Include;
        }
        if self.marker_masks(marker) {
            return MatchCode::Skip;
        }
        // Kept deleted cells: the marker stays while it can still matter.
        if marker.timestamp() < self.options.earliest_put_ts {
            // No put at or below it anywhere: it and the rest of the column (markers only) go.
            return self.columns.next_row_or_next_col(marker.qualifier());
        }
        self.columns.check_versions(marker)
    }
}

impl QueryMatcher for CompactionMatcher {
    fn start_row(&mut self, row: &[u8]) {
        let buf = self.row.get_or_insert_with(Vec::new);
        buf.clear();
        buf.extend_from_slice(row);
        self.columns.reset();
        self.deletes.reset();
        if let Some(w) = &mut self.write_order {
            w.reset();
        }
    }

    /// `filter` is ignored: compactions have none.
    fn match_cell(&mut self, cell: &Cell, _filter: Option<&mut dyn Filter>) -> MatchCode {
        if self.row.as_deref() != Some(cell.row()) {
            return MatchCode::DoneRow;
        }
        if self.columns.expired_early(cell.timestamp()) {
            return self.columns.next_row_or_next_col(cell.qualifier());
        }
        if cell_ttl_expired(cell, self.options.now_ms) {
            return MatchCode::Skip;
        }
        if cell.is_delete() {
            return self.match_marker(cell);
        }
        if let Some(w) = &mut self.write_order {
            if self.options.kind != CompactionKind::Major {
                return MatchCode::Include;
            }
            let keep_deleted = self.keep_deleted_cells != KeepDeletedCells::False;
            return match w.put(cell) {
                WriteOrder::Visible => self.columns.check_versions(cell),
                WriteOrder::Masked if keep_deleted => MatchCode::Include,
                WriteOrder::Masked | WriteOrder::Replaced | WriteOrder::Evicted => MatchCode::Skip,
            };
        }
        match self.deletes.is_deleted(cell) {
            DeleteResult::NotDeleted => self.columns.check_versions(cell),
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

    fn seed_cells() -> Vec<Cell> {
        vec![
            Cell::put("r1", "e", "c1", 14, "value"),
            Cell::put("r1", "e", "c1", 12, "value"),
            Cell::marker("r1", "e", "c1", 11, CellType::DeleteColumn),
            Cell::put("r1", "e", "c1", 10, "value"),
        ]
    }

    fn family(keep: KeepDeletedCells) -> FamilyDescriptor {
        let mut f = FamilyDescriptor::new("e").expect("valid name");
        f.max_versions = i32::MAX as u32;
        f.keep_deleted_cells = keep;
        f
    }

    fn run(keep: KeepDeletedCells, kind: CompactionKind, cells: &[Cell]) -> Vec<Cell> {
        let mut m = CompactionMatcher::new(&family(keep), CompactionOptions::new(kind, 0));
        apply(&mut m, cells, None)
    }

    #[test]
    fn seed_transcript_without_keep_deleted_cells() {
        let cells = seed_cells();
        let flushed = run(KeepDeletedCells::False, CompactionKind::Flush, &cells);
        assert_eq!(flushed, cells[..3]);
        let major = run(KeepDeletedCells::False, CompactionKind::Major, &flushed);
        assert_eq!(major, cells[..2]);
    }

    #[test]
    fn seed_transcript_with_keep_deleted_cells() {
        let cells = seed_cells();
        let flushed = run(KeepDeletedCells::True, CompactionKind::Flush, &cells);
        assert_eq!(flushed, cells);
        let mut m = CompactionMatcher::new(
            &family(KeepDeletedCells::True),
            CompactionOptions {
                earliest_put_ts: 10,
                ..CompactionOptions::new(CompactionKind::Major, 0)
            },
        );
        assert_eq!(apply(&mut m, &flushed, None), cells);
    }

    #[test]
    fn minor_keeps_markers_that_mask_nothing_here() {
        let marker = Cell::marker("r1", "e", "c1", 11, CellType::Delete);
        let out = run(
            KeepDeletedCells::False,
            CompactionKind::Minor,
            std::slice::from_ref(&marker),
        );
        assert_eq!(out, vec![marker]);
    }
}
