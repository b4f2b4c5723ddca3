//! Scanners: sorted sources of cells, merged, and the matcher that decides per cell.
//!
//! Every sorted source of cells — a memstore snapshot, an HFile — is a [`CellSource`]:
//! a cursor over cells in cell order (see `basalt_types::cell`) that can jump forward or
//! backward to a key. Forward scans use [`CellSource::seek`] and [`CellSource::advance`];
//! reversed scans step to the previous row with [`CellSource::seek_to_previous_row`] and
//! then read that row forwards, as HBase's reversed scanners do.
//!
//! # Layout
//! - [`heap`]: the merge of many sources, forwards or reversed.
//! - [`matcher`]: per-cell decisions (versions, time range, TTL, delete markers, filters).
//! - [`store_scanner`]: one family's cells, a row at a time.
//! - [`region_scanner`]: the families joined by row, with row filters, limits and batches.
//! - [`visible`]: a source hiding cells newer than a read point older than its file.

pub mod heap;
pub mod matcher;
pub mod region_scanner;
pub mod store_scanner;
pub mod visible;

use crate::Result;
use basalt_types::Cell;

/// A cursor over cells in cell order.
pub trait CellSource: Send {
    /// The cell under the cursor; `None` once exhausted.
    fn peek(&self) -> Option<&Cell>;

    /// Moves past the current cell.
    fn advance(&mut self) -> Result<()> {
        self.take().map(drop)
    }

    /// Moves past the current cell and hands it over (no copy); `None` once exhausted.
    fn take(&mut self) -> Result<Option<Cell>>;

    /// [`Self::take`] straight onto the end of `out` (a 168-byte cell is copied once, not
    /// through every caller's return value); false once exhausted.
    fn take_into(&mut self, out: &mut Vec<Cell>) -> Result<bool> {
        match self.take()? {
            Some(cell) => {
                out.push(cell);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Moves to the first cell `>= key` in cell order (forwards or backwards).
    fn seek(&mut self, key: &Cell) -> Result<()>;

    /// Moves to the first cell of the greatest row `< row`; exhausted when there is none.
    fn seek_to_previous_row(&mut self, row: &[u8]) -> Result<()>;

    /// Moves to the first cell of the last row; exhausted when the source is empty.
    fn seek_to_last_row(&mut self) -> Result<()>;
}
