//! `DependentColumnFilter('f', 'q' [, dropDependentColumn [, op, 'comparator']])`: cells whose
//! timestamp equals the timestamp of some (passing) version of the reference column `f:q`
//! in the same row. The reference column itself is dropped when `dropDependentColumn`.
//!
//! Other cells are included provisionally and pruned in `filter_row_cells`, once the
//! reference timestamps of the whole row are known.

use crate::comparator::CompiledCompare;
use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;
use std::collections::HashSet;

#[derive(Debug)]
pub struct DependentColumnFilter {
    family: Bytes,
    qualifier: Bytes,
    drop_dependent_column: bool,
    compare: Option<CompiledCompare>,
    stamps: HashSet<i64>,
}

impl DependentColumnFilter {
    pub fn new(
        family: Bytes,
        qualifier: Bytes,
        drop_dependent_column: bool,
        compare: Option<CompiledCompare>,
    ) -> Self {
        Self {
            family,
            qualifier,
            drop_dependent_column,
            compare,
            stamps: HashSet::new(),
        }
    }
}

impl Filter for DependentColumnFilter {
    fn reset(&mut self) {
        self.stamps.clear();
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if cell.family() != self.family || cell.qualifier() != self.qualifier {
            return ReturnCode::Include;
        }
        if let Some(compare) = &self.compare {
            if !compare.passes(cell.value()) {
                return ReturnCode::Skip;
            }
        }
        self.stamps.insert(cell.timestamp());
        if self.drop_dependent_column {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        cells.retain(|c| self.stamps.contains(&c.timestamp()));
    }

    fn has_filter_row(&self) -> bool {
        true
    }
}
