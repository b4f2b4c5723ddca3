//! `FirstKeyValueMatchingQualifiersFilter`: the cells of each row up to and including the
//! first whose qualifier is listed (deprecated in HBase, removed in 3.0; not in the filter
//! language — the extended dialect spells it `FirstKeyValueMatchingQualifiersFilter('q', ...)`).

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;
use std::collections::BTreeSet;

#[derive(Debug)]
pub struct FirstKeyValueMatchingQualifiersFilter {
    qualifiers: BTreeSet<Bytes>,
    found: bool,
}

impl FirstKeyValueMatchingQualifiersFilter {
    pub fn new(qualifiers: &[Bytes]) -> Self {
        Self {
            qualifiers: qualifiers.iter().cloned().collect(),
            found: false,
        }
    }
}

impl Filter for FirstKeyValueMatchingQualifiersFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.found {
            return ReturnCode::NextRow;
        }
        if self.qualifiers.contains(cell.qualifier()) {
            self.found = true;
        }
        ReturnCode::Include
    }
}
