//! `MultiRowRangeFilter`: rows in any of several ranges (empty bounds are unbounded). Not
//! in the filter language (the extended dialect writes
//! `MultiRowRangeFilter('start', startInclusive, 'stop', stopInclusive, ...)`).
//!
//! A row outside every range seeks to the next range in the scan's direction (its start
//! going forward, its stop when reversed); past the last range the scan ends.

use crate::{Filter, ReturnCode};
use basalt_types::filter_spec::RowRange;
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct MultiRowRangeFilter {
    ranges: Vec<RowRange>,
    reversed: bool,
    done: bool,
    code: ReturnCode,
    hint: Option<Bytes>,
}

fn contains(r: &RowRange, row: &[u8]) -> bool {
    let start = r.start.as_ref();
    let stop = r.stop.as_ref();
    let above_start = start.is_empty() || row > start || (row == start && r.start_inclusive);
    let below_stop = stop.is_empty() || row < stop || (row == stop && r.stop_inclusive);
    above_start && below_stop
}

/// Every row of `r` sorts after `row`.
fn entirely_above(r: &RowRange, row: &[u8]) -> bool {
    let start = r.start.as_ref();
    !start.is_empty() && (start > row || (start == row && !r.start_inclusive))
}

/// Every row of `r` sorts before `row`.
fn entirely_below(r: &RowRange, row: &[u8]) -> bool {
    let stop = r.stop.as_ref();
    !stop.is_empty() && (stop < row || (stop == row && !r.stop_inclusive))
}

impl MultiRowRangeFilter {
    pub fn new(ranges: &[RowRange]) -> Self {
        Self {
            ranges: ranges.to_vec(),
            reversed: false,
            done: false,
            code: ReturnCode::Include,
            hint: None,
        }
    }

    fn next_range_row(&self, row: &[u8]) -> Option<Bytes> {
        if self.reversed {
            self.ranges
                .iter()
                .filter(|r| entirely_below(r, row))
                .map(|r| r.stop.clone())
                .max()
        } else {
            let next = self
                .ranges
                .iter()
                .filter(|r| entirely_above(r, row))
                .min_by(|a, b| {
                    a.start
                        .cmp(&b.start)
                        .then(b.start_inclusive.cmp(&a.start_inclusive))
                })?;
            Some(if next.start_inclusive {
                next.start.clone()
            } else {
                // The smallest row after an exclusive start.
                let mut row = next.start.to_vec();
                row.push(0);
                Bytes::from(row)
            })
        }
    }
}

impl Filter for MultiRowRangeFilter {
    fn filter_all_remaining(&mut self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        if self.done {
            return true;
        }
        let row = first.row();
        if self.ranges.iter().any(|r| contains(r, row)) {
            self.code = ReturnCode::Include;
            return false;
        }
        self.hint = self.next_range_row(row);
        self.code = match &self.hint {
            None => {
                self.done = true;
                ReturnCode::NextRow
            }
            // Reversed onto an exclusive stop: that row is out; step below it.
            Some(h) if h.as_ref() == row => ReturnCode::NextRow,
            Some(_) => ReturnCode::SeekNextUsingHint,
        };
        false
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        self.code
    }

    fn next_cell_hint(&self, _current: &Cell) -> Option<Cell> {
        self.hint.clone().map(Cell::first_on_row)
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}
