//! Rows cut at a scan answer's byte budget, for clients that say
//! `client_handles_partials` (HBase 2.x's do): as HBase's region server does, cells are
//! added to the answer until its size reaches the budget, and when the row has cells left
//! the answer ends with a part of the row flagged partial; the rest comes first in the
//! next answer. A client that does not handle partials always gets whole rows (or the
//! parts the scan's `batch` asked for).

use basalt_types::RowResult;

/// `row` cut so that its first part fills at most about `budget` bytes: the part to answer
/// now and the rest, if any. The first part has at least one cell and is flagged partial
/// when a rest follows; the rest keeps the row's own flag (a batch part stays partial).
pub fn cut(row: RowResult, budget: u64) -> (RowResult, Option<RowResult>) {
    let mut used = 0u64;
    let mut keep = row.cells.len();
    for (i, cell) in row.cells.iter().enumerate() {
        used += cell.heap_size() as u64;
        if used >= budget {
            keep = i + 1;
            break;
        }
    }
    if keep >= row.cells.len() {
        return (row, None);
    }
    let mut first = row;
    let rest_cells = first.cells.split_off(keep);
    let rest = RowResult {
        cells: rest_cells,
        exists: first.exists,
        partial: first.partial,
    };
    first.partial = true;
    (first, Some(rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::Cell;
    use bytes::Bytes;

    fn wide(n: usize) -> RowResult {
        RowResult::new(
            (0..n)
                .map(|i| {
                    Cell::put(
                        Bytes::from_static(b"r"),
                        Bytes::from_static(b"f"),
                        Bytes::from(format!("q{i}")),
                        1,
                        Bytes::from(vec![b'v'; 100]),
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn a_row_over_the_budget_is_cut_after_the_cell_that_reaches_it() {
        let row = wide(5);
        let one = row.cells[0].heap_size() as u64;
        let (first, rest) = cut(row.clone(), one * 2);
        assert_eq!(first.cells, row.cells[..2]);
        assert!(first.partial);
        let rest = rest.expect("a rest");
        assert_eq!(rest.cells, row.cells[2..]);
        assert!(!rest.partial, "the row's last part is whole");
    }

    #[test]
    fn a_row_within_the_budget_and_a_tiny_budget_keep_at_least_one_cell() {
        let row = wide(3);
        assert_eq!(cut(row.clone(), u64::MAX), (row.clone(), None));
        let (first, rest) = cut(row.clone(), 1);
        assert_eq!(first.cells.len(), 1);
        assert_eq!(rest.expect("a rest").cells.len(), 2);
        let (last, none) = cut(wide(1), 1);
        assert_eq!((last.cells.len(), none), (1, None));
    }

    #[test]
    fn the_rest_of_a_batch_part_stays_partial() {
        let mut part = wide(4);
        part.partial = true;
        let (_, rest) = cut(part, 1);
        assert!(rest.expect("a rest").partial);
    }
}
