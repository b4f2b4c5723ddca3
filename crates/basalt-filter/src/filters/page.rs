//! `PageFilter(n)`: at most `n` non-empty rows pass, then the scan ends. As in HBase the
//! limit holds per region scanner; a client scanning several regions must re-limit.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct PageFilter {
    page_size: u64,
    rows_accepted: u64,
}

impl PageFilter {
    pub fn new(page_size: u64) -> Self {
        Self {
            page_size,
            rows_accepted: 0,
        }
    }
}

impl Filter for PageFilter {
    fn filter_all_remaining(&mut self) -> bool {
        self.rows_accepted >= self.page_size
    }

    fn filter_row_key(&mut self, _first: &Cell) -> bool {
        self.filter_all_remaining()
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        ReturnCode::Include
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.rows_accepted += 1;
        self.rows_accepted > self.page_size
    }
}
