//! A reference scan loop: drives a [`Filter`] over sorted cells the way HBase's
//! `RegionScannerImpl` / `StoreScanner` / `UserScanQueryMatcher` do.
//!
//! Per row (rows ascending, or descending when reversed; cells within a row always in cell
//! order):
//! 1. `reset`, then `filter_all_remaining` — true ends the scan;
//! 2. `filter_row_key(first cell of the row)` — true skips the row;
//! 3. each family is its own store (HBase's `StoreScanner`); for each cell of the store in
//!    this row: `filter_all_remaining` (true: finish this row, then end the scan), then
//!    `filter_cell` and carry out the code — `INCLUDE*` adds `transform_cell(cell)`;
//!    `NEXT_COL` skips the column's other versions; `NEXT_ROW` skips the rest of this
//!    family in the row; `SEEK_NEXT_USING_HINT` seeks this store to `next_cell_hint` when
//!    the hint lies ahead in the scan's direction, else steps one cell. After `versions`
//!    included versions of a column the rest of the column is skipped (HBase counts
//!    versions after the filter);
//! 4. with `has_filter_row`, `filter_row_cells`; then, for a non-empty row, `filter_row` —
//!    true drops the row.
//!
//! Not modelled: delete markers, time ranges, batching/partial rows, and the cells HBase
//! drains through the filter when skipping a row rejected by `filter_row_key`.

use basalt_filter::{Filter, ReturnCode};
use basalt_types::cell::compare_keys;
use basalt_types::Cell;
use bytes::Bytes;
use std::collections::BTreeMap;

/// The scan's own settings (everything but the filter).
#[derive(Debug, Clone)]
pub struct ScanSettings {
    /// Inclusive; empty = from the first row (the last when reversed).
    pub start: Bytes,
    /// Exclusive; empty = to the end.
    pub stop: Bytes,
    pub reversed: bool,
    /// Versions per column (HBase's default is 1).
    pub versions: usize,
}

impl Default for ScanSettings {
    fn default() -> Self {
        Self {
            start: Bytes::new(),
            stop: Bytes::new(),
            reversed: false,
            versions: 1,
        }
    }
}

/// One family's sorted cells and a cursor (HBase's store scanner).
struct Store {
    cells: Vec<Cell>,
    pos: usize,
}

impl Store {
    fn current(&self) -> Option<&Cell> {
        self.cells.get(self.pos)
    }

    fn row(&self) -> Option<&[u8]> {
        self.current().map(|c| c.row())
    }

    /// Index of the first cell of the greatest row below `row` (or `len` if none).
    fn first_of_row_below(&self, row: &[u8]) -> usize {
        let end = self.cells.partition_point(|c| c.row() < row);
        match end.checked_sub(1) {
            Some(last) => {
                let prev = &self.cells[last].row();
                self.cells.partition_point(|c| c.row() < *prev)
            }
            None => self.cells.len(),
        }
    }

    fn skip_row(&mut self, row: &[u8], reversed: bool) {
        self.pos = if reversed {
            self.first_of_row_below(row)
        } else {
            self.cells.partition_point(|c| c.row() <= row)
        };
    }

    fn skip_column(&mut self, cell: &Cell) {
        while self.current().is_some_and(|c| c.same_column(cell)) {
            self.pos += 1;
        }
    }

    fn seek(&mut self, hint: &Cell, reversed: bool) {
        let at_or_after = self
            .cells
            .partition_point(|c| compare_keys(c, hint).is_lt());
        if !reversed
            || self
                .cells
                .get(at_or_after)
                .is_some_and(|c| c.row() == hint.row())
        {
            self.pos = at_or_after;
        } else {
            self.pos = self.first_of_row_below(hint.row());
        }
    }
}

