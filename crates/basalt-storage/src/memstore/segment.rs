//! One sorted, concurrent run of cells.

use basalt_types::cell::compare_keys;
use basalt_types::Cell;
use crossbeam_skiplist::SkipSet;
use std::cmp::Ordering as KeyOrdering;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

/// Cells in cell order, inserted concurrently, read without locks.
#[derive(Debug, Default)]
pub struct Segment {
    cells: SkipSet<Entry>,
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

/// What a skiplist node adds to the [`Entry`] it holds: the reference count and height (8),
/// its tower of links (two on average, 16: a node reaches each next level with probability
/// 1/2), and padding to the entry's 16-byte alignment (8).
const NODE_OVERHEAD_BYTES: usize = 8 + 2 * 8 + 8;

/// The memory one cell takes in a segment: its bytes (in the Put's shared buffer) and the
/// node holding it. This count decides flushes and the global memstore limit, so it is the
/// memory the cell really takes: counting a fixed 64 bytes for the node, as `Cell::heap_size`
/// does, let a memstore grow to about twice its configured size.
fn charge(cell: &Cell) -> u64 {
    let bytes =
        cell.row().len() + cell.family().len() + cell.qualifier().len() + cell.value().len();
    (bytes + std::mem::size_of::<Entry>() + NODE_OVERHEAD_BYTES) as u64
}

impl Segment {
    /// Adds a cell (replacing one with an identical key); returns the bytes added.
    pub fn insert(&self, cell: Cell) -> u64 {
        let size = charge(&cell);
        self.min_timestamp
            .0
            .fetch_min(cell.timestamp(), Ordering::Relaxed);
        self.cells.insert(Entry::new(cell));
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
        let key = Entry::new(from.clone());
        let lower = if inclusive {
            Bound::Included(&key)
        } else {
            Bound::Excluded(&key)
        };
        out.extend(
            self.cells
                .range((lower, Bound::Unbounded))
                .take(max)
                .map(|e| e.value().cell.clone()),
        );
    }

    /// The greatest cell strictly before `key`.
    pub fn last_before(&self, key: &Cell) -> Option<Cell> {
        let key = Entry::new(key.clone());
        self.cells
            .upper_bound(Bound::Excluded(&key))
            .map(|e| e.value().cell.clone())
    }

    /// The greatest cell.
    pub fn last(&self) -> Option<Cell> {
        self.cells.back().map(|e| e.value().cell.clone())
    }

    /// Lends every cell in order to `visit` (for flushing a frozen segment without
    /// copying it); stops at the first error.
    pub fn try_for_each<E>(&self, mut visit: impl FnMut(&Cell) -> Result<(), E>) -> Result<(), E> {
        self.cells.iter().try_for_each(|e| visit(&e.value().cell))
    }
}

/// A cell in the skiplist, with the first [`ROW_PREFIX_LEN`] bytes of its row stored
/// beside it. An insert compares its key with a few dozen others on the way down the list;
/// most of them differ early in the row, and the prefix decides those comparisons without
/// following the row's pointer to another cache line.
///
/// The prefix is the row's first bytes, zero-padded, read as a big-endian number, so
/// prefixes compare as the rows do whenever they differ:
///
/// | row        | prefix (hex, first 4 of 16 bytes) | decided by      |
/// |------------|-----------------------------------|-----------------|
/// | `ab`       | `61 62 00 00`                     |                 |
/// | `ab\x00`   | `61 62 00 00`                     | the full compare (prefixes equal) |
/// | `ab\x01`   | `61 62 01 00`                     | the prefix      |
/// | `b`        | `62 00 00 00`                     | the prefix      |
///
/// The prefix is laid out last (`repr(C)`): the skiplist node stores its tower of links
/// right after the entry, and a search reads both at every node it passes.
#[derive(Debug)]
#[repr(C)]
struct Entry {
    cell: Cell,
    row_prefix: u128,
}

/// Row bytes held in [`Entry::row_prefix`].
const ROW_PREFIX_LEN: usize = 16;

impl Entry {
    fn new(cell: Cell) -> Self {
        let mut prefix = [0; ROW_PREFIX_LEN];
        let len = cell.row().len().min(ROW_PREFIX_LEN);
        prefix[..len].copy_from_slice(&cell.row()[..len]);
        Self {
            row_prefix: u128::from_be_bytes(prefix),
            cell,
        }
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
            .then_with(|| compare_keys(&self.cell, &other.cell))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for cut in [
            ROW_PREFIX_LEN - 1,
            ROW_PREFIX_LEN,
            ROW_PREFIX_LEN + 1,
            long.len(),
        ] {
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
                let entries = Entry::new(a.clone()).cmp(&Entry::new(b.clone()));
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
