//! `ColumnValueFilter('f', 'q', op, 'comparator')`: only the cells of column `f:q` whose
//! value satisfies `value OP operand` (unlike `SingleColumnValueFilter`, not whole rows).
//!
//! Before the column is reached other columns answer `NEXT_COL`; after it, `NEXT_ROW`.

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct ColumnValueFilter {
    family: Bytes,
    qualifier: Bytes,
    compare: CompiledCompare,
    column_found: bool,
}

impl ColumnValueFilter {
    pub fn new(family: Bytes, qualifier: Bytes, compare: CompiledCompare) -> Self {
        Self {
            family,
            qualifier,
            compare,
            column_found: false,
        }
    }
}

impl Filter for ColumnValueFilter {
    fn reset(&mut self) {
        self.column_found = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if cell.family() != self.family || cell.qualifier() != self.qualifier {
            return if self.column_found {
                ReturnCode::NextRow
            } else {
                ReturnCode::NextCol
            };
        }
        self.column_found = true;
        if self.compare.passes(cell.value()) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        family == self.family.as_ref()
    }
}
