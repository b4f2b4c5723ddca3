//! `SingleColumnValueFilter('f', 'q', op, 'comparator' [, filterIfMissing, latestVersionOnly])`:
//! whole rows whose column `f:q` satisfies `value OP operand`.
//!
//! | row has f:q? | f:q passes? | row kept?              |
//! |--------------|-------------|------------------------|
//! | yes          | yes         | yes                    |
//! | yes          | no          | no                     |
//! | no           | –           | unless filterIfMissing |
//!
//! With `latestVersionOnly` (the default) only the newest version of `f:q` is tested; without
//! it any passing version makes the row pass.

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::filter_spec::SingleColumnValueSpec;
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct SingleColumnValueFilter {
    family: Bytes,
    qualifier: Bytes,
    compare: CompiledCompare,
    filter_if_missing: bool,
    latest_version_only: bool,
    found_column: bool,
    matched_column: bool,
}

impl SingleColumnValueFilter {
    pub fn new(spec: &SingleColumnValueSpec, compare: CompiledCompare) -> Self {
        Self {
            family: spec.family.clone(),
            qualifier: spec.qualifier.clone(),
            compare,
            filter_if_missing: spec.filter_if_missing,
            latest_version_only: spec.latest_version_only,
            found_column: false,
            matched_column: false,
        }
    }

    /// Whether `cell` is the tested column.
    pub fn is_tested_column(&self, cell: &Cell) -> bool {
        cell.qualifier() == self.qualifier && cell.family() == self.family
    }
}

impl Filter for SingleColumnValueFilter {
    fn reset(&mut self) {
        self.found_column = false;
        self.matched_column = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.matched_column {
            return ReturnCode::Include;
        }
        if self.latest_version_only && self.found_column {
            // The newest version failed: the row is lost.
            return ReturnCode::NextRow;
        }
        if !self.is_tested_column(cell) {
            return ReturnCode::Include;
        }
        self.found_column = true;
        if !self.compare.passes(cell.value()) {
            return if self.latest_version_only {
                ReturnCode::NextRow
            } else {
                ReturnCode::Include
            };
        }
        self.matched_column = true;
        ReturnCode::Include
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        if self.found_column {
            !self.matched_column
        } else {
            self.filter_if_missing
        }
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        !self.filter_if_missing || family == self.family.as_ref()
    }
}
