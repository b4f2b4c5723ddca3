//! `RowFilter(op, 'comparator')`: rows whose key satisfies `row OP operand`.
//!
//! Decided once per row in `filter_row_key`; cells of a rejected row answer `NEXT_ROW`
//! (which matters inside an `OR` list, where the row is still read).

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct RowFilter {
    compare: CompiledCompare,
    filter_out_row: bool,
}

impl RowFilter {
    pub fn new(compare: CompiledCompare) -> Self {
        Self {
            compare,
            filter_out_row: false,
        }
    }
}

impl Filter for RowFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        if !self.compare.passes(first.row()) {
            self.filter_out_row = true;
        }
        self.filter_out_row
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }
}
