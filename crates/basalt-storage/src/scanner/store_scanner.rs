//! One family's part of a scan: the merged sources, read a row at a time through the
//! user matcher.

use super::heap::MergeHeap;
use super::matcher::{MatchCode, UserMatcher};
use super::CellSource;
use crate::Result;
use basalt_filter::Filter;
use basalt_types::{Cell, FamilyDescriptor, Scan};
use bytes::Bytes;

#[derive(Debug)]
pub struct StoreScanner {
    heap: MergeHeap,
    matcher: UserMatcher,
    max_results: Option<u32>,
    offset: u32,
}

impl StoreScanner {
    /// Merges `sources` and positions them at the scan's start.
    pub fn open(family: &FamilyDescriptor, scan: &Scan, sources: Vec<Box<dyn CellSource>>, now_ms: i64) -> Result<Self> {
        let mut heap = MergeHeap::new(sources, scan.reversed);
        heap.position(&scan.start_row, scan.start_inclusive)?;
        Ok(Self {
            heap,
            matcher: UserMatcher::new(family, scan, now_ms),
            max_results: scan.max_results_per_family,
            offset: scan.row_offset_per_family,
        })
    }

    /// The row the next cell belongs to.
    pub fn peek(&self) -> Option<&Cell> {
        self.heap.peek()
    }

    /// Moves past `row` without reading it.
    pub fn skip_row(&mut self, row: &Bytes) -> Result<()> {
        if self.heap.peek().is_some_and(|c| c.row == *row) {
            self.heap.next_row(row)?;
        }
        Ok(())
    }

    /// Appends the cells of `row` this family returns to `out`, consulting `filter`, and
    /// leaves the sources at the next row.
    pub fn read_row(&mut self, row: &Bytes, mut filter: Option<&mut (dyn Filter + 'static)>, out: &mut Vec<Cell>) -> Result<()> {
        self.matcher.start_row(row);
        let mut seen = 0u32;
        let mut kept = 0u32;
        while let Some(cell) = self.heap.peek() {
            if cell.row != *row {
                return Ok(());
            }
            let cell = cell.clone();
            let code = self.matcher.match_cell(&cell, filter.as_deref_mut());
            let included = matches!(
                code,
                MatchCode::Include | MatchCode::IncludeAndSeekNextCol | MatchCode::IncludeAndSeekNextRow
            );
            if included {
                seen += 1;
                if seen > self.offset {
                    let cell = match filter.as_deref() {
                        Some(f) => f.transform_cell(cell.clone()),
                        None => cell.clone(),
                    };
                    out.push(cell);
                    kept += 1;
                    if self.max_results.is_some_and(|max| kept >= max) {
                        return self.heap.next_row(row);
                    }
                }
            }
            match code {
                MatchCode::Include | MatchCode::Skip => self.heap.advance()?,
                MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol => {
                    let next = Cell::last_on_column(cell.row.clone(), cell.family.clone(), cell.qualifier.clone());
                    self.heap.seek(&next)?;
                }
                MatchCode::IncludeAndSeekNextRow | MatchCode::SeekNextRow | MatchCode::DoneRow => {
                    return self.heap.next_row(row);
                }
                MatchCode::SeekNextUsingHint => {
                    let hint = filter.as_deref().and_then(|f| f.next_cell_hint(&cell));
                    match hint {
                        // A hint must move forward within the row; anything else ends the row.
                        Some(hint) if hint.row == *row && hint.cmp_key(&cell).is_gt() => self.heap.seek(&hint)?,
                        Some(hint) if !self.heap_is_reversed() && hint.row > *row => {
                            return self.heap.seek(&hint);
                        }
                        Some(_) => return self.heap.next_row(row),
                        None => self.heap.advance()?,
                    }
                }
            }
        }
        Ok(())
    }

    fn heap_is_reversed(&self) -> bool {
        self.heap.is_reversed()
    }
}
