//! Writing a frozen memstore segment to a new store file.
//!
//! A flush is a rewrite with one input that is already sorted and in memory, so it walks
//! the segment's skiplist once, lending each cell to the compaction matcher and the file
//! writer without copying it (no cursor, no merge heap, no reference counts per cell).
//! The matcher's decisions are carried out as [`super::rewrite`] does: a seek to the next
//! column or row becomes skipping the cells it would have jumped over, recognised by the
//! key of the cell the seek was asked at, which is kept in one reused buffer.

use super::new_file::NewFile;
use crate::context::Context;
use crate::memstore::Segment;
use crate::scanner::matcher::{
    CompactionKind, CompactionMatcher, CompactionOptions, MatchCode, QueryMatcher,
};
use crate::Result;
use basalt_types::{Cell, FamilyDescriptor};
use std::path::Path;

/// Writes the cells of `segment` that the flush rules keep as file `id` in `dir`; returns
/// the number of cells written, or `None` (and no file) when nothing survives.
pub fn write(
    ctx: &Context,
    family: &FamilyDescriptor,
    dir: &Path,
    segment: &Segment,
    id: u64,
    now_ms: i64,
) -> Result<Option<u64>> {
    let mut matcher = CompactionMatcher::new(
        family,
        CompactionOptions::new(CompactionKind::Flush, now_ms),
    );
    let mut out = NewFile::new(ctx, family, dir, id)?;
    let mut skip = Skip::default();
    segment.try_for_each(|cell| -> Result<()> {
        if skip.covers(cell) {
            return Ok(());
        }
        let mut code = matcher.match_cell(cell, None);
        if code == MatchCode::DoneRow {
            matcher.start_row(cell.row());
            code = matcher.match_cell(cell, None);
        }
        if code.includes() {
            out.append(cell)?;
        }
        skip.after(code, cell);
        Ok(())
    })?;
    out.finish()
}

/// The cells a matcher's seek would jump over: those of one column, or of one row, as
/// given by the cell the seek was asked at.
#[derive(Debug, Default)]
struct Skip {
    scope: Scope,
    /// Row, family and qualifier of that cell, back to back.
    key: Vec<u8>,
    row_len: usize,
    family_len: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Scope {
    #[default]
    Nothing,
    Column,
    Row,
}

impl Skip {
    /// Notes what `code`, answered for `cell`, skips.
    fn after(&mut self, code: MatchCode, cell: &Cell) {
        self.scope = match code {
            // DeleteFamily markers share the empty qualifier: step, do not jump.
            MatchCode::SeekNextCol | MatchCode::IncludeAndSeekNextCol
                if cell.qualifier().is_empty() =>
            {
                Scope::Nothing
            }
            MatchCode::SeekNextCol | MatchCode::IncludeAndSeekNextCol => Scope::Column,
            MatchCode::SeekNextRow | MatchCode::IncludeAndSeekNextRow => Scope::Row,
            // A flush has no filter to give hints; DoneRow was answered before this.
            MatchCode::Include
            | MatchCode::Skip
            | MatchCode::SeekNextUsingHint
            | MatchCode::DoneRow => Scope::Nothing,
        };
        if self.scope != Scope::Nothing {
            self.key.clear();
            self.key.extend_from_slice(cell.row());
            self.key.extend_from_slice(cell.family());
            self.key.extend_from_slice(cell.qualifier());
            self.row_len = cell.row().len();
            self.family_len = cell.family().len();
        }
    }

    /// Whether `cell` is one of the skipped cells (cells arrive in order, so the first
    /// one that is not ends the skip).
    fn covers(&mut self, cell: &Cell) -> bool {
        if self.scope == Scope::Nothing {
            return false;
        }
        let (row, rest) = self.key.split_at(self.row_len);
        let (family, qualifier) = rest.split_at(self.family_len);
        let covered = match self.scope {
            Scope::Nothing | Scope::Row => cell.row() == row,
            Scope::Column => {
                cell.qualifier() == qualifier && cell.family() == family && cell.row() == row
            }
        };
        if !covered {
            self.scope = Scope::Nothing;
        }
        covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_covers_its_column_or_row_until_the_first_cell_past_it() {
        let cell = |row: &'static str, q: &'static str| Cell::put(row, "f", q, 1, "v");
        let mut skip = Skip::default();
        assert!(!skip.covers(&cell("r1", "a")));

        skip.after(MatchCode::IncludeAndSeekNextCol, &cell("r1", "a"));
        assert!(skip.covers(&cell("r1", "a")));
        assert!(!skip.covers(&cell("r1", "ab")));
        assert!(
            !skip.covers(&cell("r1", "a")),
            "the skip ended at the first cell past it"
        );

        skip.after(MatchCode::SeekNextRow, &cell("r1", "b"));
        assert!(skip.covers(&cell("r1", "c")));
        assert!(skip.covers(&cell("r1", "")));
        assert!(!skip.covers(&cell("r10", "a")));

        // A family marker's empty qualifier is stepped over, never jumped.
        skip.after(MatchCode::SeekNextCol, &cell("r2", ""));
        assert!(!skip.covers(&cell("r2", "")));
        skip.after(MatchCode::Include, &cell("r2", "a"));
        assert!(!skip.covers(&cell("r2", "a")));
    }
}
