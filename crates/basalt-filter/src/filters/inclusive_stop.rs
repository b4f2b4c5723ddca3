//! `InclusiveStopFilter('stop')`: rows up to and including `stop` (down to it when
//! reversed); the first row past it ends the scan.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct InclusiveStopFilter {
    stop: Bytes,
    reversed: bool,
    done: bool,
}

impl InclusiveStopFilter {
    pub fn new(stop: Bytes) -> Self {
        Self {
            stop,
            reversed: false,
            done: false,
        }
    }
}

impl Filter for InclusiveStopFilter {
    fn filter_all_remaining(&mut self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        let ord = self.stop.as_ref().cmp(first.row().as_ref());
        self.done = if self.reversed {
            ord.is_gt()
        } else {
            ord.is_lt()
        };
        self.done
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.done {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}
