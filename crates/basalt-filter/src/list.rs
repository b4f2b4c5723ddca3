//! `FilterList`: AND (MUST_PASS_ALL) or OR (MUST_PASS_ONE) of filters.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct FilterList {
    must_pass_all: bool,
    filters: Vec<Box<dyn Filter>>,
}

impl FilterList {
    pub fn new(must_pass_all: bool, filters: Vec<Box<dyn Filter>>) -> Self {
        Self {
            must_pass_all,
            filters,
        }
    }
}

/// How strongly a code skips: a larger rank skips more.
fn rank(code: ReturnCode) -> u8 {
    match code {
        ReturnCode::Include => 0,
        ReturnCode::IncludeAndNextCol => 1,
        ReturnCode::IncludeAndSeekNextRow => 2,
        ReturnCode::Skip => 3,
        ReturnCode::NextCol => 4,
        ReturnCode::SeekNextUsingHint => 5,
        ReturnCode::NextRow => 6,
    }
}

impl Filter for FilterList {
    fn reset(&mut self) {
        self.filters.iter_mut().for_each(|f| f.reset());
    }

    fn filter_all_remaining(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        if self.must_pass_all {
            self.filters.iter_mut().any(|f| f.filter_all_remaining())
        } else {
            self.filters.iter_mut().all(|f| f.filter_all_remaining())
        }
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let verdicts: Vec<bool> = self
            .filters
            .iter_mut()
            .map(|f| f.filter_row_key(first))
            .collect();
        if self.must_pass_all {
            verdicts.iter().any(|&v| v)
        } else {
            verdicts.iter().all(|&v| v)
        }
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let codes = self.filters.iter_mut().map(|f| f.filter_cell(cell));
        let pick = if self.must_pass_all {
            codes.max_by_key(|c| rank(*c))
        } else {
            codes.min_by_key(|c| rank(*c))
        };
        match pick {
            // A hint from a list would need the filters' hints merged; skip the cell instead.
            Some(ReturnCode::SeekNextUsingHint) => ReturnCode::Skip,
            Some(code) => code,
            None => ReturnCode::Include,
        }
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.filters.iter().fold(cell, |c, f| f.transform_cell(c))
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.filters
            .iter_mut()
            .for_each(|f| f.filter_row_cells(cells));
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let verdicts: Vec<bool> = self.filters.iter_mut().map(|f| f.filter_row()).collect();
        if self.must_pass_all {
            verdicts.iter().any(|&v| v)
        } else {
            verdicts.iter().all(|&v| v)
        }
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.filters
            .iter_mut()
            .for_each(|f| f.set_reversed(reversed));
    }
}
