//! Merging sorted sources into one stream of cells.
//!
//! Forwards, the heap yields the smallest cell of all sources. Reversed, rows come in
//! descending order but each row's cells still in cell order, as HBase's reversed heap
//! does: rows compare backwards, everything after the row forwards. A source that reads
//! past the end of the current row is stepped back to its previous row instead.
//!
//! | source | forward peek order | reversed: rows descending |
//! |--------|--------------------|---------------------------|
//! | memstore | b/f:q@5          | c/f:a@1 |
//! | file 1   | a/f:q@9          | b/f:q@5 |
//! | file 2   | c/f:a@1          | a/f:q@9 |
//!
//! The number of sources is small (a memstore segment or two and a few files), so the
//! heap keeps the index of the current source and finds the next one by a linear pass.
//! It also keeps the runner-up, the best of the other sources: a step of the current source
//! that leaves it ahead of the runner-up (the rest of a row written by one put, say) costs
//! one comparison instead of a pass over every source; the pass runs when it falls behind.

use super::CellSource;
use crate::Result;
use basalt_types::Cell;
use bytes::Bytes;
use std::cmp::Ordering;

pub struct MergeHeap {
    sources: Vec<Box<dyn CellSource>>,
    reversed: bool,
    current: Option<usize>,
    /// The source, other than `current`, whose cell comes first; it does not move while
    /// only `current` steps.
    runner_up: Option<usize>,
}

impl std::fmt::Debug for MergeHeap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergeHeap")
            .field("sources", &self.sources.len())
            .field("reversed", &self.reversed)
            .field("current", &self.current)
            .finish()
    }
}

/// The smallest row after `row`: `row` followed by a zero byte.
pub fn row_successor(row: &[u8]) -> Bytes {
    let mut next = Vec::with_capacity(row.len() + 1);
    next.extend_from_slice(row);
    next.push(0);
    Bytes::from(next)
}

impl MergeHeap {
    /// Sources must not be positioned yet; call one of the `position_*` methods first.
    pub fn new(sources: Vec<Box<dyn CellSource>>, reversed: bool) -> Self {
        Self {
            sources,
            reversed,
            current: None,
            runner_up: None,
        }
    }

    fn compare(&self, a: &Cell, b: &Cell) -> Ordering {
        if self.reversed {
            b.row().cmp(a.row()).then_with(|| a.cmp_key(b))
        } else {
            a.cmp_key(b)
        }
    }

    /// Finds the current source and the runner-up by a pass over every source (ties go to
    /// the earlier source).
    fn pick_current(&mut self) {
        let mut best: Option<(usize, &Cell)> = None;
        let mut second: Option<(usize, &Cell)> = None;
        for (i, source) in self.sources.iter().enumerate() {
            let Some(cell) = source.peek() else { continue };
            if best.is_none_or(|(_, b)| self.compare(cell, b).is_lt()) {
                second = best;
                best = Some((i, cell));
            } else if second.is_none_or(|(_, b)| self.compare(cell, b).is_lt()) {
                second = Some((i, cell));
            }
        }
        self.current = best.map(|(i, _)| i);
        self.runner_up = second.map(|(i, _)| i);
    }

    /// After the current source stepped: keeps it if it is still ahead of the runner-up
    /// (one comparison), else picks again.
    fn current_stepped(&mut self) {
        let Some(current) = self.current else { return };
        let Some(cell) = self.sources[current].peek() else {
            return self.pick_current();
        };
        let still_ahead = match self
            .runner_up
            .and_then(|r| Some((r, self.sources[r].peek()?)))
        {
            Some((r, other)) => self.compare(cell, other).then(current.cmp(&r)).is_lt(),
            None => true,
        };
        if !still_ahead {
            self.pick_current();
        }
    }

    pub fn is_reversed(&self) -> bool {
        self.reversed
    }

    pub fn peek(&self) -> Option<&Cell> {
        self.current.and_then(|i| self.sources[i].peek())
    }

    /// Moves past the current cell.
    pub fn advance(&mut self) -> Result<()> {
        self.take().map(drop)
    }

    /// Moves past the current cell and hands it over (no copy); `None` once exhausted.
    pub fn take(&mut self) -> Result<Option<Cell>> {
        let Some(i) = self.current else {
            return Ok(None);
        };
        let source = &mut self.sources[i];
        let cell = source.take()?;
        if self.reversed {
            if let Some(row) = cell.as_ref().map(Cell::row_bytes) {
                if source.peek().is_none_or(|c| c.row() != &row[..]) {
                    source.seek_to_previous_row(&row)?;
                }
            }
        }
        self.current_stepped();
        Ok(cell)
    }

