//! `ColumnRangeFilter('min', minInclusive, 'max', maxInclusive)`: cells whose qualifier lies
//! between the bounds (an empty bound is unbounded). Below `min` seeks to `min`; above `max`
//! skips the rest of the family in this row.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct ColumnRangeFilter {
    min: Bytes,
    min_inclusive: bool,
    max: Bytes,
    max_inclusive: bool,
}

impl ColumnRangeFilter {
    pub fn new(min: Bytes, min_inclusive: bool, max: Bytes, max_inclusive: bool) -> Self {
        Self {
            min,
            min_inclusive,
            max,
            max_inclusive,
        }
    }
}

impl Filter for ColumnRangeFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let q = cell.qualifier();
        if !self.min.is_empty() {
            let cmp_min = q.cmp(self.min.as_ref());
            if cmp_min.is_lt() {
                return ReturnCode::SeekNextUsingHint;
            }
            if cmp_min.is_eq() && !self.min_inclusive {
                return ReturnCode::NextCol;
            }
        }
        if self.max.is_empty() {
            return ReturnCode::Include;
        }
        let cmp_max = q.cmp(self.max.as_ref());
        if cmp_max.is_lt() || (self.max_inclusive && cmp_max.is_eq()) {
            ReturnCode::Include
        } else {
            ReturnCode::NextRow
        }
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        Some(Cell::first_on_column(
            current.row_bytes(),
            current.family_bytes(),
            self.min.clone(),
        ))
    }
}
