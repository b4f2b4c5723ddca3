//! `SingleColumnValueExcludeFilter('f', 'q', op, 'comparator' [, filterIfMissing,
//! latestVersionOnly])`: as `SingleColumnValueFilter`, but the tested column `f:q` is removed
//! from the rows that pass (in `filter_row_cells`).

use crate::filters::single_column_value::SingleColumnValueFilter;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct SingleColumnValueExcludeFilter {
    inner: SingleColumnValueFilter,
}

impl SingleColumnValueExcludeFilter {
    pub fn new(inner: SingleColumnValueFilter) -> Self {
        Self { inner }
    }
}

impl Filter for SingleColumnValueExcludeFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        self.inner.filter_cell(cell)
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        cells.retain(|c| !self.inner.is_tested_column(c));
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.inner.filter_row()
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }
}
