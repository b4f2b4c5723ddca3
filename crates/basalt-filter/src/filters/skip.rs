//! `SKIP f` (HBase's `SkipFilter`): whole rows in which every cell passes `f`; one cell
//! answered with anything but `INCLUDE` drops the row.
//!
//! As in HBase only `f`'s cell answers count: `f`'s row-key, row and end-of-scan verdicts
//! are not consulted (so `SKIP WHILE f` keeps scanning past the first failing row). Unlike
//! HBase, `f` is told about reversed scans and its seek hints are passed on.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct SkipFilter {
    inner: Box<dyn Filter>,
    filter_row: bool,
}

impl SkipFilter {
    pub fn new(inner: Box<dyn Filter>) -> Self {
        Self {
            inner,
            filter_row: false,
        }
    }
}

impl Filter for SkipFilter {
    fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let code = self.inner.filter_cell(cell);
        self.filter_row |= code != ReturnCode::Include;
        code
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
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
