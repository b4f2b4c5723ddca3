//! One sorted, concurrent run of cells.
//!
//! The skiplist holds each cell as its encoded entry ([`super::entry`]): a 32-byte `Bytes`
//! slice of an arena chunk ([`super::arena`]) and a 16-byte row prefix, rather than a
//! 96-byte `Cell`. Comparisons
//! read the key fields from the entry's header and bytes; a cell read back is a slice of
//! the entry (one reference count, no copy).

use super::arena::{Arena, ChunkPool};
use super::entry::{self, View};
use basalt_types::Cell;
use bytes::Bytes;
use crossbeam_skiplist::SkipSet;
use std::cmp::Ordering as KeyOrdering;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Cells in cell order, inserted concurrently, read without locks.
#[derive(Debug)]
pub struct Segment {
    cells: SkipSet<Entry>,
    arena: Arena,
    /// Where the arena's chunks go when the segment does, and come from.
    pool: Arc<ChunkPool>,
    size_bytes: AtomicU64,
    min_timestamp: AtomicI64Min,
}

/// The smallest timestamp seen, for skipping a segment by time range.
#[derive(Debug)]
struct AtomicI64Min(std::sync::atomic::AtomicI64);

impl Default for AtomicI64Min {
    fn default() -> Self {
        Self(std::sync::atomic::AtomicI64::new(i64::MAX))
    }
}

/// What a skiplist node adds to the [`Entry`] it holds: the reference count and height (8)
/// and its tower of links (two on average, 16: a node reaches each next level with
/// probability 1/2).
const NODE_OVERHEAD_BYTES: usize = 8 + 2 * 8;

/// The memory one cell takes in a segment: its entry in a chunk and the node holding it.
/// This count decides flushes and the global memstore limit, so it is the memory the cell
/// really takes (`tests/memstore_accounting.rs` compares it with resident memory).
fn charge(entry_len: usize) -> u64 {
    (entry_len + std::mem::size_of::<Entry>() + NODE_OVERHEAD_BYTES) as u64
}

impl Default for Segment {
    /// An empty segment with a chunk pool of its own.
    fn default() -> Self {
        Self::with_pool(Arc::default())
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        self.arena.release(&self.pool);
    }
}

impl Segment {
    /// An empty segment taking its chunks from (and giving them back to) `pool`.
    pub fn with_pool(pool: Arc<ChunkPool>) -> Self {
        Self {
            cells: SkipSet::new(),
            arena: Arena::default(),
            pool,
            size_bytes: AtomicU64::new(0),
            min_timestamp: AtomicI64Min::default(),
        }
    }

    /// Adds a cell (replacing one with an identical key); returns the bytes added. The
    /// cell's bytes are copied into the segment's arena: the caller's buffers are not kept.
    pub fn insert(&self, cell: Cell) -> u64 {
        let len = entry::encoded_len(&cell);
        let bytes = self
            .arena
            .alloc(&self.pool, len, |out| entry::encode(&cell, out));
        self.min_timestamp
            .0
            .fetch_min(cell.timestamp(), Ordering::Relaxed);
        self.cells.insert(Entry::new(bytes, cell.row()));
        let size = charge(len);
        self.size_bytes.fetch_add(size, Ordering::Relaxed);
        size
    }

