//! Word storage for a segment's skiplist (HBase's MSLAB, in atomic words): nodes are
//! carved out of 2 MiB chunks of `AtomicU64`, and chunks are reused across flushes.
//!
//! A chunk is a `Box<[AtomicU64]>` of [`CHUNK_WORDS`]. Space is handed out under a short
//! mutex, from both ends: a node's *front* (its tower, meta word and key, what a search
//! reads) from the chunk's start upwards, its *back* (the rest of its value) from the
//! chunk's end downwards. So the fronts lie packed together, a search's cache lines
//! hold keys rather than values, and nothing is added per node. What is written into the
//! words is the caller's, with atomic stores, so readers never need a lock. A node larger
//! than [`IN_CHUNK_MAX`] bytes gets a chunk of its own size (front and back side by side),
//! so that one large value does not strand most of a chunk.
//!
//! A node is named by its chunk's index in the segment and its word offset. Chunks are
//! found by index through a two-level directory of `OnceLock`s: slot `k` of the top level
//! holds `DIRECTORY_BASE << k` chunk places, allocated when the first chunk lands there.
//! An empty segment's directory is a few hundred bytes; the 24 slots name a billion chunks.
//!
//! A new chunk is written with zeros when it is made (safe Rust has no lazily zeroed
//! atomics), so all of its pages are resident at once. A segment's first chunk is
//! therefore small, [`FIRST_CHUNK_WORDS`], and each next one twice the last, up to
//! [`CHUNK_WORDS`]: a memstore holding a few cells (one of thousands of regions) takes
//! 64 KiB, not 2 MiB.
//!
//! When a segment is dropped its full-size chunks go back to the memstore's [`ChunkPool`],
//! and the next segments take them before making any. No reader can still hold them:
//! cells are copied out of the words, never lent. A pooled chunk is not zeroed again:
//! every word of a node is written before the node is published.

use parking_lot::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

/// A chunk's size in words: 2 MiB (HBase's `hbase.hregion.memstore.mslab.chunksize`).
pub const CHUNK_WORDS: usize = 256 * 1024;
/// A segment's first chunk, when the pool has none: 64 KiB.
pub const FIRST_CHUNK_WORDS: usize = 8 * 1024;
/// Nodes above this size (bytes) get a chunk of their own (HBase's
/// `hbase.hregion.memstore.mslab.max.allocation`).
pub const IN_CHUNK_MAX: usize = 256 * 1024;
/// Chunks a pool keeps for reuse; the rest are freed.
pub const POOL_CHUNKS_MAX: usize = 8;

/// Chunk places in the directory's first slot; slot `k` holds `DIRECTORY_BASE << k`.
const DIRECTORY_BASE: usize = 64;
const DIRECTORY_SLOTS: usize = 24;

type Chunk = Box<[AtomicU64]>;

fn new_chunk(words: usize) -> Chunk {
    std::iter::repeat_with(|| AtomicU64::new(0))
        .take(words)
        .collect()
}

/// Chunks given back by dropped segments, for the next ones.
#[derive(Debug, Default)]
pub struct ChunkPool {
    idle: Mutex<Vec<Chunk>>,
}

impl ChunkPool {
    /// A pooled chunk of [`CHUNK_WORDS`], else a new one of `words`.
    fn take(&self, words: usize) -> Chunk {
        let pooled = self.idle.lock().pop();
        pooled.unwrap_or_else(|| new_chunk(words))
    }

    /// Keeps `chunks` for reuse, the newest last, up to [`POOL_CHUNKS_MAX`].
    fn give_back(&self, chunks: impl Iterator<Item = Chunk>) {
        let mut idle = self.idle.lock();
        for chunk in chunks {
            if idle.len() < POOL_CHUNKS_MAX {
                idle.push(chunk);
            }
        }
    }

    /// Chunks waiting in the pool.
    pub fn idle_chunks(&self) -> usize {
        self.idle.lock().len()
    }
}

