//! One sorted, concurrent run of cells.

use basalt_types::cell::KeyOrdered;
use basalt_types::Cell;
use crossbeam_skiplist::SkipSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

/// Cells in cell order, inserted concurrently, read without locks.
#[derive(Debug, Default)]
pub struct Segment {
    cells: SkipSet<KeyOrdered>,
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

impl Segment {
    /// Adds a cell (replacing one with an identical key); returns the bytes added.
    pub fn insert(&self, cell: Cell) -> u64 {
        let size = cell.heap_size() as u64;
        self.min_timestamp
            .0
            .fetch_min(cell.timestamp, Ordering::Relaxed);
        self.cells.insert(KeyOrdered(cell));
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
        let key = KeyOrdered(from.clone());
        let lower = if inclusive {
            Bound::Included(&key)
        } else {
            Bound::Excluded(&key)
        };
        out.extend(
            self.cells
                .range((lower, Bound::Unbounded))
                .take(max)
                .map(|e| e.value().0.clone()),
        );
    }

    /// The greatest cell strictly before `key`.
    pub fn last_before(&self, key: &Cell) -> Option<Cell> {
        let key = KeyOrdered(key.clone());
        self.cells
            .upper_bound(Bound::Excluded(&key))
            .map(|e| e.value().0.clone())
    }

    /// The greatest cell.
    pub fn last(&self) -> Option<Cell> {
        self.cells.back().map(|e| e.value().0.clone())
    }

    /// Every cell in order (for flushing a frozen segment).
    pub fn iter(&self) -> impl Iterator<Item = Cell> + '_ {
        self.cells.iter().map(|e| e.value().0.clone())
    }
}
