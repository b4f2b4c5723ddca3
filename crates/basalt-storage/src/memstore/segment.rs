//! One sorted, concurrent run of cells: a skiplist ([`super::list`]) whose nodes hold
//! the cells' entries in the segment's words ([`super::words`]).
//!
//! A cell takes its node's words and nothing else: a meta word, 1.33 links on average and
//! its entry rounded up to a word (`charge`). Cells read back are copies (the words cannot
//! be lent): a batch of them is copied into one buffer and each cell is a slice of it, so
//! a read costs one allocation per batch, not per cell.

use super::entry;
use super::list::List;
use super::node::Probe;
use super::words::{CacheLine, ChunkPool};
use basalt_types::Cell;
use bytes::Bytes;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes [`Segment::try_for_each`] copies out per batch.
const VISIT_BATCH_BYTES: usize = 64 * 1024;

/// Cells in cell order, inserted concurrently, read without locks.
#[derive(Debug)]
pub struct Segment {
    list: List,
    /// Where the segment's chunks go when it does, and come from.
    pool: Arc<ChunkPool>,
    counts: CacheLine<Counts>,
}

/// What every insert adds to.
#[derive(Debug)]
struct Counts {
    /// Cells seen (inserts that hid an identical key do not count).
    len: AtomicUsize,
    size_bytes: AtomicU64,
    /// The smallest timestamp seen, for skipping a segment by time range.
    min_timestamp: AtomicI64,
}

impl Default for Segment {
    /// An empty segment with a chunk pool of its own.
    fn default() -> Self {
        Self::with_pool(Arc::default())
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        self.list.words.release(&self.pool);
    }
}

impl Segment {
    /// An empty segment taking its chunks from (and giving them back to) `pool`.
    pub fn with_pool(pool: Arc<ChunkPool>) -> Self {
        Self {
            list: List::default(),
            pool,
            counts: CacheLine(Counts {
                len: AtomicUsize::new(0),
                size_bytes: AtomicU64::new(0),
                min_timestamp: AtomicI64::new(i64::MAX),
            }),
        }
    }

    /// Adds a cell (replacing one with an identical key); returns the bytes added: the
    /// words its node takes. The cell's bytes are copied: the caller's buffers are not kept.
    pub fn insert(&self, cell: Cell) -> u64 {
        let counts = &self.counts.0;
        if cell.timestamp() < counts.min_timestamp.load(Ordering::Relaxed) {
            counts
                .min_timestamp
                .fetch_min(cell.timestamp(), Ordering::Relaxed);
        }
        let inserted = self.list.insert(&self.pool, &cell);
        if !inserted.replaced {
            self.counts.0.len.fetch_add(1, Ordering::Relaxed);
        }
        let size = (inserted.words * 8) as u64;
        self.counts.0.size_bytes.fetch_add(size, Ordering::Relaxed);
        size
    }

    pub fn size_bytes(&self) -> u64 {
        self.counts.0.size_bytes.load(Ordering::Relaxed)
    }

    pub fn len(&self) -> usize {
        self.counts.0.len.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.list.first() == 0
    }

    pub fn min_timestamp(&self) -> i64 {
        self.counts.0.min_timestamp.load(Ordering::Relaxed)
    }

    /// Up to `max` cells at or after `from` (or after it, when `inclusive` is false),
    /// appended to `out`.
    pub fn read_from(&self, from: &Cell, inclusive: bool, max: usize, out: &mut Vec<Cell>) {
        let start = self.list.seek(&Probe::new(from), !inclusive);
        self.copy_run(start, max, usize::MAX, out);
    }

    /// The greatest cell strictly before `key`.
    pub fn last_before(&self, key: &Cell) -> Option<Cell> {
        self.newest_of(self.list.last_before(Some(&Probe::new(key))))
    }

    /// The greatest cell.
    pub fn last(&self) -> Option<Cell> {
        self.newest_of(self.list.last_before(None))
    }

    /// The cell readers see for `link`'s key: the first of its run of equal keys.
    fn newest_of(&self, link: u64) -> Option<Cell> {
        if link == 0 {
            return None;
        }
        let any = self.list.node(link).to_cell();
        let first = self.list.seek(&Probe::new(&any), false);
        Some(self.list.node(first).to_cell())
    }

    /// Lends every cell in order to `visit` (for flushing a frozen segment), copied out in
    /// batches of about 64 KiB; stops at the first error.
    pub fn try_for_each<E>(&self, mut visit: impl FnMut(&Cell) -> Result<(), E>) -> Result<(), E> {
        let mut at = self.list.first();
        let mut cells = Vec::new();
        while at != 0 {
            cells.clear();
            at = self.copy_run(at, usize::MAX, VISIT_BATCH_BYTES, &mut cells);
            cells.iter().try_for_each(&mut visit)?;
        }
        Ok(())
    }

