//! A scan's rows as a caller takes them: one at a time ([`Iterator::next`]), or an answer
//! of many at once ([`ResultScanner::next_answer`]), as a server fills one response.
//!
//! An answer is the unit a server's work is accounted in: a scanner that checks or counts
//! what it returns (the embedded table's: the lease gate, the `ScanNext` metric) does it
//! once per answer rather than once per row, so a long scan costs no clock read per row.
//! A wrapper over another scanner passes answers through ([`ResultScanner::next_answer`]
//! of the inner one) to keep that; one that does not still works, row by row.
//!
//! An answer holds up to `rows_max` rows and stops once `bytes_max` bytes of cells are
//! taken, after at least one row:
//!
//! | rows left | rows_max | bytes_max | rows per row | answer          |
//! |-----------|----------|-----------|--------------|-----------------|
//! | 5         | 2        | 1 MiB     | 100 B        | 2 rows, more    |
//! | 5         | 10       | 1 B       | 100 B        | 1 row, more     |
//! | 3         | 10       | 1 MiB     | 100 B        | 3 rows, no more |

use crate::Result;
use basalt_types::RowResult;

/// Rows of a scan, in the scan's order.
pub trait ResultScanner: Iterator<Item = Result<RowResult>> + Send {
    /// The rows of one answer and whether more may follow (see the module's table). A
    /// failure ends the answer: the rows taken before it are not returned.
    fn next_answer(&mut self, rows_max: usize, bytes_max: u64) -> Result<(Vec<RowResult>, bool)> {
        take_answer(self, rows_max, bytes_max)
    }
}

impl<T: ResultScanner + ?Sized> ResultScanner for Box<T> {
    fn next_answer(&mut self, rows_max: usize, bytes_max: u64) -> Result<(Vec<RowResult>, bool)> {
        (**self).next_answer(rows_max, bytes_max)
    }
}

/// Any iterator of rows as a [`ResultScanner`] that answers row by row.
#[derive(Debug)]
pub struct Rows<I>(pub I);

impl<I: Iterator<Item = Result<RowResult>>> Iterator for Rows<I> {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

impl<I: Iterator<Item = Result<RowResult>> + Send> ResultScanner for Rows<I> {}

/// One answer taken from `rows` row by row (see the module's table).
pub fn take_answer<I>(
    rows: &mut I,
    rows_max: usize,
    bytes_max: u64,
) -> Result<(Vec<RowResult>, bool)>
where
    I: Iterator<Item = Result<RowResult>> + ?Sized,
{
    let mut answer = Vec::new();
    let mut bytes = 0u64;
    let more = loop {
        if answer.len() >= rows_max || bytes >= bytes_max {
            break true;
        }
        match rows.next() {
            None => break false,
            Some(Err(e)) => return Err(e),
            Some(Ok(row)) => {
                bytes += row.cells.iter().map(|c| c.heap_size() as u64).sum::<u64>();
                answer.push(row);
            }
        }
    };
    Ok((answer, more))
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::Cell;

    /// `n` rows of 1 cell each.
    fn rows(n: usize) -> Rows<std::vec::IntoIter<Result<RowResult>>> {
        let rows: Vec<_> = (0..n)
            .map(|i| {
                Ok(RowResult::new(vec![Cell::put(
                    format!("r{i}"),
                    "f",
                    "q",
                    1,
                    "v",
                )]))
            })
            .collect();
        Rows(rows.into_iter())
    }

    fn shape(answer: Result<(Vec<RowResult>, bool)>) -> (usize, bool) {
        let (rows, more) = answer.expect("an answer");
        (rows.len(), more)
    }

    #[test]
    fn an_answer_stops_at_its_row_count_or_byte_budget_after_one_row() {
        let mut five = rows(5);
        assert_eq!(shape(five.next_answer(2, 1 << 20)), (2, true));
        assert_eq!(
            shape(five.next_answer(10, 1)),
            (1, true),
            "at least one row"
        );
        assert_eq!(shape(five.next_answer(10, 1 << 20)), (2, false));
        assert_eq!(shape(five.next_answer(10, 1 << 20)), (0, false));
    }

    #[test]
    fn a_boxed_scanner_answers_as_the_one_inside() {
        let mut boxed: Box<dyn ResultScanner> = Box::new(rows(3));
        assert_eq!(shape(boxed.next_answer(10, 1 << 20)), (3, false));
    }

    #[test]
    fn a_failure_ends_the_answer() {
        let failing = vec![
            Ok(RowResult::new(vec![Cell::put("a", "f", "q", 1, "v")])),
            Err(crate::ApiError::invalid("broken row")),
        ];
        let err = Rows(failing.into_iter())
            .next_answer(10, 1 << 20)
            .expect_err("the failure");
        assert!(err.message.contains("broken row"), "{err}");
    }
}
