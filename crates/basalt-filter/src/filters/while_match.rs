//! `WHILE f` (HBase's `WhileMatchFilter`): rows pass while `f` passes; the first row key,
//! cell (anything but `INCLUDE`) or row that `f` rejects ends the whole scan.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct WhileMatchFilter {
    inner: Box<dyn Filter>,
    failed: bool,
}

impl WhileMatchFilter {
    pub fn new(inner: Box<dyn Filter>) -> Self {
        Self {
            inner,
            failed: false,
        }
    }
}

impl Filter for WhileMatchFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_all_remaining(&mut self) -> bool {
        self.failed || self.inner.filter_all_remaining()
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        if self.filter_all_remaining() {
            return true;
        }
        let out = self.inner.filter_row_key(first);
        self.failed |= out;
        out
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let code = self.inner.filter_cell(cell);
        self.failed |= code != ReturnCode::Include;
        code
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        let out = self.inner.filter_row();
        self.failed |= out;
        out
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        self.inner.next_cell_hint(current)
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.inner.set_reversed(reversed);
    }
}
