//! `MultipleColumnPrefixFilter('p1', 'p2', ...)`: cells whose qualifier starts with any of
//! the prefixes. A qualifier between prefixes seeks to the next prefix above it; past the
//! last prefix the rest of the family in this row is skipped.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;
use std::collections::BTreeSet;
use std::ops::Bound;

#[derive(Debug)]
pub struct MultipleColumnPrefixFilter {
    prefixes: BTreeSet<Bytes>,
    hint: Option<Bytes>,
}

impl MultipleColumnPrefixFilter {
    pub fn new(prefixes: &[Bytes]) -> Self {
        Self {
            prefixes: prefixes.iter().cloned().collect(),
            hint: None,
        }
    }
}

impl Filter for MultipleColumnPrefixFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.prefixes.is_empty() {
            return ReturnCode::Include;
        }
        let q = cell.qualifier();
        // Every prefix of q sorts at or before q.
        if self
            .prefixes
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(q)))
            .any(|p| q.starts_with(p))
        {
            return ReturnCode::Include;
        }
        let above = self
            .prefixes
            .range::<[u8], _>((Bound::Excluded(q), Bound::Unbounded))
            .next();
        match above {
            Some(next) => {
                self.hint = Some(next.clone());
                ReturnCode::SeekNextUsingHint
            }
            None => ReturnCode::NextRow,
        }
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        let prefix = self.hint.clone()?;
        Some(Cell::first_on_column(
            current.row_bytes(),
            current.family_bytes(),
            prefix,
        ))
    }
}
