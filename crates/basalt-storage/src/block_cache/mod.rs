//! The block cache: decoded data blocks shared by every store of an engine.
//!
//! Keyed by `(file_id, block offset)`; values are `Arc`s of blocks that were already
//! checksum-verified and decompressed, so a hit costs a hash lookup and a reference count.
//! Capacity is in bytes (each block weighs its decoded size). Like HBase's LRU cache with
//! its single/multi/memory areas, the cache keeps a separate partition for families with
//! `IN_MEMORY => true` (up to [`IN_MEMORY_SHARE_PERCENT`] of the capacity), so a flood of
//! ordinary blocks cannot push their blocks out. As in HBase, where eviction only takes from
//! areas above their share, the part of that share in-memory blocks do not use is lent to
//! ordinary blocks: the ordinary partition's capacity is the whole less what in-memory
//! blocks weigh, adjusted whenever that changes. Each partition is a [`quick_cache`] (a
//! scan-resistant CLOCK-Pro variant) with a byte weigher.
//!
//! Index and bloom blocks never come here: each open file keeps them resident.
//!
//! [`buffers`]: the buffers blocks are read into, recycled once a block is dropped.

pub mod buffers;

use crate::hfile::DataBlock;
use buffers::BlockBuffers;
use quick_cache::sync::Cache;
use quick_cache::{Lifecycle, Weighter};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Share of the capacity in-memory families may hold (lent to the others while unused).
pub const IN_MEMORY_SHARE_PERCENT: u64 = 25;
/// Blocks of this size or so are expected; only sizes the cache's tables.
const TYPICAL_BLOCK_BYTES: u64 = 16 * 1024;

/// Which partition a file's blocks go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CachePriority {
    #[default]
    Normal,
    /// The family is `IN_MEMORY`: its blocks live in the reserved partition.
    InMemory,
}

/// A block's cache key: the file's id and the block's offset in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockKey {
    pub file_id: u64,
    pub offset: u64,
}

/// Counters since the cache was created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    /// Bytes of the blocks held now.
    pub size_bytes: u64,
    pub capacity_bytes: u64,
    /// Blocks held now.
    pub entries: u64,
}

#[derive(Debug, Clone, Copy)]
struct BlockWeighter;

impl Weighter<BlockKey, Arc<DataBlock>> for BlockWeighter {
    fn weight(&self, _key: &BlockKey, block: &Arc<DataBlock>) -> u64 {
        block.weight_bytes() as u64
    }
}

/// Counts evictions (including blocks too large to be admitted).
#[derive(Debug, Clone, Default)]
struct CountEvictions(Arc<AtomicU64>);

impl Lifecycle<BlockKey, Arc<DataBlock>> for CountEvictions {
    type RequestState = ();

    fn begin_request(&self) -> Self::RequestState {}

    fn on_evict(&self, _state: &mut (), _key: BlockKey, _block: Arc<DataBlock>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

type Partition =
    Cache<BlockKey, Arc<DataBlock>, BlockWeighter, quick_cache::DefaultHashBuilder, CountEvictions>;

/// The shared cache of decoded data blocks.
#[derive(Debug)]
pub struct BlockCache {
    normal: Partition,
    in_memory: Partition,
    capacity_bytes: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: Arc<AtomicU64>,
    buffers: Arc<BlockBuffers>,
}

fn partition(capacity_bytes: u64, evictions: &Arc<AtomicU64>) -> Partition {
    let items = (capacity_bytes / TYPICAL_BLOCK_BYTES).max(16) as usize;
    Cache::with(
        items,
        capacity_bytes.max(1),
        BlockWeighter,
        quick_cache::DefaultHashBuilder::default(),
        CountEvictions(evictions.clone()),
    )
}

impl BlockCache {
    /// A cache holding up to `capacity_bytes` of blocks, up to [`IN_MEMORY_SHARE_PERCENT`]
    /// of it for in-memory families.
    pub fn new(capacity_bytes: u64) -> Self {
        let evictions = Arc::new(AtomicU64::new(0));
        let in_memory_bytes = capacity_bytes / 100 * IN_MEMORY_SHARE_PERCENT
            + capacity_bytes % 100 * IN_MEMORY_SHARE_PERCENT / 100;
        Self {
            normal: partition(capacity_bytes, &evictions),
            in_memory: partition(in_memory_bytes, &evictions),
            capacity_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions,
            buffers: Arc::default(),
        }
    }

    /// The buffers data blocks are read into (see [`buffers`]).
    pub fn buffers(&self) -> &Arc<BlockBuffers> {
        &self.buffers
    }

    fn partition(&self, priority: CachePriority) -> &Partition {
        match priority {
            CachePriority::Normal => &self.normal,
            CachePriority::InMemory => &self.in_memory,
        }
    }

    /// The block at `key`, counting a hit or a miss.
    pub fn get(&self, key: BlockKey, priority: CachePriority) -> Option<Arc<DataBlock>> {
        let found = self.partition(priority).get(&key);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    pub fn insert(&self, key: BlockKey, block: Arc<DataBlock>, priority: CachePriority) {
        self.partition(priority).insert(key, block);
        if priority == CachePriority::InMemory {
            self.lend_unused_share();
        }
    }

    /// Drops one block (a file being closed or deleted).
    pub fn remove(&self, key: BlockKey) {
        self.normal.remove(&key);
        if self.in_memory.remove(&key).is_some() {
            self.lend_unused_share();
        }
    }

    /// Gives ordinary blocks whatever in-memory blocks do not weigh.
    fn lend_unused_share(&self) {
        let lent = self.capacity_bytes.saturating_sub(self.in_memory.weight());
        if lent != self.normal.capacity() {
            self.normal.set_capacity(lent);
        }
    }

    pub fn stats(&self) -> BlockCacheStats {
        BlockCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            size_bytes: self.normal.weight() + self.in_memory.weight(),
            capacity_bytes: self.capacity_bytes,
            entries: (self.normal.len() + self.in_memory.len()) as u64,
        }
    }
}