    /// [`Self::take`] straight onto the end of `out`; false once exhausted.
    pub fn take_into(&mut self, out: &mut Vec<Cell>) -> Result<bool> {
        let Some(i) = self.current else {
            return Ok(false);
        };
        let source = &mut self.sources[i];
        if !source.take_into(out)? {
            self.pick_current();
            return Ok(false);
        }
        if self.reversed {
            let row = &out.last().expect("taken above").row();
            if source.peek().is_none_or(|c| c.row() != *row) {
                source.seek_to_previous_row(row)?;
            }
        }
        self.current_stepped();
        Ok(true)
    }

    /// Moves every source that is behind `key` to the first cell `>= key`. `key` must not be
    /// behind the heap's position (seeks within a scan only go forward); reversed, `key`
    /// must lie in the current row.
    pub fn seek(&mut self, key: &Cell) -> Result<()> {
        for source in &mut self.sources {
            // Reversed, sources already stepped back to an earlier row stay there.
            let behind = source.peek().is_some_and(|c| {
                c.cmp_key(key).is_lt() && (!self.reversed || c.row() == key.row())
            });
            if behind {
                source.seek(key)?;
                if self.reversed && source.peek().is_none_or(|c| c.row() != key.row()) {
                    source.seek_to_previous_row(key.row())?;
                }
            }
        }
        self.pick_current();
        Ok(())
    }

    /// Follows a filter's seek hint from `current`: forwards anywhere ahead; reversed,
    /// within the current row or to an earlier row. A hint that does not move the scan
    /// in its direction steps one cell instead.
    pub fn seek_hint(&mut self, current: &Cell, hint: &Cell) -> Result<()> {
        let ahead = if self.reversed {
            hint.row() < current.row()
                || (hint.row() == current.row() && hint.cmp_key(current).is_gt())
        } else {
            hint.cmp_key(current).is_gt()
        };
        if !ahead {
            return self.advance();
        }
        if self.reversed && hint.row() != current.row() {
            self.position(&hint.row_bytes(), true)?;
            if self.peek().is_some_and(|c| c.row() == hint.row()) {
                self.seek(hint)?;
            }
            return Ok(());
        }
        self.seek(hint)
    }

    /// Skips the rest of `row`: to the next row forwards, the previous row reversed.
    pub fn next_row(&mut self, row: &Bytes) -> Result<()> {
        if self.reversed {
            for source in &mut self.sources {
                if source.peek().is_some_and(|c| c.row() >= *row) {
                    source.seek_to_previous_row(row)?;
                }
            }
            self.pick_current();
            Ok(())
        } else {
            self.seek(&Cell::first_on_row(row_successor(row)))
        }
    }

    /// Positions every source at the scan's start: the first row at or after `row`
    /// forwards (after it when not `inclusive`), the last row at or before it reversed.
    /// An empty `row` means the beginning in the scan's direction.
    pub fn position(&mut self, row: &Bytes, inclusive: bool) -> Result<()> {
        // One seek key for every source (a seek key is a cell: built once, not per source).
        if !self.reversed {
            let key = if row.is_empty() || inclusive {
                Cell::first_on_row(row)
            } else {
                Cell::first_on_row(row_successor(row))
            };
            for source in &mut self.sources {
                source.seek(&key)?;
            }
        } else if row.is_empty() {
            for source in &mut self.sources {
                source.seek_to_last_row()?;
            }
        } else if inclusive {
            let key = Cell::first_on_row(row);
            for source in &mut self.sources {
                source.seek(&key)?;
                if source.peek().is_none_or(|c| c.row() != *row) {
                    source.seek_to_previous_row(row)?;
                }
            }
        } else {
            for source in &mut self.sources {
                source.seek_to_previous_row(row)?;
            }
        }
        self.pick_current();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memstore::{Segment, SegmentCursor};
    use std::sync::Arc;

    fn source(cells: &[(&'static str, &'static str, i64)]) -> Box<dyn CellSource> {
        let segment = Arc::new(Segment::default());
        for (row, q, ts) in cells {
            segment.insert(Cell::put(*row, "f", *q, *ts, "v").with_seq(1));
        }
        Box::new(SegmentCursor::new(segment, u64::MAX))
    }

    fn heap(reversed: bool) -> MergeHeap {
        MergeHeap::new(
            vec![
                source(&[("b", "q", 5), ("d", "a", 1)]),
                source(&[("a", "q", 9), ("b", "q", 7), ("b", "z", 1)]),
                source(&[("c", "a", 1)]),
            ],
            reversed,
        )
    }

    fn drain(heap: &mut MergeHeap) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(c) = heap.peek() {
            out.push(format!(
                "{}/{}@{}",
                String::from_utf8_lossy(c.row()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp()
            ));
            heap.advance().expect("memory");
        }
        out
    }

    /// Random sources (rows, columns and timestamps overlapping across them, identical keys
    /// in several) merged both ways, against one sorted list of all their cells.
    #[test]
    fn random_sources_merge_as_one_sorted_list() {
        const ROWS: [&str; 6] = ["a", "b", "ba", "c", "d", "e"];
        const QUALIFIERS: [&str; 3] = ["a", "b", "c"];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let sources: Vec<Vec<(&'static str, &'static str, i64)>> = (0..1 + next(5))
                .map(|_| {
                    (0..next(30))
                        .map(|_| (ROWS[next(6)], QUALIFIERS[next(3)], 1 + next(3) as i64))
                        .collect()
                })
                .collect();
            for reversed in [false, true] {
                let mut all: Vec<Cell> = sources
                    .iter()
                    .flat_map(|cells| {
                        let mut unique: Vec<Cell> = cells
                            .iter()
                            .map(|(r, q, ts)| Cell::put(*r, "f", *q, *ts, "v").with_seq(1))
                            .collect();
                        unique.sort_by(|a, b| a.cmp_key(b));
                        unique.dedup_by(|a, b| a.cmp_key(b).is_eq());
                        unique
                    })
                    .collect();
                all.sort_by(|a, b| {
                    let rows = if reversed {
                        b.row().cmp(a.row())
                    } else {
                        a.row().cmp(b.row())
                    };
                    rows.then_with(|| a.cmp_key(b))
                });
                let expected: Vec<String> = all
                    .iter()
                    .map(|c| {
                        format!(
                            "{}/{}@{}",
                            String::from_utf8_lossy(c.row()),
                            String::from_utf8_lossy(c.qualifier()),
                            c.timestamp()
                        )
                    })
                    .collect();
                let mut h = MergeHeap::new(sources.iter().map(|c| source(c)).collect(), reversed);
                h.position(&Bytes::new(), true).expect("memory");
                assert_eq!(drain(&mut h), expected, "reversed: {reversed}, {sources:?}");
            }
        }
    }

