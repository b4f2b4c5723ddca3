//! Hiding cells newer than a scanner's MVCC read point in a source that does not know
//! about read points (a file).
//!
//! A flush can publish a file holding writes that were not yet visible when a scanner took
//! its read point. Without this filter, a scanner that opens one family's sources before
//! such a flush and another family's after it would see half of a row mutation. Only files
//! whose newest sequence id is above the read point need it (HBase's store file scanner
//! skips such cells the same way).

use super::CellSource;
use crate::Result;
use basalt_types::Cell;

#[derive(Debug)]
pub struct ReadPointSource<S> {
    inner: S,
    read_point: u64,
}

impl<S: CellSource> ReadPointSource<S> {
    pub fn new(inner: S, read_point: u64) -> Self {
        Self { inner, read_point }
    }

    fn skip_invisible(&mut self) -> Result<()> {
        while self
            .inner
            .peek()
            .is_some_and(|c| c.seq_id > self.read_point)
        {
            self.inner.advance()?;
        }
        Ok(())
    }

    /// After a move to the first cell of a row: when that row holds nothing visible, keeps
    /// stepping back a row.
    fn settle_backwards(&mut self) -> Result<()> {
        loop {
            let Some(row) = self.inner.peek().map(|c| c.row.clone()) else {
                return Ok(());
            };
            self.skip_invisible()?;
            if self.inner.peek().is_some_and(|c| c.row == row) {
                return Ok(());
            }
            self.inner.seek_to_previous_row(&row)?;
        }
    }
}

impl<S: CellSource> CellSource for ReadPointSource<S> {
    fn peek(&self) -> Option<&Cell> {
        self.inner.peek()
    }

    fn advance(&mut self) -> Result<()> {
        self.inner.advance()?;
        self.skip_invisible()
    }

    fn seek(&mut self, key: &Cell) -> Result<()> {
        self.inner.seek(key)?;
        self.skip_invisible()
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
    use std::sync::Arc;

    /// A source that ignores read points, like a file.
    fn all_visible(cells: &[(&'static str, i64, u64)]) -> SegmentCursor {
        let segment = Arc::new(Segment::default());
        for (row, ts, seq) in cells {
            segment.insert(Cell::put(*row, "f", "q", *ts, "v").with_seq(*seq));
        }
        SegmentCursor::new(segment, u64::MAX)
    }

    #[test]
    fn hides_newer_cells_forwards_and_backwards() {
        let cells = [
            ("a", 1, 1),
            ("b", 2, 9),
            ("b", 1, 2),
            ("c", 1, 9),
            ("d", 1, 3),
        ];
        let mut source = ReadPointSource::new(all_visible(&cells), 5);
        source
            .seek(&Cell::first_on_row(bytes::Bytes::new()))
            .expect("memory");
        let mut seen = Vec::new();
        while let Some(c) = source.peek() {
            seen.push((c.row.clone(), c.timestamp));
            source.advance().expect("memory");
        }
        let rows: Vec<_> = seen
            .iter()
            .map(|(r, ts)| (String::from_utf8_lossy(r).into_owned(), *ts))
            .collect();
        assert_eq!(rows, [("a".into(), 1), ("b".into(), 1), ("d".into(), 1)]);
        source.seek_to_previous_row(b"d").expect("memory");
        assert_eq!(
            source.peek().map(|c| c.row.clone()),
            Some(bytes::Bytes::from_static(b"b"))
        );
        assert_eq!(source.peek().map(|c| c.timestamp), Some(1));
    }
}
