//! A scan over one region: the families' store scanners joined row by row, with the
//! filter's row-level decisions, the row limit and batching applied.

use super::store_scanner::StoreScanner;
use crate::region::load::LoadCounters;
use crate::Result;
use basalt_filter::Filter;
use basalt_types::{Cell, RowResult, Scan, SeqId};
use bytes::Bytes;
use std::sync::Arc;

/// Filtered rows counted before they are added to the region's count.
const FILTERED_ROWS_BATCH: u64 = 256;

/// The first row's vector of cells starts this large.
const FIRST_ROW_CELLS_HINT: usize = 8;

#[derive(Debug)]
pub struct RegionScanner {
    /// In family order, so the filter sees a row's cells in cell order.
    stores: Vec<StoreScanner>,
    scan: Scan,
    filter: Option<Box<dyn Filter>>,
    rows_returned: u64,
    /// The rest of a row wider than the scan's batch.
    pending: Vec<Cell>,
    /// Cells in the last row read: the next row's vector starts this large (rows of a
    /// table tend to be alike), sparing the copies of a growing vector of cells.
    row_cells_hint: usize,
    done: bool,
    /// Cells and bytes returned, added to `load` when dropped.
    returned_cells: u64,
    returned_bytes: u64,
    /// Rows the filter dropped, not yet added to `load`.
    filtered_rows: u64,
    load: Option<Arc<LoadCounters>>,
    /// The MVCC read point its sources read at (0: not told).
    read_point: SeqId,
}

impl RegionScanner {
    pub fn new(stores: Vec<StoreScanner>, scan: Scan, mut filter: Option<Box<dyn Filter>>) -> Self {
        if let Some(f) = filter.as_deref_mut() {
            f.set_reversed(scan.reversed);
        }
        Self {
            stores,
            scan,
            filter,
            rows_returned: 0,
            pending: Vec::new(),
            row_cells_hint: FIRST_ROW_CELLS_HINT,
            done: false,
            returned_cells: 0,
            returned_bytes: 0,
            filtered_rows: 0,
            load: None,
            read_point: SeqId(0),
        }
    }

    /// Records the read point its sources were opened at, for [`Self::read_point`].
    pub fn reading_at(mut self, read_point: SeqId) -> Self {
        self.read_point = read_point;
        self
    }

    /// The MVCC read point it reads at: a scanner opened elsewhere with it
    /// (`Scan::read_point`) sees the same cells of this region.
    pub fn read_point(&self) -> SeqId {
        self.read_point
    }

    /// Adds the cells and bytes it returns to `load` when dropped.
    pub fn counting_into(mut self, load: Arc<LoadCounters>) -> Self {
        self.load = Some(load);
        self
    }

    /// The next row's cells (or the next part of a row wider than the batch); `None` at
    /// the end of the scan.
    pub fn next_row(&mut self) -> Result<Option<RowResult>> {
        if !self.pending.is_empty() {
            return Ok(Some(self.take_batch()));
        }
        while !self.done {
            let Some(row) = self.next_row_key() else {
                self.done = true;
                break;
            };
            if self.scan.past_stop(&row) || self.scan.limit.is_some_and(|l| self.rows_returned >= l)
            {
                self.done = true;
                break;
            }
            if self.scan.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
                // Its owner is gone (a closed scanner read ahead): stop reading.
                tracing::debug!("a cancelled scan stops reading");
                self.done = true;
                break;
            }
            if let Some(filter) = self.filter.as_deref_mut() {
                filter.reset();
                if filter.filter_all_remaining() {
                    self.done = true;
                    break;
                }
            }
            let cells = self.read_row(&row)?;
            if cells.is_empty() {
                if self.filter.is_some() {
                    self.note_filtered_row();
                }
                continue;
            }
            self.rows_returned += 1;
            if self.load.is_some() {
                self.returned_cells += cells.len() as u64;
                self.returned_bytes += cells.iter().map(|c| c.heap_size() as u64).sum::<u64>();
            }
            self.pending = cells;
            return Ok(Some(self.take_batch()));
        }
        Ok(None)
    }

    fn note_filtered_row(&mut self) {
        self.filtered_rows += 1;
        if self.filtered_rows >= FILTERED_ROWS_BATCH {
            if let Some(load) = &self.load {
                load.add_filtered(std::mem::take(&mut self.filtered_rows));
            }
        }
    }

    /// Reads one row from every family, or nothing when the filter rejects it.
    fn read_row(&mut self, row: &Bytes) -> Result<Vec<Cell>> {
        if let Some(filter) = self.filter.as_deref_mut() {
            // Only a filter needs the row's first cell; without one, nothing is copied.
            let first = self
                .stores
                .iter()
                .filter_map(|s| s.peek())
                .find(|c| c.row() == *row);
            if first.is_some_and(|first| filter.filter_row_key(first)) {
                for store in &mut self.stores {
                    store.skip_row(row)?;
                }
                return Ok(Vec::new());
            }
        }
        let mut cells = Vec::with_capacity(self.row_cells_hint);
        for store in &mut self.stores {
            if store.peek().is_some_and(|c| c.row() == *row)
                && store.read_row(row, self.filter.as_deref_mut(), &mut cells)?
            {
                // The filter ended the scan mid-row: this row is the last.
                self.done = true;
                break;
            }
        }
        self.row_cells_hint = cells.len();
        if let Some(filter) = self.filter.as_deref_mut() {
            if filter.has_filter_row() {
                filter.filter_row_cells(&mut cells);
            }
            if !cells.is_empty() && filter.filter_row() {
                cells.clear();
            }
        }
        Ok(cells)
    }

    /// The row to read next: the smallest current row forwards, the largest reversed.
    fn next_row_key(&self) -> Option<Bytes> {
        let cells = self.stores.iter().filter_map(|s| s.peek());
        let cell = if self.scan.reversed {
            cells.max_by(|a, b| a.row().cmp(b.row()))
        } else {
            cells.min_by(|a, b| a.row().cmp(b.row()))
        };
        cell.map(Cell::row_bytes)
    }

    fn take_batch(&mut self) -> RowResult {
        match self.scan.batch {
            Some(batch) if (batch as usize) < self.pending.len() && batch > 0 => {
                let rest = self.pending.split_off(batch as usize);
                let part = std::mem::replace(&mut self.pending, rest);
                RowResult {
                    cells: part,
                    exists: None,
                    partial: true,
                }
            }
            _ => RowResult::new(std::mem::take(&mut self.pending)),
        }
    }
}

impl Drop for RegionScanner {
    fn drop(&mut self) {
        if let Some(load) = &self.load {
            load.add_scanned(self.returned_cells, self.returned_bytes);
            load.add_filtered(self.filtered_rows);
        }
    }
}

impl Iterator for RegionScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_row().transpose()
    }
}
