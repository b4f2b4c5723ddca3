//! `TimestampsFilter(t1, t2, ...)`: cells whose timestamp is listed. Versions older than
//! every listed timestamp skip to the next column; with `can_hint` (structured form only)
//! a miss seeks straight to the next listed timestamp below it.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use std::collections::BTreeSet;

#[derive(Debug)]
pub struct TimestampsFilter {
    timestamps: BTreeSet<i64>,
    can_hint: bool,
}

impl TimestampsFilter {
    pub fn new(timestamps: &[i64], can_hint: bool) -> Self {
        Self {
            timestamps: timestamps.iter().copied().collect(),
            can_hint,
        }
    }
}

impl Filter for TimestampsFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let min = self.timestamps.first().copied().unwrap_or(i64::MAX);
        if self.timestamps.contains(&cell.timestamp()) {
            ReturnCode::Include
        } else if cell.timestamp() < min {
            ReturnCode::NextCol
        } else if self.can_hint {
            ReturnCode::SeekNextUsingHint
        } else {
            ReturnCode::Skip
        }
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        if !self.can_hint {
            return None;
        }
        let (row, family, qualifier) = (
            current.row_bytes(),
            current.family_bytes(),
            current.qualifier_bytes(),
        );
        // Versions run newest first: the next wanted one is the largest listed below.
        Some(
            match self.timestamps.range(..current.timestamp()).next_back() {
                Some(&ts) => Cell::first_at_timestamp(row, family, qualifier, ts),
                None => Cell::last_on_column(row, family, qualifier),
            },
        )
    }
}