/// A value on cache lines of its own: what every insert writes kept apart from what every
/// search reads, so that writers on other cores do not take the readers' lines away.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct CacheLine<T>(pub T);

/// One segment's chunks, found by index.
#[derive(Debug, Default)]
pub struct Words {
    directory: [OnceLock<Box<[OnceLock<Chunk>]>>; DIRECTORY_SLOTS],
    fill: CacheLine<Mutex<Fill>>,
}

/// Where the next node goes.
#[derive(Debug, Default)]
struct Fill {
    /// Chunks placed so far (the next one's index).
    chunks: u32,
    /// The chunk being filled.
    current: Option<Current>,
}

#[derive(Debug, Clone, Copy)]
struct Current {
    index: u32,
    /// The first free word from the start.
    front: usize,
    /// The first used word from the end.
    back: usize,
}

/// Where [`Words::alloc`] put a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub chunk: u32,
    /// The front's first word.
    pub front_at: usize,
    /// The back's first word; `None` when it follows the front (a chunk of its own).
    pub back_at: Option<usize>,
}

/// The directory slot and place of chunk `index`.
#[inline]
fn place(index: u32) -> (usize, usize) {
    let n = index as usize + DIRECTORY_BASE;
    let slot =
        (usize::BITS - 1 - n.leading_zeros()) as usize - DIRECTORY_BASE.trailing_zeros() as usize;
    (slot, n - (DIRECTORY_BASE << slot))
}

impl Words {
    /// Reserves `front` words from a chunk's start and `back` from its end.
    pub fn alloc(&self, pool: &ChunkPool, front: usize, back: usize) -> Place {
        let mut fill = self.fill.0.lock();
        let words = front + back;
        if words * 8 > IN_CHUNK_MAX {
            let chunk = self.push(&mut fill, new_chunk(words));
            return Place {
                chunk,
                front_at: 0,
                back_at: None,
            };
        }
        let current = match fill.current {
            Some(current) if current.front + words <= current.back => current,
            _ => {
                // Doubling from the first chunk's size, big enough for the node.
                let doubled = FIRST_CHUNK_WORDS << fill.chunks.min(5);
                let chunk = pool.take(doubled.clamp(words, CHUNK_WORDS));
                let back = chunk.len();
                Current {
                    index: self.push(&mut fill, chunk),
                    front: 0,
                    back,
                }
            }
        };
        let back_at = current.back - back;
        fill.current = Some(Current {
            index: current.index,
            front: current.front + front,
            back: back_at,
        });
        Place {
            chunk: current.index,
            front_at: current.front,
            back_at: Some(back_at),
        }
    }

    fn push(&self, fill: &mut Fill, chunk: Chunk) -> u32 {
        let index = fill.chunks;
        fill.chunks += 1;
        let (slot, at) = place(index);
        let places = self.directory[slot].get_or_init(|| {
            (0..DIRECTORY_BASE << slot)
                .map(|_| OnceLock::new())
                .collect()
        });
        if places[at].set(chunk).is_err() {
            unreachable!("chunk indexes are handed out once, under the fill lock");
        }
        index
    }

    /// The chunk at `index` (one that [`Words::alloc`] handed out).
    #[inline]
    pub fn chunk(&self, index: u32) -> &[AtomicU64] {
        let (slot, at) = place(index);
        self.directory[slot]
            .get()
            .and_then(|places| places[at].get())
            .expect("a link names a chunk placed before the node was published")
    }

