//! `QualifierFilter(op, 'comparator')`: cells whose qualifier satisfies
//! `qualifier OP operand`; failing cells are skipped one by one.

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct QualifierFilter {
    compare: CompiledCompare,
}

impl QualifierFilter {
    pub fn new(compare: CompiledCompare) -> Self {
        Self { compare }
    }
}

impl Filter for QualifierFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.compare.passes(cell.qualifier()) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
}
