//! `PrefixFilter('p')`: rows whose key starts with `p`.
//!
//! Forward scans: a row before the prefix answers `SEEK_NEXT_USING_HINT` with a hint to the
//! first row at the prefix; the first row past the prefix ends the scan. Reversed scans
//! skip rows until the prefix and end the scan below it.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct PrefixFilter {
    prefix: Bytes,
    reversed: bool,
    filter_out_row: bool,
    provide_hint: bool,
    passed_prefix: bool,
}

impl PrefixFilter {
    pub fn new(prefix: Bytes) -> Self {
        Self {
            prefix,
            reversed: false,
            filter_out_row: false,
            provide_hint: false,
            passed_prefix: false,
        }
    }
}

impl Filter for PrefixFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
        self.provide_hint = false;
    }

    fn filter_all_remaining(&mut self) -> bool {
        self.passed_prefix
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        if self.passed_prefix {
            return true;
        }
        let row = first.row();
        let ord = row[..row.len().min(self.prefix.len())].cmp(self.prefix.as_ref());
        if (!self.reversed && ord.is_gt()) || (self.reversed && ord.is_lt()) {
            self.passed_prefix = true;
        }
        self.filter_out_row = ord.is_ne();
        // Before the prefix going forward: let the cells ask to seek there.
        self.provide_hint = !self.reversed && ord.is_lt();
        self.filter_out_row && !self.provide_hint
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.provide_hint {
            ReturnCode::SeekNextUsingHint
        } else if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }

    fn next_cell_hint(&self, _current: &Cell) -> Option<Cell> {
        self.provide_hint
            .then(|| Cell::first_on_row(self.prefix.clone()))
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}
