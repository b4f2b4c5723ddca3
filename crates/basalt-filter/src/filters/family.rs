//! `FamilyFilter(op, 'comparator')`: cells whose family satisfies `family OP operand`.
//!
//! A failing family answers `NEXT_ROW`, which (as in HBase, where each family is its own
//! store scanner) skips the rest of that family in the row, not the other families.

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug)]
pub struct FamilyFilter {
    compare: CompiledCompare,
}

impl FamilyFilter {
    pub fn new(compare: CompiledCompare) -> Self {
        Self { compare }
    }
}

impl Filter for FamilyFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if !cell.family().is_empty() && !self.compare.passes(cell.family()) {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }
}
