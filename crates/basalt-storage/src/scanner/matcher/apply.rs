//! The reference driver: a matcher over a sorted slice of cells.
//!
//! [`trace`] walks the slice the way a store scanner walks its merge heap, carrying out
//! each [`MatchCode`]; [`apply`] keeps the included cells. The region scanner's row-level
//! filter steps (`filter_row_key`, `filter_row`, `transform_cell`) are not done here;
//! `Filter::reset` is called at each new row.

use super::{MatchCode, QueryMatcher};
use basalt_filter::Filter;
use basalt_types::Cell;

/// The cells of `cells` (sorted in cell order) that `matcher` includes.
pub fn apply<M: QueryMatcher + ?Sized>(
    matcher: &mut M,
    cells: &[Cell],
    filter: Option<&mut dyn Filter>,
) -> Vec<Cell> {
    trace(matcher, cells, filter)
        .into_iter()
        .filter(|(_, code)| code.includes())
        .map(|(index, _)| cells[index].clone())
        .collect()
}

/// Each visited cell's index and final code, in order; cells jumped over by a seek are
/// absent. A `DoneRow` starts the cell's row and asks again, so it never appears.
pub fn trace<M: QueryMatcher + ?Sized>(
    matcher: &mut M,
    cells: &[Cell],
    mut filter: Option<&mut dyn Filter>,
) -> Vec<(usize, MatchCode)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(cell) = cells.get(i) {
        let mut code = matcher.match_cell(cell, reborrow(&mut filter));
        if code == MatchCode::DoneRow {
            matcher.start_row(cell.row());
            if let Some(f) = filter.as_mut() {
                f.reset();
            }
            code = matcher.match_cell(cell, reborrow(&mut filter));
        }
        out.push((i, code));
        i = next_index(cells, i, code, filter.as_deref());
    }
    out
}

/// A shorter-lived `Option<&mut dyn Filter>` (an `Option` is no coercion site).
fn reborrow<'a>(filter: &'a mut Option<&mut dyn Filter>) -> Option<&'a mut dyn Filter> {
    match filter {
        Some(f) => Some(&mut **f),
        None => None,
    }
}

/// Where the cursor goes after `code` on `cells[i]`.
fn next_index(cells: &[Cell], i: usize, code: MatchCode, filter: Option<&dyn Filter>) -> usize {
    let cell = &cells[i];
    let past = |same: &dyn Fn(&Cell) -> bool| {
        i + 1 + cells[i + 1..].iter().take_while(|c| same(c)).count()
    };
    match code {
        MatchCode::Include | MatchCode::Skip | MatchCode::DoneRow => i + 1,
        MatchCode::SeekNextCol | MatchCode::IncludeAndSeekNextCol => {
            if cell.qualifier().is_empty() {
                // DeleteFamily markers share the empty qualifier: step, do not jump.
                i + 1
            } else {
                past(&|c| c.same_column(cell))
            }
        }
        MatchCode::SeekNextRow | MatchCode::IncludeAndSeekNextRow => {
            past(&|c| c.row() == cell.row())
        }
        MatchCode::SeekNextUsingHint => match filter.and_then(|f| f.next_cell_hint(cell)) {
            Some(hint) => past(&|c| c.cmp_key(&hint).is_lt()),
            None => i + 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_filter::ReturnCode;

    /// Answers from a script and records resets.
    #[derive(Debug)]
    struct Scripted {
        answers: Vec<ReturnCode>,
        resets: usize,
    }

    impl Filter for Scripted {
        fn reset(&mut self) {
            self.resets += 1;
        }
        fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
            if self.answers.is_empty() {
                ReturnCode::Include
            } else {
                self.answers.remove(0)
            }
        }
    }

    /// Includes everything; counts row starts.
    struct Everything(usize);

    impl QueryMatcher for Everything {
        fn start_row(&mut self, _row: &[u8]) {
            self.0 += 1;
        }
        fn match_cell(&mut self, cell: &Cell, filter: Option<&mut dyn Filter>) -> MatchCode {
            if self.0 == 0 {
                return MatchCode::DoneRow;
            }
            match filter.map(|f| f.filter_cell(cell)) {
                Some(ReturnCode::SeekNextUsingHint) => MatchCode::SeekNextUsingHint,
                Some(ReturnCode::NextRow) => MatchCode::SeekNextRow,
                _ => MatchCode::Include,
            }
        }
    }

    fn cells() -> Vec<Cell> {
        vec![
            Cell::put("r1", "cf", "a", 2, "v"),
            Cell::put("r1", "cf", "a", 1, "v"),
            Cell::put("r2", "cf", "a", 1, "v"),
        ]
    }

    #[test]
    fn done_row_starts_the_row_and_asks_again() {
        let mut m = Everything(0);
        assert_eq!(apply(&mut m, &cells(), None), cells());
        assert_eq!(m.0, 1, "the stub only says DoneRow before the first row");
    }

    #[test]
    fn a_hint_without_a_hint_steps_and_filters_reset_per_started_row() {
        let mut f = Scripted {
            answers: vec![ReturnCode::SeekNextUsingHint, ReturnCode::NextRow],
            resets: 0,
        };
        let mut m = Everything(0);
        let steps = trace(&mut m, &cells(), Some(&mut f));
        assert_eq!(
            steps,
            vec![
                (0, MatchCode::SeekNextUsingHint),
                (1, MatchCode::SeekNextRow),
                (2, MatchCode::Include)
            ]
        );
        assert_eq!(f.resets, 1);
    }
}
