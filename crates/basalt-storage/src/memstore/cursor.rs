//! A cursor over one segment at one MVCC read point.
//!
//! The skiplist's own iterators borrow it, so the cursor keeps the segment by `Arc` and
//! refills a small buffer of cells from the last key it returned: one skiplist search per
//! batch of cells rather than per cell. Batches start small after each seek — a get or a
//! seek to the next row mostly needs a few cells, and each cell fetched is a copy — and
//! double with each refill up to [`REFILL_MAX`] for long scans.

use super::Segment;
use crate::scanner::CellSource;
use crate::Result;
use basalt_types::Cell;
use std::collections::VecDeque;
use std::sync::Arc;

/// Cells fetched by the first skiplist search after a seek.
const REFILL_MIN: usize = 8;
/// Cells fetched per skiplist search, at most.
const REFILL_MAX: usize = 64;

/// A [`CellSource`] over a [`Segment`], hiding cells newer than its read point.
#[derive(Debug)]
pub struct SegmentCursor {
    segment: Arc<Segment>,
    read_point: u64,
    /// Visible cells from the current position on; front is the current cell.
    buffer: VecDeque<Cell>,
    /// The last cell fetched from the skiplist (visible or not): where the next refill starts.
    fetched_until: Option<Cell>,
    exhausted: bool,
    /// Cells the next skiplist search fetches.
    refill: usize,
}

impl SegmentCursor {
    pub fn new(segment: Arc<Segment>, read_point: u64) -> Self {
        Self {
            segment,
            read_point,
            buffer: VecDeque::new(),
            fetched_until: None,
            exhausted: true,
            refill: REFILL_MIN,
        }
    }

    /// Refills until the buffer holds a visible cell or the segment ends.
    fn fill(&mut self) {
        let mut batch = Vec::new();
        while self.buffer.is_empty() && !self.exhausted {
            batch.clear();
            self.refill = (self.refill * 2).min(REFILL_MAX);
            match &self.fetched_until {
                Some(last) => self.segment.read_from(last, false, self.refill, &mut batch),
                None => return,
            }
            if batch.len() < self.refill {
                self.exhausted = true;
            }
            if let Some(last) = batch.last() {
                self.fetched_until = Some(last.clone());
            }
            let read_point = self.read_point;
            self.buffer
                .extend(batch.drain(..).filter(|c| c.seq_id() <= read_point));
        }
    }

    fn reposition(&mut self, key: &Cell, inclusive: bool) {
        self.buffer.clear();
        self.refill = REFILL_MIN;
        let mut batch = Vec::with_capacity(self.refill);
        self.segment
            .read_from(key, inclusive, self.refill, &mut batch);
        self.exhausted = batch.len() < self.refill;
        self.fetched_until = batch.last().cloned();
        let read_point = self.read_point;
        self.buffer
            .extend(batch.into_iter().filter(|c| c.seq_id() <= read_point));
        self.fill();
    }

    /// The greatest row `< row` holding a visible cell.
    fn previous_visible_row(&self, row: &[u8]) -> Option<bytes::Bytes> {
        let mut bound = Cell::first_on_row(bytes::Bytes::copy_from_slice(row));
        loop {
            let candidate = self.segment.last_before(&bound)?;
            if candidate.seq_id() <= self.read_point {
                return Some(candidate.row_bytes());
            }
            // The newest cell of that row is invisible: look at the rest of the row first.
            let first = Cell::first_on_row(candidate.row_bytes());
            let mut cells = Vec::new();
            self.segment.read_from(&first, true, usize::MAX, &mut cells);
            let visible = cells
                .iter()
                .take_while(|c| c.row() == candidate.row())
                .any(|c| c.seq_id() <= self.read_point);
            if visible {
                return Some(candidate.row_bytes());
            }
            bound = first;
        }
    }
}

impl CellSource for SegmentCursor {
    fn peek(&self) -> Option<&Cell> {
        self.buffer.front()
    }

