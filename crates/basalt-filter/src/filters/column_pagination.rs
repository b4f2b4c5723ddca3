//! `ColumnPaginationFilter(limit, offset)`: per row, `limit` columns after skipping `offset`
//! columns (newest version of each). The structured form may give a qualifier instead of
//! an offset: the page then starts at the first column at or after it (seeking there).

use crate::{Filter, ReturnCode};
use basalt_types::filter_spec::ColumnOffset;
use basalt_types::Cell;

#[derive(Debug)]
pub struct ColumnPaginationFilter {
    limit: u64,
    offset: ColumnOffset,
    count: u64,
}

impl ColumnPaginationFilter {
    pub fn new(limit: u32, offset: ColumnOffset) -> Self {
        Self {
            limit: u64::from(limit),
            offset,
            count: 0,
        }
    }
}

impl Filter for ColumnPaginationFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        match &self.offset {
            ColumnOffset::Qualifier(start) => {
                if self.count >= self.limit {
                    return ReturnCode::NextRow;
                }
                if self.count == 0 && cell.qualifier() < start.as_ref() {
                    return ReturnCode::SeekNextUsingHint;
                }
                self.count += 1;
                ReturnCode::IncludeAndNextCol
            }
            ColumnOffset::Index(offset) => {
                let offset = u64::try_from(*offset).unwrap_or(0);
                if self.count >= offset + self.limit {
                    return ReturnCode::NextRow;
                }
                let code = if self.count < offset {
                    ReturnCode::NextCol
                } else {
                    ReturnCode::IncludeAndNextCol
                };
                self.count += 1;
                code
            }
        }
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        match &self.offset {
            ColumnOffset::Qualifier(start) => Some(Cell::first_on_column(
                current.row_bytes(),
                current.family_bytes(),
                start.clone(),
            )),
            ColumnOffset::Index(_) => None,
        }
    }
}
