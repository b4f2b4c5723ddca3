//! The cells of one row, as a read returns them.

use crate::Cell;
use bytes::Bytes;

/// One row's cells in cell order (HBase's `Result`). A scan with `batch` may return a row in
/// several parts: `partial` is then true on every part but the last.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowResult {
    pub cells: Vec<Cell>,
    /// Set for existence-only gets.
    pub exists: Option<bool>,
    /// More cells of this row follow in the next result.
    pub partial: bool,
}

impl RowResult {
    pub fn new(cells: Vec<Cell>) -> Self {
        Self {
            cells,
            exists: None,
            partial: false,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn row(&self) -> Option<&[u8]> {
        self.cells.first().map(|c| c.row())
    }

    /// The row as a shared buffer (a reference count, no copy).
    pub fn row_bytes(&self) -> Option<Bytes> {
        self.cells.first().map(Cell::row_bytes)
    }

    /// The newest value of `family:qualifier`.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cell(family, qualifier).map(Cell::value)
    }

    /// The newest value of `family:qualifier`, as a shared buffer.
    pub fn value_bytes(&self, family: &[u8], qualifier: &[u8]) -> Option<Bytes> {
        self.cell(family, qualifier).map(Cell::value_bytes)
    }

    /// The newest cell of `family:qualifier`.
    fn cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.family() == family && c.qualifier() == qualifier)
    }
}
