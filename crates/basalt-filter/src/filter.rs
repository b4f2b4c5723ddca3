//! The filter contract between a filter and the region scanner.
//!
//! For each row the scanner calls, in order:
//! 1. [`Filter::filter_all_remaining`] — true ends the scan;
//! 2. [`Filter::filter_row_key`] with the row's first cell — true skips the row;
//! 3. [`Filter::filter_cell`] for each cell the query matcher would include, then
//!    [`Filter::transform_cell`] on each cell the filter includes;
//! 4. [`Filter::filter_row_cells`] on the row's cells (only when [`Filter::has_filter_row`]),
//!    then, if any cells remain, [`Filter::filter_row`] — true drops the whole row;
//! 5. [`Filter::reset`] before the next row.
//!
//! Return codes act per column family (HBase runs one store scanner per family): `NEXT_ROW`
//! skips the rest of the current family in this row, not the other families. A seek hint
//! is honoured only when it lies ahead of the current cell in the scan's direction.

use basalt_types::Cell;
use std::fmt::Debug;

/// What to do with the current cell (HBase's `Filter.ReturnCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnCode {
    /// Include the cell.
    Include,
    /// Include the cell and skip the rest of its column's versions.
    IncludeAndNextCol,
    /// Include the cell and skip the rest of the row.
    IncludeAndSeekNextRow,
    /// Skip this cell only.
    Skip,
    /// Skip the rest of this column.
    NextCol,
    /// Skip the rest of this row.
    NextRow,
    /// Seek to [`Filter::next_cell_hint`].
    SeekNextUsingHint,
}

/// A server-side filter. Implementations are per-scan state machines: build a fresh one for
/// every scan. Every method has HBase's default behaviour except `filter_cell`.
pub trait Filter: Send + Debug {
    /// Called before each row.
    fn reset(&mut self) {}

    /// True when no later row can pass: the scan ends.
    fn filter_all_remaining(&mut self) -> bool {
        false
    }

    /// True to skip the row whose first cell is `first`, before looking at its cells.
    fn filter_row_key(&mut self, _first: &Cell) -> bool {
        false
    }

    /// The decision for one cell.
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode;

    /// Rewrites an included cell (KeyOnlyFilter drops values).
    fn transform_cell(&self, cell: Cell) -> Cell {
        cell
    }

    /// Last chance to edit the row's cells before it is returned.
    fn filter_row_cells(&mut self, _cells: &mut Vec<Cell>) {}

    /// Whether [`Filter::filter_row`] takes part (it forces whole-row evaluation).
    fn has_filter_row(&self) -> bool {
        false
    }

    /// True to drop the whole row after its cells were seen (called for every non-empty row).
    fn filter_row(&mut self) -> bool {
        false
    }

    /// Where to seek after [`ReturnCode::SeekNextUsingHint`]: a key past `current`.
    fn next_cell_hint(&self, _current: &Cell) -> Option<Cell> {
        None
    }

    /// Whether cells of `family` are needed to decide (for on-demand family loading).
    fn is_family_essential(&self, _family: &[u8]) -> bool {
        true
    }

    /// Told once, before the scan starts, when the scan runs backwards.
    fn set_reversed(&mut self, _reversed: bool) {}
}