    fn take(&mut self) -> Result<Option<Cell>> {
        let cell = self.buffer.pop_front();
        self.fill();
        Ok(cell)
    }

    fn take_into(&mut self, out: &mut Vec<Cell>) -> Result<bool> {
        let Some(cell) = self.buffer.pop_front() else {
            return Ok(false);
        };
        out.push(cell);
        self.fill();
        Ok(true)
    }

    fn seek(&mut self, key: &Cell) -> Result<()> {
        // A seek forward within the buffer needs no skiplist search.
        if let (Some(front), Some(back)) = (self.buffer.front(), self.buffer.back()) {
            if front.cmp_key(key).is_le() && back.cmp_key(key).is_ge() {
                while self.buffer.front().is_some_and(|c| c.cmp_key(key).is_lt()) {
                    self.buffer.pop_front();
                }
                return Ok(());
            }
        }
        self.reposition(key, true);
        Ok(())
    }

    fn seek_to_previous_row(&mut self, row: &[u8]) -> Result<()> {
        match self.previous_visible_row(row) {
            Some(previous) => self.reposition(&Cell::first_on_row(previous), true),
            None => {
                self.buffer.clear();
                self.exhausted = true;
            }
        }
        Ok(())
    }

    fn seek_to_last_row(&mut self) -> Result<()> {
        match self.segment.last() {
            Some(last) => {
                let mut after_last = last.row().to_vec();
                after_last.push(0);
                self.seek_to_previous_row(&after_last)
            }
            None => {
                self.buffer.clear();
                self.exhausted = true;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(cells: &[(&'static str, i64, u64)]) -> Arc<Segment> {
        let segment = Arc::new(Segment::default());
        for (row, ts, seq) in cells {
            segment.insert(Cell::put(*row, "f", "q", *ts, "v").with_seq(*seq));
        }
        segment
    }

    fn drain(cursor: &mut SegmentCursor) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        while let Some(c) = cursor.peek() {
            out.push((String::from_utf8_lossy(c.row()).into_owned(), c.timestamp()));
            cursor.advance().expect("memory");
        }
        out
    }

    #[test]
    fn hides_cells_above_the_read_point() {
        let seg = segment(&[("a", 1, 1), ("b", 1, 5), ("c", 1, 2)]);
        let mut cursor = SegmentCursor::new(seg, 2);
        cursor
            .seek(&Cell::first_on_row(bytes::Bytes::new()))
            .expect("memory");
        assert_eq!(drain(&mut cursor), vec![("a".into(), 1), ("c".into(), 1)]);
    }

    #[test]
    fn walks_many_cells_across_refills() {
        let seg = Arc::new(Segment::default());
        for i in 0..500u64 {
            seg.insert(Cell::put(format!("r{i:04}"), "f", "q", 1, "v").with_seq(i % 7));
        }
        let mut cursor = SegmentCursor::new(seg, 3);
        cursor
            .seek(&Cell::first_on_row(bytes::Bytes::from_static(b"r0100")))
            .expect("memory");
        let rows = drain(&mut cursor);
        let expected: Vec<_> = (100..500u64).filter(|i| i % 7 <= 3).collect();
        assert_eq!(rows.len(), expected.len());
        assert_eq!(rows[0].0, format!("r{:04}", expected[0]));
    }

    #[test]
    fn steps_backwards_over_invisible_rows() {
        let seg = segment(&[("a", 1, 1), ("b", 1, 9), ("c", 2, 1), ("c", 1, 9)]);
        let mut cursor = SegmentCursor::new(seg, 5);
        cursor.seek_to_last_row().expect("memory");
        assert_eq!(cursor.peek().map(|c| c.timestamp()), Some(2));
        cursor.seek_to_previous_row(b"c").expect("memory");
        assert_eq!(
            cursor.peek().map(|c| c.row_bytes()),
            Some(bytes::Bytes::from_static(b"a"))
        );
        cursor.seek_to_previous_row(b"a").expect("memory");
        assert!(cursor.peek().is_none());
    }
}
