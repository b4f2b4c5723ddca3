//! `ColumnPrefixFilter('p')`: cells whose qualifier starts with `p`.
//!
//! A qualifier before the prefix seeks to `row / family:p`; one past it skips the rest of
//! the family in this row (`NEXT_ROW`).

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct ColumnPrefixFilter {
    prefix: Bytes,
}

impl ColumnPrefixFilter {
    pub fn new(prefix: Bytes) -> Self {
        Self { prefix }
    }
}

impl Filter for ColumnPrefixFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let q = cell.qualifier();
        let head = &q[..q.len().min(self.prefix.len())];
        match head.cmp(&self.prefix[..head.len()]) {
            std::cmp::Ordering::Greater => ReturnCode::NextRow,
            std::cmp::Ordering::Less => ReturnCode::SeekNextUsingHint,
            std::cmp::Ordering::Equal if q.len() < self.prefix.len() => {
                ReturnCode::SeekNextUsingHint
            }
            std::cmp::Ordering::Equal => ReturnCode::Include,
        }
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        Some(Cell::first_on_column(
            current.row_bytes(),
            current.family_bytes(),
            self.prefix.clone(),
        ))
    }
}