    #[test]
    fn forward_merges_in_cell_order() {
        let mut h = heap(false);
        h.position(&Bytes::new(), true).expect("memory");
        assert_eq!(
            drain(&mut h),
            ["a/q@9", "b/q@7", "b/q@5", "b/z@1", "c/a@1", "d/a@1"]
        );
    }

    #[test]
    fn reversed_yields_rows_descending_cells_ascending() {
        let mut h = heap(true);
        h.position(&Bytes::new(), true).expect("memory");
        assert_eq!(
            drain(&mut h),
            ["d/a@1", "c/a@1", "b/q@7", "b/q@5", "b/z@1", "a/q@9"]
        );
    }

    #[test]
    fn reversed_start_is_inclusive_or_exclusive() {
        let mut h = heap(true);
        h.position(&Bytes::from_static(b"c"), true).expect("memory");
        assert_eq!(
            h.peek().map(|c| c.row_bytes()),
            Some(Bytes::from_static(b"c"))
        );
        let mut h = heap(true);
        h.position(&Bytes::from_static(b"c"), false)
            .expect("memory");
        assert_eq!(drain(&mut h), ["b/q@7", "b/q@5", "b/z@1", "a/q@9"]);
    }

    #[test]
    fn reversed_seek_past_the_last_row_steps_back() {
        let mut h = MergeHeap::new(
            vec![source(&[("a", "q", 1), ("b", "q", 2), ("b", "q", 1)])],
            true,
        );
        h.position(&Bytes::new(), true).expect("memory");
        h.seek(&Cell::last_on_column(
            Bytes::from_static(b"b"),
            Bytes::from_static(b"f"),
            Bytes::from_static(b"q"),
        ))
        .expect("memory");
        assert_eq!(drain(&mut h), ["a/q@1"]);
    }

    #[test]
    fn next_row_and_seek_skip_forward() {
        let mut h = heap(false);
        h.position(&Bytes::from_static(b"b"), true).expect("memory");
        h.seek(&Cell::last_on_column(
            Bytes::from_static(b"b"),
            Bytes::from_static(b"f"),
            Bytes::from_static(b"q"),
        ))
        .expect("memory");
        assert_eq!(
            h.peek().map(|c| c.qualifier_bytes()),
            Some(Bytes::from_static(b"z"))
        );
        h.next_row(&Bytes::from_static(b"b")).expect("memory");
        assert_eq!(drain(&mut h), ["c/a@1", "d/a@1"]);
        let mut r = heap(true);
        r.position(&Bytes::new(), true).expect("memory");
        r.next_row(&Bytes::from_static(b"d")).expect("memory");
        r.next_row(&Bytes::from_static(b"c")).expect("memory");
        assert_eq!(drain(&mut r), ["b/q@7", "b/q@5", "b/z@1", "a/q@9"]);
    }
}
