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
    /// The qualifier of the column being skipped (a reused buffer: no refcounts per cell).
    column: Vec<u8>,
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
            column: Vec::new(),
        })
    }

    /// The row the next cell belongs to.
    pub fn peek(&self) -> Option<&Cell> {
        self.heap.peek()
    }

    /// Moves past `row` without reading it.
    pub fn skip_row(&mut self, row: &Bytes) -> Result<()> {
        if self.heap.peek().is_some_and(|c| c.row() == *row) {
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
            if cell.row() != *row {
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
            let skip_column = matches!(
                code,
                MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol
            ) && !cell.qualifier().is_empty();
            if skip_column {
                self.column.clear();
                self.column.extend_from_slice(cell.qualifier());
            }
            match code {
                MatchCode::DoneRow => return Ok(false),
                MatchCode::SeekNextRow => return self.heap.next_row(row).map(|_| false),
                MatchCode::SeekNextUsingHint => {
                    let current = cell.clone();
                    match filter.as_deref().and_then(|f| f.next_cell_hint(&current)) {
                        Some(hint) => {
                            self.heap.seek_hint(&current, &hint)?;
                            if hint.row() != *row {
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
                if self.heap.take_into(out)? {
                    if let Some(f) = filter.as_deref() {
                        let cell = out.pop().expect("taken above");
                        out.push(f.transform_cell(cell));
                    }
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
            if skip_column {
                self.skip_rest_of_column(row)?;
            }
        }
        Ok(false)
    }

    /// Moves past the rest of `row`'s column [`Self::column`] (every cell of a store is of
    /// its one family). The next column is usually a step or two away (one version per
    /// column is the common case), so a few steps are tried before the seek, which searches
    /// every source (HBase's `trySkipToNextColumn` does the same); only the seek needs a key.
    fn skip_rest_of_column(&mut self, row: &Bytes) -> Result<()> {
        for _ in 0..STEPS_BEFORE_SEEK {
            if !self.in_column(row) {
                return Ok(());
            }
            self.heap.advance()?;
        }
        let family = match self.heap.peek() {
            Some(c) if c.row() == &row[..] && c.qualifier() == &self.column[..] => c.family_bytes(),
            _ => return Ok(()),
        };
        let end = Cell::last_on_column(row.clone(), family, Bytes::copy_from_slice(&self.column));
        self.heap.seek(&end)
    }

    fn in_column(&self, row: &Bytes) -> bool {
        self.heap
            .peek()
            .is_some_and(|c| c.row() == &row[..] && c.qualifier() == &self.column[..])
    }
}

/// A shorter-lived `Option<&mut dyn Filter>` (an `Option` is no coercion site).
fn reborrow<'a>(filter: &'a mut Option<&mut (dyn Filter + 'static)>) -> Option<&'a mut dyn Filter> {
    match filter {
        Some(f) => Some(&mut **f),
        None => None,
    }
}
