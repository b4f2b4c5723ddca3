//! The memstore: a family's recent writes, sorted in memory until they are flushed.
//!
//! Writes go into the *active* segment, a concurrent skiplist in cell order. A flush
//! freezes the active segment into the *snapshot* and starts a new active one; readers keep
//! seeing the snapshot until the file written from it is published, then the snapshot is
//! dropped. Each reader sees only cells whose sequence id is at or below its MVCC read
//! point, so a row mutation in flight is invisible until it is whole.
//!
//! A cell is stored compactly (HBase's MSLAB, RocksDB's `InlineSkipList`): the skiplist's
//! node — its links and the cell's encoded entry — is written once into a chunk of atomic
//! words (64 KiB doubling to 2 MiB), in safe Rust, and a cell read back is a copy. Chunks
//! of a flushed segment are reused by the next ones.
//!
//! # Layout
//! - [`segment`]: one sorted run of cells with its size; cells read back in batches.
//! - [`list`]: the skiplist: search, insert by compare-and-swap, identical keys.
//! - [`node`]: a node's words (meta, tower, entry) and its comparison with a key.
//! - [`entry`]: a cell's encoded form, its comparison and its reading back.
//! - [`words`]: the chunks nodes are written into, found by index, and the pool that
//!   reuses them.
//! - [`cursor`]: a [`crate::scanner::CellSource`] over a segment at a read point.

mod cursor;
pub mod entry;
mod list;
mod node;
mod segment;
pub mod words;

pub use cursor::SegmentCursor;
pub use segment::Segment;
pub use words::ChunkPool;

use basalt_types::Cell;
use parking_lot::RwLock;
use std::sync::Arc;

/// A family's active and snapshot segments.
#[derive(Debug)]
pub struct Memstore {
    segments: RwLock<Segments>,
    /// Chunks of flushed segments, for the next active ones.
    pool: Arc<ChunkPool>,
}

#[derive(Debug, Default)]
struct Segments {
    active: Arc<Segment>,
    snapshot: Option<Arc<Segment>>,
}

impl Default for Memstore {
    fn default() -> Self {
        Self::new()
    }
}

impl Memstore {
    pub fn new() -> Self {
        let pool = Arc::new(ChunkPool::default());
        Self {
            segments: RwLock::new(Segments {
                active: Arc::new(Segment::with_pool(pool.clone())),
                snapshot: None,
            }),
            pool,
        }
    }

    /// Adds a cell; returns the bytes it added to the memstore's size.
    pub fn insert(&self, cell: Cell) -> u64 {
        self.segments.read().active.insert(cell)
    }

    /// Bytes held by the active and snapshot segments.
    pub fn size_bytes(&self) -> u64 {
        let segments = self.segments.read();
        segments.active.size_bytes() + segments.snapshot.as_ref().map_or(0, |s| s.size_bytes())
    }

    /// Bytes held by the active segment alone (what the next flush would write).
    pub fn active_size_bytes(&self) -> u64 {
        self.segments.read().active.size_bytes()
    }

    /// Freezes the active segment as the snapshot to flush. If a snapshot is already
    /// waiting (an earlier flush failed), it is returned again and the active segment stays.
    pub fn snapshot(&self) -> Arc<Segment> {
        let mut segments = self.segments.write();
        if let Some(snapshot) = &segments.snapshot {
            return snapshot.clone();
        }
        let fresh = Arc::new(Segment::with_pool(self.pool.clone()));
        let frozen = std::mem::replace(&mut segments.active, fresh);
        segments.snapshot = Some(frozen.clone());
        frozen
    }

    /// Drops the snapshot once its cells are in a published file; returns its size.
    pub fn clear_snapshot(&self) -> u64 {
        let mut segments = self.segments.write();
        segments.snapshot.take().map_or(0, |s| s.size_bytes())
    }

    /// The segments a reader must merge: active, then snapshot if any.
    pub fn segments(&self) -> Vec<Arc<Segment>> {
        let segments = self.segments.read();
        let mut out = vec![segments.active.clone()];
        out.extend(segments.snapshot.clone());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_moves_cells_out_of_active() {
        let memstore = Memstore::new();
        memstore.insert(Cell::put("r", "f", "q", 1, "v").with_seq(1));
        let before = memstore.size_bytes();
        assert!(before > 0);
        let snapshot = memstore.snapshot();
        assert_eq!(snapshot.len(), 1);
        assert_eq!(memstore.active_size_bytes(), 0);
        assert_eq!(memstore.size_bytes(), before);
        memstore.insert(Cell::put("r", "f", "q", 2, "v").with_seq(2));
        assert_eq!(memstore.segments().len(), 2);
        assert_eq!(memstore.clear_snapshot(), before);
        assert_eq!(memstore.segments().len(), 1);
    }
}
