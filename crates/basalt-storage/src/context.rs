//! What every region and store of one engine shares.

use crate::block_cache::BlockCache;
use crate::clock::Clock;
use crate::engine::jobs::Jobs;
use crate::fs::FileSystem;
use crate::region::budget::MemstoreBudget;
use crate::wal::Wal;
use crate::StorageConfig;
use std::sync::Arc;

/// The engine-wide services a region needs: files, the log, the cache, time and the
/// memstore budget.
#[derive(Debug, Clone)]
pub struct Context {
    pub fs: Arc<dyn FileSystem>,
    pub wal: Arc<Wal>,
    pub cache: Arc<BlockCache>,
    pub clock: Arc<dyn Clock>,
    pub budget: Arc<MemstoreBudget>,
    pub jobs: Arc<Jobs>,
    pub config: StorageConfig,
}