/// Runs a scan of `cells` through `filter`; returns the cells the client would receive.
pub fn run(
    cells: &[Cell],
    mut filter: Option<Box<dyn Filter>>,
    settings: &ScanSettings,
) -> Vec<Cell> {
    let reversed = settings.reversed;
    let mut stores = make_stores(cells, settings);
    if let Some(f) = filter.as_mut() {
        f.set_reversed(reversed);
    }
    let mut out = Vec::new();
    loop {
        if let Some(f) = filter.as_mut() {
            f.reset();
            if f.filter_all_remaining() {
                break;
            }
        }
        let rows = stores.values().filter_map(Store::row);
        let next = if reversed { rows.max() } else { rows.min() };
        let Some(row) = next.map(Bytes::copy_from_slice) else {
            break;
        };
        if past_stop(&row, settings) {
            break;
        }
        let first = stores
            .values()
            .filter_map(Store::current)
            .filter(|c| c.row() == &row[..])
            .min_by(|a, b| compare_keys(a, b))
            .cloned()
            .expect("the chosen row came from some store's current cell");
        let skip_row = filter.as_mut().is_some_and(|f| f.filter_row_key(&first));
        let mut results = Vec::new();
        let mut done = false;
        if !skip_row {
            for store in stores.values_mut() {
                if store.row() == Some(&row[..]) {
                    done =
                        scan_store_row(store, &row, filter.as_deref_mut(), settings, &mut results);
                    if done {
                        break;
                    }
                }
            }
        }
        for store in stores.values_mut() {
            let still_here = match store.row() {
                Some(r) if reversed => r >= row.as_ref(),
                Some(r) => r == row,
                None => reversed,
            };
            if still_here {
                store.skip_row(&row, reversed);
            }
        }
        if !skip_row {
            let keep = match filter.as_mut() {
                Some(f) => {
                    if f.has_filter_row() {
                        f.filter_row_cells(&mut results);
                    }
                    !results.is_empty() && !f.filter_row()
                }
                None => true,
            };
            if keep {
                out.append(&mut results);
            }
        }
        if done {
            break;
        }
    }
    out
}

fn make_stores(cells: &[Cell], settings: &ScanSettings) -> BTreeMap<Bytes, Store> {
    let mut stores: BTreeMap<Bytes, Store> = BTreeMap::new();
    for c in cells {
        stores
            .entry(c.family_bytes())
            .or_insert_with(|| Store {
                cells: Vec::new(),
                pos: 0,
            })
            .cells
            .push(c.clone());
    }
    for store in stores.values_mut() {
        store.cells.sort_by(compare_keys);
        let start = settings.start.as_ref();
        store.pos = match (settings.reversed, start.is_empty()) {
            (false, _) => store.cells.partition_point(|c| c.row() < start),
            (true, true) => store.first_of_row_below(&[0xFF; 64]),
            (true, false) => {
                let mut upper = start.to_vec();
                upper.push(0);
                store.first_of_row_below(&upper)
            }
        };
    }
    stores
}

fn past_stop(row: &[u8], settings: &ScanSettings) -> bool {
    let stop = settings.stop.as_ref();
    !stop.is_empty()
        && if settings.reversed {
            row <= stop
        } else {
            row >= stop
        }
}

/// The cells of `row` in one store. Returns true when the filter ended the scan.
fn scan_store_row(
    store: &mut Store,
    row: &Bytes,
    mut filter: Option<&mut (dyn Filter + '_)>,
    settings: &ScanSettings,
    results: &mut Vec<Cell>,
) -> bool {
    let mut versions_seen = 0usize;
    let mut column: Option<Cell> = None;
    while let Some(cell) = store.current().filter(|c| c.row() == *row).cloned() {
        if column.as_ref().is_none_or(|c| !c.same_column(&cell)) {
            column = Some(cell.clone());
            versions_seen = 0;
        }
        let code = match filter.as_deref_mut() {
            Some(f) => {
                if f.filter_all_remaining() {
                    return true;
                }
                f.filter_cell(&cell)
            }
            None => ReturnCode::Include,
        };
        match code {
            ReturnCode::Include
            | ReturnCode::IncludeAndNextCol
            | ReturnCode::IncludeAndSeekNextRow => {
                let shown = match filter.as_deref() {
                    Some(f) => f.transform_cell(cell.clone()),
                    None => cell.clone(),
                };
                results.push(shown);
                versions_seen += 1;
                if code == ReturnCode::IncludeAndSeekNextRow {
                    store.skip_row(row, settings.reversed);
                } else if code == ReturnCode::IncludeAndNextCol
                    || versions_seen >= settings.versions
                {
                    store.skip_column(&cell);
                } else {
                    store.pos += 1;
                }
            }
            ReturnCode::Skip => store.pos += 1,
            ReturnCode::NextCol => store.skip_column(&cell),
            ReturnCode::NextRow => store.skip_row(row, settings.reversed),
            ReturnCode::SeekNextUsingHint => {
                let hint = filter.as_deref().and_then(|f| f.next_cell_hint(&cell));
                match hint {
                    Some(h) if ahead(&h, &cell, settings.reversed) => {
                        store.seek(&h, settings.reversed)
                    }
                    _ => store.pos += 1,
                }
            }
        }
    }
    false
}

fn ahead(hint: &Cell, cell: &Cell, reversed: bool) -> bool {
    let ord = compare_keys(hint, cell);
    if reversed {
        ord.is_lt() && hint.row() != cell.row()
    } else {
        ord.is_gt()
    }
}
