//! `f1 AND f2 ...` / `f1 OR f2 ...` (HBase's `FilterList`, MUST_PASS_ALL / MUST_PASS_ONE).
//!
//! **AND** asks the filters in order and stops at the first answer that does not include the
//! cell (so later filters' counters are not disturbed); the merged answer is the strongest
//! skip. The hint is the furthest of the hints of the filters that asked to seek.
//!
//! **OR** asks every filter that still wants this cell — a filter that answered `NEXT_COL`
//! is not asked again in that column, `NEXT_ROW` not again in that family, a seek not again
//! before its hint — and the merged answer is the weakest skip, limited so that it never
//! skips a cell a filter left waiting may want. It seeks only when every filter asked to
//! seek, to the nearest hint. Reversed scans compare cells in scan order (rows descending,
//! cells within a row ascending).
//!
//! | AND: so far ↓ / next → | INCLUDE | INCL_NEXT_COL | INCL_NEXT_ROW | SKIP | NEXT_COL | NEXT_ROW | SEEK |
//! |----|----|----|----|----|----|----|----|
//! | INCLUDE        | INCLUDE | INCL_NEXT_COL | INCL_NEXT_ROW | SKIP | NEXT_COL | NEXT_ROW | SEEK |
//! | INCL_NEXT_COL  | INCL_NEXT_COL | INCL_NEXT_COL | INCL_NEXT_ROW | NEXT_COL | NEXT_COL | NEXT_ROW | SEEK |
//! | INCL_NEXT_ROW  | INCL_NEXT_ROW | INCL_NEXT_ROW | INCL_NEXT_ROW | NEXT_ROW | NEXT_ROW | NEXT_ROW | SEEK |
//!
//! `transform_cell` applies, in order, the transforms of the filters that included the cell.

use crate::filters::list_merge::{is_include, merge_and, merge_or};
use crate::{Filter, ReturnCode};
use basalt_types::cell::compare_keys;
use basalt_types::Cell;
use std::cmp::Ordering;

/// How far an OR list may skip while a filter it did not ask waits for a later cell: a
/// filter waiting for the next column allows skipping this column, one waiting for its seek
/// hint allows skipping only this cell. (HBase merges only the asked filters' answers and
/// so can skip cells a waiting filter would include; Basalt does not.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cap {
    Cell,
    Column,
    None,
}

impl Cap {
    fn limit(self, code: ReturnCode) -> ReturnCode {
        use ReturnCode::*;
        match (self, code) {
            (Cap::None, c) => c,
            (Cap::Column, NextRow | SeekNextUsingHint) => NextCol,
            (Cap::Column, IncludeAndSeekNextRow) => IncludeAndNextCol,
            (Cap::Cell, NextCol | NextRow | SeekNextUsingHint) => Skip,
            (Cap::Cell, IncludeAndNextCol | IncludeAndSeekNextRow) => Include,
            (_, c) => c,
        }
    }
}

#[derive(Debug)]
pub struct FilterList {
    must_pass_all: bool,
    filters: Vec<Box<dyn Filter>>,
    reversed: bool,
    /// Per filter: whether it included the current cell (drives `transform_cell`).
    included: Vec<bool>,
    /// AND: the filters that asked to seek for the current cell.
    seekers: Vec<usize>,
    /// OR: each filter's last answer and the cell it answered, to know when to ask again.
    previous: Vec<Option<(ReturnCode, Cell)>>,
}

impl FilterList {
    pub fn new(must_pass_all: bool, filters: Vec<Box<dyn Filter>>) -> Self {
        let n = filters.len();
        Self {
            must_pass_all,
            filters,
            reversed: false,
            included: vec![false; n],
            seekers: Vec::new(),
            previous: vec![None; n],
        }
    }

    /// The scan's order: reversed scans visit rows descending but each row's cells in cell
    /// order, so only the row comparison flips.
    fn compare_cells(&self, a: &Cell, b: &Cell) -> Ordering {
        if self.reversed && a.row() != b.row() {
            b.row().cmp(a.row())
        } else {
            compare_keys(a, b)
        }
    }

    fn filter_cell_and(&mut self, cell: &Cell) -> ReturnCode {
        self.seekers.clear();
        self.included.iter_mut().for_each(|i| *i = false);
        let mut code = ReturnCode::Include;
        for (i, filter) in self.filters.iter_mut().enumerate() {
            if filter.filter_all_remaining() {
                return ReturnCode::NextRow;
            }
            let local = filter.filter_cell(cell);
            if local == ReturnCode::SeekNextUsingHint {
                self.seekers.push(i);
            }
            self.included[i] = is_include(local);
            code = merge_and(code, local);
            if !is_include(code) {
                return code;
            }
        }
        if self.seekers.is_empty() {
            code
        } else {
            ReturnCode::SeekNextUsingHint
        }
    }