    pub fn size_bytes(&self) -> u64 {
        self.size_bytes.load(Ordering::Relaxed)
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn min_timestamp(&self) -> i64 {
        self.min_timestamp.0.load(Ordering::Relaxed)
    }

    /// Up to `max` cells at or after `from` (or after it, when `inclusive` is false),
    /// appended to `out`.
    pub fn read_from(&self, from: &Cell, inclusive: bool, max: usize, out: &mut Vec<Cell>) {
        let key = Entry::probe(from);
        let lower = if inclusive {
            Bound::Included(&key)
        } else {
            Bound::Excluded(&key)
        };
        out.extend(
            self.cells
                .range((lower, Bound::Unbounded))
                .take(max)
                .map(|e| entry::to_cell(&e.value().bytes)),
        );
    }

    /// The greatest cell strictly before `key`.
    pub fn last_before(&self, key: &Cell) -> Option<Cell> {
        let key = Entry::probe(key);
        self.cells
            .upper_bound(Bound::Excluded(&key))
            .map(|e| entry::to_cell(&e.value().bytes))
    }

    /// The greatest cell.
    pub fn last(&self) -> Option<Cell> {
        self.cells.back().map(|e| entry::to_cell(&e.value().bytes))
    }

    /// Lends every cell in order to `visit` (for flushing a frozen segment without
    /// copying it); stops at the first error.
    pub fn try_for_each<E>(&self, mut visit: impl FnMut(&Cell) -> Result<(), E>) -> Result<(), E> {
        self.cells
            .iter()
            .try_for_each(|e| visit(&entry::to_cell(&e.value().bytes)))
    }
}

/// A cell in the skiplist: its encoded entry, compared by the cell order, with the first
/// [`ROW_PREFIX_LEN`] bytes of its row beside it. An insert compares its key with a few
/// dozen others on the way down the list; most differ early in the row, and the prefix
/// decides those comparisons without following the entry's pointer into its chunk.
///
/// The prefix is the row's first bytes, zero-padded, read as two big-endian numbers, so
/// prefixes compare as the rows do whenever they differ:
///
/// | row        | prefix (hex, first 4 of 16 bytes) | decided by      |
/// |------------|-----------------------------------|-----------------|
/// | `ab`       | `61 62 00 00`                     |                 |
/// | `ab\x00`   | `61 62 00 00`                     | the full compare (prefixes equal) |
/// | `ab\x01`   | `61 62 01 00`                     | the prefix      |
/// | `b`        | `62 00 00 00`                     | the prefix      |
///
/// It costs 16 bytes a cell and saves a cache miss per comparison: 1.6x the put rate of the
/// entry without it (`docs/performance.md`, "Compact memstore"). Two `u64`s rather than a
/// `u128`, so the entry keeps 8-byte alignment and its node needs no padding. Laid out last
/// (`repr(C)`): the node's tower of links follows the entry, and a search reads both at
/// every node it passes.
#[derive(Debug)]
#[repr(C)]
struct Entry {
    bytes: Bytes,
    row_prefix: [u64; 2],
}

/// Row bytes held in [`Entry::row_prefix`].
const ROW_PREFIX_LEN: usize = 16;

impl Entry {
    fn new(bytes: Bytes, row: &[u8]) -> Self {
        let mut prefix = [0; ROW_PREFIX_LEN];
        let len = row.len().min(ROW_PREFIX_LEN);
        prefix[..len].copy_from_slice(&row[..len]);
        let half = |at: usize| u64::from_be_bytes(prefix[at..at + 8].try_into().expect("8 bytes"));
        Self {
            bytes,
            row_prefix: [half(0), half(8)],
        }
    }

    /// A search key for `cell` (encoded into a buffer of its own, not the arena).
    fn probe(cell: &Cell) -> Self {
        let mut out = Vec::with_capacity(entry::encoded_len(cell));
        entry::encode(cell, &mut out);
        Self::new(Bytes::from(out), cell.row())
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == KeyOrdering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<KeyOrdering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> KeyOrdering {
        self.row_prefix
            .cmp(&other.row_prefix)
            .then_with(|| View::new(&self.bytes).cmp_key(&View::new(&other.bytes)))
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
    fn entries_sort_exactly_as_cells_do() {
        let rows = tricky_rows();
        assert!(rows.len() >= 50);
        let cells: Vec<Cell> = rows
            .iter()
            .flat_map(|row| {
                [
                    Cell::put(row.clone(), "f", "q", 5, "v").with_seq(2),
                    Cell::put(row.clone(), "f", "q", 5, "v").with_seq(1),
                    Cell::put(row.clone(), "f", "r", 9, "v").with_seq(1),
                ]
            })
            .collect();
        for a in &cells {
            for b in &cells {
                let entries = Entry::probe(a).cmp(&Entry::probe(b));
                assert_eq!(entries, compare_keys(a, b), "{a:?} vs {b:?}");
            }
        }
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
