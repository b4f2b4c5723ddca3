//! `ColumnCountGetFilter(limit)`: the first `limit` columns (newest version each). Meant for
//! gets: as in HBase, a row with more than `limit + 1` columns ends the whole scan.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct ColumnCountGetFilter {
    limit: u64,
    count: u64,
}

impl ColumnCountGetFilter {
    pub fn new(limit: u32) -> Self {
        Self {
            limit: u64::from(limit),
            count: 0,
        }
    }
}

impl Filter for ColumnCountGetFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_all_remaining(&mut self) -> bool {
        self.count > self.limit
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        self.count += 1;
        if self.count > self.limit {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        }
    }
}
