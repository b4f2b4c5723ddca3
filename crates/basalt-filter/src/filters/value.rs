//! `ValueFilter(op, 'comparator')`: cells whose value satisfies `value OP operand`
//! (e.g. `ValueFilter(<, 'binary:b')` keeps values sorting before `b`).

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct ValueFilter {
    compare: CompiledCompare,
}

impl ValueFilter {
    pub fn new(compare: CompiledCompare) -> Self {
        Self { compare }
    }
}

impl Filter for ValueFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.compare.passes(cell.value()) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
}