    /// Whether filter `i` wants `cell`, given its previous answer in this row.
    fn wants(&self, i: usize, cell: &Cell) -> bool {
        let Some((code, prev)) = &self.previous[i] else {
            return true;
        };
        match code {
            ReturnCode::Include | ReturnCode::Skip => true,
            ReturnCode::SeekNextUsingHint => match self.filters[i].next_cell_hint(prev) {
                Some(hint) => self.compare_cells(cell, &hint).is_ge(),
                None => true,
            },
            ReturnCode::NextCol | ReturnCode::IncludeAndNextCol => {
                !(prev.family() == cell.family() && prev.qualifier() == cell.qualifier())
            }
            ReturnCode::NextRow | ReturnCode::IncludeAndSeekNextRow => {
                prev.family() != cell.family()
            }
        }
    }

    fn filter_cell_or(&mut self, cell: &Cell) -> ReturnCode {
        let mut code: Option<ReturnCode> = None;
        let mut every_one_seeks = true;
        // The furthest the list may skip without passing a cell a waiting filter wants.
        let mut cap = Cap::None;
        for i in 0..self.filters.len() {
            self.included[i] = false;
            if self.filters[i].filter_all_remaining() {
                every_one_seeks = false;
                continue;
            }
            if !self.wants(i, cell) {
                every_one_seeks = false;
                cap = cap.min(match self.previous[i].as_ref().map(|(c, _)| *c) {
                    Some(ReturnCode::NextCol | ReturnCode::IncludeAndNextCol) => Cap::Column,
                    Some(ReturnCode::SeekNextUsingHint) => Cap::Cell,
                    _ => Cap::None,
                });
                continue;
            }
            let local = self.filters[i].filter_cell(cell);
            self.previous[i] = match local {
                ReturnCode::Include | ReturnCode::Skip => None,
                _ => Some((local, cell.clone())),
            };
            every_one_seeks &= local == ReturnCode::SeekNextUsingHint;
            code = Some(code.map_or(local, |c| merge_or(c, local)));
            self.included[i] = is_include(local);
        }
        if every_one_seeks {
            ReturnCode::SeekNextUsingHint
        } else {
            // None: every filter is done with the scan.
            cap.limit(code.unwrap_or(ReturnCode::Skip))
        }
    }
}

impl Filter for FilterList {
    fn reset(&mut self) {
        self.filters.iter_mut().for_each(|f| f.reset());
        self.previous.iter_mut().for_each(|p| *p = None);
    }

    fn filter_all_remaining(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        if self.must_pass_all {
            self.filters.iter_mut().any(|f| f.filter_all_remaining())
        } else {
            self.filters.iter_mut().all(|f| f.filter_all_remaining())
        }
    }

    fn filter_row_key(&mut self, first: &Cell) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let mut out = !self.must_pass_all;
        for f in &mut self.filters {
            let rejects = f.filter_all_remaining() || f.filter_row_key(first);
            if self.must_pass_all {
                out |= rejects;
            } else {
                out &= rejects;
            }
        }
        out
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.filters.is_empty() {
            ReturnCode::Include
        } else if self.must_pass_all {
            self.filter_cell_and(cell)
        } else {
            self.filter_cell_or(cell)
        }
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.filters
            .iter()
            .zip(&self.included)
            .filter(|(_, &included)| included)
            .fold(cell, |c, (f, _)| f.transform_cell(c))
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.filters
            .iter_mut()
            .for_each(|f| f.filter_row_cells(cells));
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        // Short-circuits as HBase does: AND stops at the first filter dropping the row, OR at
        // the first keeping it.
        if self.must_pass_all {
            self.filters.iter_mut().any(|f| f.filter_row())
        } else {
            self.filters.iter_mut().all(|f| f.filter_row())
        }
    }

    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        if self.must_pass_all {
            // The furthest hint: every filter must be satisfied.
            let mut best: Option<Cell> = None;
            for &i in &self.seekers {
                let Some(hint) = self.filters[i].next_cell_hint(current) else {
                    continue;
                };
                if best
                    .as_ref()
                    .is_none_or(|b| self.compare_cells(b, &hint).is_lt())
                {
                    best = Some(hint);
                }
            }
            best
        } else {
            // The nearest hint: any filter may pass in between; no hint from one, none at all.
            let mut best: Option<Cell> = None;
            for f in &self.filters {
                let hint = f.next_cell_hint(current)?;
                if best
                    .as_ref()
                    .is_none_or(|b| self.compare_cells(b, &hint).is_gt())
                {
                    best = Some(hint);
                }
            }
            best
        }
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| f.is_family_essential(family))
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
        self.filters
            .iter_mut()
            .for_each(|f| f.set_reversed(reversed));
    }
}
