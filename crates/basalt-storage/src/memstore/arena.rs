//! Arena chunks for memstore entries (HBase's MSLAB): cells are copied into 2 MiB chunks
//! rather than one allocation each, and chunks are reused across flushes.
//!
//! A chunk is a `BytesMut` of [`CHUNK_BYTES`]. An insert writes its entry at the chunk's
//! end and splits it off as a frozen `Bytes`: every entry shares the chunk's one allocation
//! and reference count, so the entry costs its bytes and nothing else, and a reader
//! holding one cell keeps its chunk alive (no unsafe code, no lifetimes to track). An
//! entry larger than [`IN_CHUNK_MAX`] gets a buffer of its own, so that one large value
//! does not strand most of a chunk.
//!
//! When a segment is dropped (flushed, and its last reader gone), its chunks go back to the
//! memstore's [`ChunkPool`]. A pooled chunk is handed out again once every entry cut from
//! it is gone (`BytesMut::try_reclaim` succeeds only for the allocation's sole owner): the
//! next segment writes into memory already faulted in, instead of making the kernel zero
//! fresh pages for it. The pool holds at most [`POOL_CHUNKS_MAX`] chunks.

use bytes::{Bytes, BytesMut};
use parking_lot::Mutex;

/// A chunk's size (HBase's `hbase.hregion.memstore.mslab.chunksize`).
pub const CHUNK_BYTES: usize = 2 * 1024 * 1024;
/// Entries above this size are not copied into a chunk (HBase's
/// `hbase.hregion.memstore.mslab.max.allocation`).
pub const IN_CHUNK_MAX: usize = 256 * 1024;
/// Chunks a pool keeps for reuse; the rest are freed.
pub const POOL_CHUNKS_MAX: usize = 8;

/// Chunks given back by dropped segments, waiting for their last entries to go.
#[derive(Debug, Default)]
pub struct ChunkPool {
    idle: Mutex<Vec<BytesMut>>,
}

impl ChunkPool {
    /// An empty chunk: a pooled one whose entries are all gone, else a new one.
    fn take(&self) -> BytesMut {
        let mut idle = self.idle.lock();
        let free = idle.iter_mut().position(|chunk| {
            chunk.clear();
            chunk.try_reclaim(CHUNK_BYTES)
        });
        match free {
            Some(at) => idle.swap_remove(at),
            None => BytesMut::with_capacity(CHUNK_BYTES),
        }
    }

    /// Keeps `chunks` for reuse, the newest first, up to [`POOL_CHUNKS_MAX`].
    fn give_back(&self, chunks: Vec<BytesMut>) {
        let mut idle = self.idle.lock();
        idle.extend(chunks);
        let excess = idle.len().saturating_sub(POOL_CHUNKS_MAX);
        idle.drain(..excess);
    }

    /// Chunks waiting in the pool.
    pub fn idle_chunks(&self) -> usize {
        self.idle.lock().len()
    }
}

/// One segment's chunks: the one being filled and the full ones.
#[derive(Debug, Default)]
pub struct Arena {
    chunks: Mutex<Chunks>,
}

#[derive(Debug, Default)]
struct Chunks {
    /// Where the next entry goes (none until the first insert).
    current: Option<BytesMut>,
    /// Full chunks (their unused tails), kept to give back to the pool.
    full: Vec<BytesMut>,
}

impl Arena {
    /// Writes an entry of `len` bytes with `write` and returns it, frozen.
    pub fn alloc(&self, pool: &ChunkPool, len: usize, write: impl FnOnce(&mut BytesMut)) -> Bytes {
        if len > IN_CHUNK_MAX {
            let mut own = BytesMut::with_capacity(len);
            write(&mut own);
            return own.freeze();
        }
        let mut chunks = self.chunks.lock();
        let Chunks { current, full } = &mut *chunks;
        let room = current.as_ref().map_or(0, |c| c.capacity() - c.len());
        if room < len {
            full.extend(current.replace(pool.take()));
        }
        let chunk = current.get_or_insert_with(|| pool.take());
        write(chunk);
        chunk.split().freeze()
    }

    /// Hands every chunk to `pool` (the segment is going).
    pub fn release(&self, pool: &ChunkPool) {
        let mut chunks = self.chunks.lock();
        let mut all = std::mem::take(&mut chunks.full);
        all.extend(chunks.current.take());
        pool.give_back(all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(arena: &Arena, pool: &ChunkPool, bytes: &[u8]) -> Bytes {
        arena.alloc(pool, bytes.len(), |out| out.extend_from_slice(bytes))
    }

    #[test]
    fn entries_share_a_chunk_side_by_side() {
        let (arena, pool) = (Arena::default(), ChunkPool::default());
        let a = put(&arena, &pool, b"first");
        let b = put(&arena, &pool, b"second");
        assert_eq!((&a[..], &b[..]), (&b"first"[..], &b"second"[..]));
        assert_eq!(b.as_ptr() as usize, a.as_ptr() as usize + a.len());
        let large = put(&arena, &pool, &vec![7; IN_CHUNK_MAX + 1]);
        assert_eq!(large.len(), IN_CHUNK_MAX + 1);
        let c = put(&arena, &pool, b"third");
        assert_eq!(
            c.as_ptr() as usize,
            b.as_ptr() as usize + b.len(),
            "large entries go elsewhere"
        );
    }

    #[test]
    fn a_full_chunk_is_followed_by_a_new_one() {
        let (arena, pool) = (Arena::default(), ChunkPool::default());
        let piece = vec![1u8; IN_CHUNK_MAX];
        let held: Vec<Bytes> = (0..9).map(|_| put(&arena, &pool, &piece)).collect();
        let starts: Vec<usize> = held.iter().map(|b| b.as_ptr() as usize).collect();
        // Eight fill the first chunk exactly; the ninth starts another.
        assert_eq!(starts[7], starts[0] + 7 * IN_CHUNK_MAX);
        assert!(held.iter().all(|b| b[..] == piece[..]));
    }
}
