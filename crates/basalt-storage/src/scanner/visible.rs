//! A source that hides cells newer than a read point: a store file read by a scan that
//! asked for an older point than the region's current one (a scanner reopened with
//! HBase's `mvcc_read_point` after its region moved).
//!
//! A memstore segment filters by read point itself ([`crate::memstore::SegmentCursor`]);
//! a file written after the scan's point may hold cells above it, which this wrapper skips
//! in both directions. Reversed, a row whose cells are all hidden is stepped over:
//!
//! | file cells (row, seq) | read point | forwards | reversed from the end |
//! |-----------------------|------------|----------|-----------------------|
//! | a 3, b 9, c 4, c 8    | 5          | a, c 4   | c 4, a                |

use super::CellSource;
use crate::Result;
use basalt_types::Cell;

/// [`CellSource`] over `inner` showing only cells with `seq_id <= read_point`.
pub struct VisibleSource {
    inner: Box<dyn CellSource>,
    read_point: u64,
}

impl VisibleSource {
    pub fn new(inner: Box<dyn CellSource>, read_point: u64) -> Self {
        Self { inner, read_point }
    }

    /// Moves forwards past hidden cells.
    fn skip_hidden(&mut self) -> Result<()> {
        while self
            .inner
            .peek()
            .is_some_and(|c| c.seq_id() > self.read_point)
        {
            self.inner.advance()?;
        }
        Ok(())
    }

    /// After a step back to the start of a row: stays there if the row shows a cell, else
    /// steps back again.
    fn settle_backwards(&mut self) -> Result<()> {
        while let Some(row) = self.inner.peek().map(|c| c.row_bytes()) {
            self.skip_hidden()?;
            if self.inner.peek().is_some_and(|c| c.row() == row) {
                return Ok(());
            }
            self.inner.seek_to_previous_row(&row)?;
        }
        Ok(())
    }
}

impl CellSource for VisibleSource {
    fn peek(&self) -> Option<&Cell> {
        self.inner.peek()
    }

    fn take(&mut self) -> Result<Option<Cell>> {
        let cell = self.inner.take()?;
        self.skip_hidden()?;
        Ok(cell)
    }

    fn seek(&mut self, key: &Cell) -> Result<()> {
        self.inner.seek(key)?;
        self.skip_hidden()
    }

    fn seek_to_previous_row(&mut self, row: &[u8]) -> Result<()> {
        self.inner.seek_to_previous_row(row)?;
        self.settle_backwards()
    }

    fn seek_to_last_row(&mut self) -> Result<()> {
        self.inner.seek_to_last_row()?;
        self.settle_backwards()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memstore::{Segment, SegmentCursor};
    use bytes::Bytes;
    use std::sync::Arc;

    /// The table's cells, as a source that shows everything (read point `u64::MAX`).
    fn source() -> Box<dyn CellSource> {
        let segment = Arc::new(Segment::default());
        for (row, seq) in [("a", 3), ("b", 9), ("c", 4)] {
            segment.insert(Cell::put(row, "f", "q", 1, "v").with_seq(seq));
        }
        segment.insert(Cell::put("c", "f", "q", 2, "v").with_seq(8));
        Box::new(SegmentCursor::new(segment, u64::MAX))
    }

    fn seen(source: &mut VisibleSource, forwards: bool) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        while let Some(c) = source.peek() {
            out.push((String::from_utf8_lossy(c.row()).into_owned(), c.seq_id()));
            let row = c.row_bytes();
            match forwards {
                true => source.advance().expect("memory"),
                false => {
                    // Read the row forwards, then step back a row, as a reversed heap does.
                    source.advance().expect("memory");
                    if source.peek().is_none_or(|c| c.row() != row) {
                        source.seek_to_previous_row(&row).expect("memory");
                    }
                }
            }
        }
        out
    }

    #[test]
    fn hides_cells_above_the_read_point_in_both_directions() {
        let mut forwards = VisibleSource::new(source(), 5);
        forwards
            .seek(&Cell::first_on_row(Bytes::new()))
            .expect("memory");
        assert_eq!(
            seen(&mut forwards, true),
            [("a".into(), 3), ("c".into(), 4)]
        );

        let mut reversed = VisibleSource::new(source(), 5);
        reversed.seek_to_last_row().expect("memory");
        assert_eq!(
            seen(&mut reversed, false),
            [("c".into(), 4), ("a".into(), 3)]
        );
    }

    #[test]
    fn a_read_point_below_every_cell_shows_nothing() {
        let mut hidden = VisibleSource::new(source(), 2);
        hidden.seek_to_last_row().expect("memory");
        assert!(hidden.peek().is_none());
        hidden
            .seek(&Cell::first_on_row(Bytes::new()))
            .expect("memory");
        assert!(hidden.peek().is_none());
    }
}
