//! `FirstKeyOnlyFilter()`: only the first cell of each row (what the shell's `count` uses).

use crate::{Filter, ReturnCode};
use basalt_types::Cell;

#[derive(Debug, Default)]
pub struct FirstKeyOnlyFilter {
    found: bool,
}

impl Filter for FirstKeyOnlyFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.found {
            ReturnCode::NextRow
        } else {
            self.found = true;
            ReturnCode::Include
        }
    }
}