    /// Copies the visible cells from `start` on into one buffer, until `cells_max` cells or
    /// `bytes_max` bytes, and appends them to `out`; returns the link where it stopped.
    fn copy_run(&self, start: u64, cells_max: usize, bytes_max: usize, out: &mut Vec<Cell>) -> u64 {
        let mut buf = Vec::with_capacity(bytes_max.min(cells_max.min(1024).saturating_mul(192)));
        let (mut at, mut cells) = (start, 0);
        while at != 0 && cells < cells_max && buf.len() < bytes_max {
            let at_len = buf.len();
            buf.extend_from_slice(&[0; 8]);
            let len = self.list.node(at).copy_out(&mut buf) as u64;
            buf[at_len..at_len + 8].copy_from_slice(&len.to_be_bytes());
            cells += 1;
            at = self.list.next_visible(at);
        }
        // The buffer holds each entry behind its length.
        let buf = Bytes::from(buf);
        let mut from = 0;
        while from < buf.len() {
            let len = u64::from_be_bytes(buf[from..from + 8].try_into().expect("8 bytes")) as usize;
            out.push(entry::to_cell(&buf.slice(from + 8..from + 8 + len)));
            from += 8 + len;
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::cell::compare_keys;

    /// Rows that share prefixes, end in zero bytes, or run past the stored prefix.
    fn tricky_rows() -> Vec<Vec<u8>> {
        let mut rows = Vec::new();
        for len in 0..=3 {
            let mut row = vec![0u8; len];
            loop {
                rows.push(row.clone());
                let Some(i) = row.iter().rposition(|&b| b != 0xff) else {
                    break;
                };
                row[i] = match row[i] {
                    0x00 => 0x01,
                    _ => 0xff,
                };
                row[i + 1..].iter_mut().for_each(|b| *b = 0);
            }
        }
        let long = b"user6284781860667377193".to_vec();
        for cut in [15, 16, 17, long.len()] {
            rows.push(long[..cut].to_vec());
            let mut zero = long[..cut].to_vec();
            zero.push(0);
            rows.push(zero);
        }
        rows.push(b"user6284781860667377194".to_vec());
        rows.push(b"user6284781860667300000".to_vec());
        rows
    }

    #[test]
    fn nodes_compare_exactly_as_cells_do() {
        let rows = tricky_rows();
        assert!(rows.len() >= 50);
        let cells: Vec<Cell> = rows
            .iter()
            .flat_map(|row| {
                [
                    Cell::put(row.clone(), "f", "q", 5, "v").with_seq(2),
                    Cell::put(row.clone(), "f", "q", 5, "v").with_seq(1),
                    Cell::put(row.clone(), "f", "r", 9, "v").with_seq(1),
                    Cell::put(row.clone(), "f", "r", 9, "v").with_ttl_ms(Some(3)),
                ]
            })
            .collect();
        let pool = Arc::new(ChunkPool::default());
        for a in &cells {
            let segment = Segment::with_pool(pool.clone());
            segment.insert(a.clone());
            let node = segment.list.node(segment.list.first());
            for b in &cells {
                let probe = Probe::new(b);
                assert_eq!(node.cmp(&probe), compare_keys(a, b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn cells_of_every_shape_read_back_whole() {
        use crate::memstore::words::IN_CHUNK_MAX;
        use basalt_types::CellType;
        let mut cells = vec![
            Cell::put("", "", "", 0, ""),
            Cell::put("a", "f", "q", 1, "").with_ttl_ms(Some(9)),
            Cell::put("a", vec![b'f'; 300], "q", 1, "wide family, short"),
            Cell::put(vec![b'r'; 70_000], "f", "q", 1, "wide row").with_ttl_ms(Some(1)),
            Cell::put("b", "f", "q", 1, vec![7u8; IN_CHUNK_MAX + 1]),
            Cell::put("b", "f", vec![b'q'; 300], 1, vec![8u8; 301]),
            Cell::marker("c", "f", "", -5, CellType::DeleteFamily).with_seq(u64::MAX),
        ];
        let segment = Segment::default();
        for cell in cells.iter().rev() {
            segment.insert(cell.clone());
        }
        cells.sort_by(compare_keys);
        let mut read = Vec::new();
        segment.read_from(&Cell::first_on_row(""), true, usize::MAX, &mut read);
        assert_eq!(read, cells);
        assert_eq!(segment.last(), cells.last().cloned());
        assert_eq!(segment.last_before(&cells[3]), Some(cells[2].clone()));
    }

    #[test]
    fn an_empty_segment_is_small() {
        let bytes = std::mem::size_of::<Segment>();
        assert!(bytes < 1024, "{bytes} bytes");
    }

    #[test]
    fn a_segment_returns_cells_in_cell_order() {
        let segment = Segment::default();
        let mut cells: Vec<Cell> = tricky_rows()
            .into_iter()
            .rev()
            .map(|row| Cell::put(row, "f", "q", 1, "v").with_seq(1))
            .collect();
        for cell in &cells {
            segment.insert(cell.clone());
        }
        cells.sort_by(compare_keys);
        let mut lent = Vec::new();
        segment
            .try_for_each(|cell| {
                lent.push(cell.clone());
                Ok::<_, ()>(())
            })
            .expect("never fails");
        assert_eq!(lent, cells);
    }
}
