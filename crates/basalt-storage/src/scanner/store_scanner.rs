//! One family's part of a scan: the merged sources, read a row at a time through the
//! user matcher.

use super::heap::MergeHeap;
use super::matcher::{MatchCode, QueryMatcher, UserMatcher};
use super::CellSource;
use crate::Result;
use basalt_filter::Filter;
use basalt_types::{Cell, FamilyDescriptor, Scan};
use bytes::Bytes;

/// Steps tried before seeking past a column (see [`StoreScanner::next_column`]).
const STEPS_BEFORE_SEEK: usize = 4;

#[derive(Debug)]
pub struct StoreScanner {
    heap: MergeHeap,
    matcher: UserMatcher,
    max_results: Option<u32>,
    offset: u32,
}

impl StoreScanner {
    /// Merges `sources` and positions them at the scan's start.
    pub fn open(
        family: &FamilyDescriptor,
        scan: &Scan,
        sources: Vec<Box<dyn CellSource>>,
        now_ms: i64,
    ) -> Result<Self> {
        let mut heap = MergeHeap::new(sources, scan.reversed);
        heap.position(&scan.start_row, scan.start_inclusive)?;
        Ok(Self {
            heap,
            matcher: UserMatcher::for_scan(family, scan, now_ms),
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
    /// leaves the sources at the next row. Returns true when the filter ended the scan in
    /// the middle of the row (`filter_all_remaining`, asked before every cell as HBase
    /// does): the row is finished with what it has and nothing follows it.
    pub fn read_row(
        &mut self,
        row: &Bytes,
        mut filter: Option<&mut (dyn Filter + 'static)>,
        out: &mut Vec<Cell>,
    ) -> Result<bool> {
        self.matcher.start_row(row);
        let mut seen = 0u32;
        let mut kept = 0u32;
        while let Some(cell) = self.heap.peek() {
            if cell.row != *row {
                return Ok(false);
            }
            if filter
                .as_deref_mut()
                .is_some_and(|f| f.filter_all_remaining())
            {
                return Ok(true);
            }
            let code = self.matcher.match_cell(cell, reborrow(&mut filter));
            // DeleteFamily markers share the empty qualifier: those step, never jump.
            let column_end = match code {
                MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol
                    if !cell.qualifier.is_empty() =>
                {
                    Some(Cell::last_on_column(
                        cell.row.clone(),
                        cell.family.clone(),
                        cell.qualifier.clone(),
                    ))
                }
                _ => None,
            };
            match code {
                MatchCode::DoneRow => return Ok(false),
                MatchCode::SeekNextRow => return self.heap.next_row(row).map(|_| false),
                MatchCode::SeekNextUsingHint => {
                    let current = cell.clone();
                    match filter.as_deref().and_then(|f| f.next_cell_hint(&current)) {
                        Some(hint) => {
                            self.heap.seek_hint(&current, &hint)?;
                            if hint.row != *row {
                                return Ok(false);
                            }
                        }
                        None => self.heap.advance()?,
                    }
                    continue;
                }
                _ => {}
            }
            // Past the cell: a kept cell is handed over by the heap, never copied.
            let keep = code.includes() && {
                seen += 1;
                seen > self.offset
            };
            if keep {
                if let Some(cell) = self.heap.take()? {
                    out.push(match filter.as_deref() {
                        Some(f) => f.transform_cell(cell),
                        None => cell,
                    });
                }
                kept += 1;
                if self.max_results.is_some_and(|max| kept >= max) {
                    return self.heap.next_row(row).map(|_| false);
                }
            } else {
                self.heap.advance()?;
            }
            if code == MatchCode::IncludeAndSeekNextRow {
                return self.heap.next_row(row).map(|_| false);
            }
            if let Some(end) = column_end {
                self.skip_rest_of_column(&end)?;
            }
        }
        Ok(false)
    }

    /// Moves past the rest of the column `end` (a `last_on_column` key) closes. The next
    /// column is usually a step or two away (one version per column is the common case),
    /// so a few steps are tried before the seek, which searches every source (HBase's
    /// `trySkipToNextColumn` does the same).
    fn skip_rest_of_column(&mut self, end: &Cell) -> Result<()> {
        for step in 0..=STEPS_BEFORE_SEEK {
            let same_column = self.heap.peek().is_some_and(|c| {
                c.row == end.row && c.family == end.family && c.qualifier == end.qualifier
            });
            if !same_column {
                return Ok(());
            }
            if step == STEPS_BEFORE_SEEK {
                break;
            }
            self.heap.advance()?;
        }
        self.heap.seek(end)
    }
}

/// A shorter-lived `Option<&mut dyn Filter>` (an `Option` is no coercion site).
fn reborrow<'a>(filter: &'a mut Option<&mut (dyn Filter + 'static)>) -> Option<&'a mut dyn Filter> {
    match filter {
        Some(f) => Some(&mut **f),
        None => None,
    }
}
