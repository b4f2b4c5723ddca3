//! `PrefixFilter('p')`: rows whose key starts with a prefix.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct PrefixFilter {
    prefix: Bytes,
    reversed: bool,
    row_passed: bool,
    done: bool,
}

impl PrefixFilter {
    pub fn new(prefix: Bytes) -> Self {
        Self {
            prefix,
            reversed: false,
            row_passed: false,
            done: false,
        }
    }
}

impl Filter for PrefixFilter {
    fn filter_all_remaining(&mut self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        let row = first.row.as_ref();
        let head = &row[..row.len().min(self.prefix.len())];
        let ord = head.cmp(self.prefix.as_ref());
        // Past the prefix in the scan's direction: nothing later can match.
        if (!self.reversed && ord.is_gt()) || (self.reversed && ord.is_lt()) {
            self.done = true;
        }
        self.row_passed = ord.is_eq();
        !self.row_passed
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.row_passed {
            ReturnCode::Include
        } else {
            ReturnCode::NextRow
        }
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}
