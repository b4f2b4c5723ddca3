//! Engine settings with HBase's defaults.

use basalt_types::limits::CELL_DEFAULT_MAX_BYTES;

/// Settings shared by every region an engine hosts.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageConfig {
    /// A region flushes once its memstores pass this (HBase: 128 MiB; a table's
    /// MEMSTORE_FLUSHSIZE overrides it).
    pub memstore_flush_size_bytes: u64,
    /// Writers block once all memstores together pass this (HBase: 40% of the heap).
    pub global_memstore_limit_bytes: u64,
    /// How long a blocked writer waits for flushes before failing with "busy".
    pub memstore_block_timeout_ms: u64,
    /// The shared block cache's capacity.
    pub block_cache_bytes: u64,
    /// A log segment is rolled once it passes this.
    pub wal_segment_size_bytes: u64,
    /// ASYNC_WAL writes are synced within this window.
    pub wal_async_sync_interval_ms: u64,
    /// Flushed log segments kept to be reused for new ones (their blocks are allocated
    /// already, so a sync commits no file-size change); 0 deletes them all.
    pub wal_recycle_segments: usize,
    /// A new log segment gets this many bytes of zeros ahead of its writes at a time (up
    /// to the segment size), so that most syncs change no file size; 0 appends only.
    pub wal_preallocate_step_bytes: u64,
    /// At open, set damaged log segments aside and open every region, logging what each
    /// may have lost (`--skip-corrupt-wal`; HBase's `hbase.hlog.split.skip.errors`). When
    /// off, a region that needs a damaged segment's edits fails to open.
    pub wal_skip_corrupt: bool,
    /// A region opened with edits replayed from another (dead) server's log flushes them
    /// before it serves (as HBase does), rather than serving at once and flushing them in
    /// the background while that log stays named for it (the default: the flush of every
    /// recovered region then stays off a crash recovery's critical path).
    pub flush_recovered_before_serving: bool,
    /// The largest cell accepted (`hbase.server.keyvalue.maxsize`).
    pub cell_max_bytes: usize,
    /// Bloom filters aim at this false-positive rate.
    pub bloom_false_positive_rate: f64,
    /// Minor compaction: at least this many files (`hbase.hstore.compaction.min`).
    pub compaction_min_files: usize,
    /// Minor compaction: at most this many files (`hbase.hstore.compaction.max`).
    pub compaction_max_files: usize,
    /// Minor compaction: size ratio (`hbase.hstore.compaction.ratio`).
    pub compaction_ratio: f64,
    /// Period of automatic major compactions, 0 to disable (HBase: 7 days).
    pub major_compaction_period_ms: u64,
    /// The file count at which a store's compactions stop being paced
    /// (`hbase.hstore.blockingStoreFiles`; unlike HBase, writers are not held back by it).
    pub blocking_store_files: usize,
    /// Compactions write at most this many bytes a second while their store is far from
    /// its blocking file count (`hbase.hstore.compaction.throughput.lower.bound`, 50 MiB/s);
    /// 0 lets them run unpaced. See [`crate::compaction::throttle`].
    pub compaction_throughput_lower_bytes_per_sec: u64,
    /// ... and at most this many as it nears it (`...higher.bound`, 100 MiB/s); past it,
    /// no limit.
    pub compaction_throughput_higher_bytes_per_sec: u64,
    /// A flush or compaction that failed for lack of space is tried again after 100 ms,
    /// then twice as long after each failure in a row, up to this.
    pub retry_backoff_max_ms: u64,
    /// How long a region remembers the nonce of an applied increment, append or
    /// check-and-mutate, across flushes and moves, to refuse a retry of it
    /// (`hbase.server.hashNonce.gracePeriod`, 30 minutes).
    pub nonce_window_ms: i64,
    /// At most this many nonces per region; the oldest go first.
    pub nonces_per_region_max: usize,
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self {
            memstore_flush_size_bytes: 128 * 1024 * 1024,
            global_memstore_limit_bytes: 1024 * 1024 * 1024,
            memstore_block_timeout_ms: 60_000,
            block_cache_bytes: 256 * 1024 * 1024,
            wal_segment_size_bytes: 64 * 1024 * 1024,
            wal_async_sync_interval_ms: 1000,
            wal_recycle_segments: 2,
            wal_preallocate_step_bytes: 1024 * 1024,
            wal_skip_corrupt: false,
            flush_recovered_before_serving: false,
            cell_max_bytes: CELL_DEFAULT_MAX_BYTES,
            bloom_false_positive_rate: 0.01,
            compaction_min_files: 3,
            compaction_max_files: 10,
            compaction_ratio: 1.2,
            major_compaction_period_ms: 7 * 24 * 3600 * 1000,
            blocking_store_files: 16,
            compaction_throughput_lower_bytes_per_sec: 50 * 1024 * 1024,
            compaction_throughput_higher_bytes_per_sec: 100 * 1024 * 1024,
            retry_backoff_max_ms: 10_000,
            nonce_window_ms: 30 * 60 * 1000,
            nonces_per_region_max: 100_000,
        }
    }
}