    /// Gives every full-size chunk to `pool` (the segment is going).
    pub fn release(&mut self, pool: &ChunkPool) {
        let chunks = self
            .directory
            .iter_mut()
            .filter_map(OnceLock::take)
            .flat_map(|places| places.into_vec())
            .filter_map(|mut place| place.take())
            .filter(|chunk| chunk.len() == CHUNK_WORDS);
        pool.give_back(chunks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_indexes_fill_the_directory_slot_by_slot() {
        assert_eq!(place(0), (0, 0));
        assert_eq!(place(63), (0, 63));
        assert_eq!(place(64), (1, 0));
        assert_eq!(place(191), (1, 127));
        assert_eq!(place(192), (2, 0));
        let last = (DIRECTORY_BASE << DIRECTORY_SLOTS) - DIRECTORY_BASE - 1;
        assert_eq!(
            place(last as u32),
            (DIRECTORY_SLOTS - 1, (DIRECTORY_BASE << 23) - 1)
        );
    }

    fn placed(chunk: u32, front_at: usize, back_at: Option<usize>) -> Place {
        Place {
            chunk,
            front_at,
            back_at,
        }
    }

    #[test]
    fn fronts_fill_a_chunk_upwards_backs_downwards_and_large_nodes_get_their_own() {
        let (words, pool) = (Words::default(), ChunkPool::default());
        let end = FIRST_CHUNK_WORDS;
        assert_eq!(words.alloc(&pool, 8, 12), placed(0, 0, Some(end - 12)));
        assert_eq!(words.alloc(&pool, 9, 0), placed(0, 8, Some(end - 12)));
        assert_eq!(words.alloc(&pool, 7, 5), placed(0, 17, Some(end - 17)));
        let large = IN_CHUNK_MAX / 8 + 1;
        assert_eq!(words.alloc(&pool, 3, large), placed(1, 0, None));
        assert_eq!(words.chunk(1).len(), large + 3);
        // What is left between the fronts and the backs, filled exactly.
        let left = end - 24 - 17;
        assert_eq!(
            words.alloc(&pool, left - 100, 100),
            placed(0, 24, Some(end - 117))
        );
        assert_eq!(
            words.alloc(&pool, 1, 0),
            placed(2, 0, Some(4 * end)),
            "the first is full"
        );
        assert_eq!(
            words.chunk(2).len(),
            4 * FIRST_CHUNK_WORDS,
            "the third chunk made"
        );
    }

    #[test]
    fn chunks_double_up_to_full_size_unless_the_pool_has_one() {
        let pool = ChunkPool::default();
        let words = Words::default();
        let mut sizes = Vec::new();
        while sizes.len() < 7 {
            let place = words.alloc(&pool, 6000, 0);
            if place.chunk as usize == sizes.len() {
                sizes.push(words.chunk(place.chunk).len());
            }
        }
        let first = FIRST_CHUNK_WORDS;
        let doubling = [first, 2 * first, 4 * first, 8 * first, 16 * first];
        assert_eq!(sizes, [&doubling[..], &[CHUNK_WORDS; 2]].concat());
        pool.give_back(std::iter::once(new_chunk(CHUNK_WORDS)));
        let fresh = Words::default();
        let place = fresh.alloc(&pool, 1, 0);
        assert_eq!(
            fresh.chunk(place.chunk).len(),
            CHUNK_WORDS,
            "a pooled chunk first"
        );
    }

    #[test]
    fn released_chunks_of_full_size_go_to_the_pool_up_to_its_limit() {
        let pool = ChunkPool::default();
        let mut words = Words::default();
        for _ in 0..POOL_CHUNKS_MAX + 2 {
            words.alloc(&pool, CHUNK_WORDS, 0);
        }
        words.alloc(&pool, IN_CHUNK_MAX / 8 + 1, 0);
        words.release(&pool);
        assert_eq!(pool.idle_chunks(), POOL_CHUNKS_MAX);
        let mut next = Words::default();
        next.alloc(&pool, 1, 1);
        assert_eq!(
            pool.idle_chunks(),
            POOL_CHUNKS_MAX - 1,
            "taken from the pool"
        );
        next.release(&pool);
    }

    #[test]
    fn an_empty_segments_words_are_small() {
        assert!(
            std::mem::size_of::<Words>() <= 768,
            "{}",
            std::mem::size_of::<Words>()
        );
    }
}
