//! `PageFilter(n)`: at most n rows pass (per region, as in HBase).

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
