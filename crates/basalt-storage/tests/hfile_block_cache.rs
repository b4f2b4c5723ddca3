//! The block cache: hits and misses are counted, capacity holds under load, in-memory
//! families keep their blocks through a flood, and BLOCKCACHE / cache_blocks are obeyed.

use crate::hfile_common::{write, Mem, MemFs};
use basalt_storage::block_cache::{BlockCache, CachePriority};
use basalt_storage::hfile::{CacheOptions, HFileReader, WriterOptions};
use basalt_storage::scanner::CellSource;
use basalt_types::Cell;
use std::path::Path;
use std::sync::Arc;

/// A file of `blocks` data blocks of about 1 KiB each.
fn file(fs: &Mem, name: &str, blocks: usize) -> std::path::PathBuf {
    let path = Path::new("/t").join(name);
    let cells: Vec<Cell> = (0..blocks * 7)
        .map(|i| Cell::put(format!("row-{i:06}"), "cf", "q", 1, vec![b'x'; 100]))
        .collect();
    let opts = WriterOptions {
        block_size_bytes: 1000,
        ..WriterOptions::default()
    };
    let info = write(fs, &path, &cells, opts);
    assert_eq!(info.data_block_count as usize, blocks);
    path
}

fn scan(reader: &Arc<HFileReader>, cache_blocks: bool) -> usize {
    let mut s = reader.scanner(cache_blocks);
    s.seek_to_first().expect("first");
    let mut n = 0;
    while s.peek().is_some() {
        n += 1;
        s.advance().expect("advance");
    }
    n
}

fn open(
    fs: &Mem,
    path: &Path,
    id: u64,
    cache: &Arc<BlockCache>,
    options: CacheOptions,
) -> Arc<HFileReader> {
    HFileReader::open_with(fs, path, id, cache.clone(), options).expect("open")
}

#[test]
fn hits_and_misses_are_counted() {
    let fs = Mem(MemFs::new());
    let path = file(&fs, "a", 10);
    let cache = Arc::new(BlockCache::new(1 << 20));
    let reader = open(&fs, &path, 1, &cache, CacheOptions::default());
    scan(&reader, true);
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.entries), (0, 10, 10));
    assert!(s.size_bytes >= 10 * 1000, "{s:?}");
    scan(&reader, true);
    let s = cache.stats();
    assert_eq!((s.hits, s.misses), (10, 10));
    // A seek within the loaded block does not even ask the cache.
    let mut sc = reader.scanner(true);
    sc.seek(&Cell::first_on_row("row-000001")).expect("seek");
    sc.seek(&Cell::first_on_row("row-000005")).expect("reseek");
    assert_eq!(cache.stats().hits, 11);
    reader.evict_from_cache();
    assert_eq!(cache.stats().entries, 0);
}

/// Blocks that leave the cache hand their buffers back, and later reads reuse them.
#[test]
fn evicted_blocks_lend_their_buffers_to_later_reads() {
    let fs = Mem(MemFs::new());
    let path = file(&fs, "a", 40);
    let cache = Arc::new(BlockCache::new(4 * 1000));
    let reader = open(&fs, &path, 1, &cache, CacheOptions::default());
    assert_eq!(scan(&reader, true), 40 * 7);
    let kept = cache.buffers().kept();
    assert!(kept > 0, "evicted blocks gave nothing back");
    // An uncached scan reads every block again, into recycled buffers, and gives each
    // back as it moves on: the pool neither runs dry nor grows past what it held.
    assert_eq!(scan(&reader, false), 40 * 7);
    assert!(cache.buffers().kept() >= kept, "{kept} kept before");
    reader.evict_from_cache();
    drop(reader);
    assert!(cache.buffers().kept() > kept);
}

#[test]
fn uncached_scans_and_blockcache_false_do_not_fill_the_cache() {
    let fs = Mem(MemFs::new());
    let path = file(&fs, "a", 6);
    let cache = Arc::new(BlockCache::new(1 << 20));
    let reader = open(&fs, &path, 1, &cache, CacheOptions::default());
    scan(&reader, false);
    assert_eq!(cache.stats().entries, 0);
    let no_cache = CacheOptions {
        cache_data_blocks: false,
        priority: CachePriority::Normal,
    };
    let reader = open(&fs, &path, 2, &cache, no_cache);
    scan(&reader, true);
    let s = cache.stats();
    assert_eq!((s.entries, s.misses), (0, 12));
}

#[test]
fn capacity_is_respected_under_load() {
    let fs = Mem(MemFs::new());
    let cache = Arc::new(BlockCache::new(64 * 1024));
    for id in 0..4 {
        let path = file(&fs, &format!("f{id}"), 100);
        let reader = open(&fs, &path, id, &cache, CacheOptions::default());
        assert_eq!(scan(&reader, true), 700);
        let s = cache.stats();
        assert!(s.size_bytes <= s.capacity_bytes, "{s:?}");
    }
    let s = cache.stats();
    assert!(s.evictions > 0 && s.entries > 10, "{s:?}");
}

#[test]
fn in_memory_blocks_survive_a_flood() {
    let fs = Mem(MemFs::new());
    let cache = Arc::new(BlockCache::new(256 * 1024));
    let hot_path = file(&fs, "hot", 20);
    let in_memory = CacheOptions {
        cache_data_blocks: true,
        priority: CachePriority::InMemory,
    };
    let hot = open(&fs, &hot_path, 1, &cache, in_memory);
    scan(&hot, true);
    // Each flood file fits the cache and is read three times, so its blocks look hot.
    for id in 10..20 {
        let path = file(&fs, &format!("flood{id}"), 60);
        let reader = open(&fs, &path, id, &cache, CacheOptions::default());
        for _ in 0..3 {
            scan(&reader, true);
        }
    }
    let before = cache.stats();
    scan(&hot, true);
    let after = cache.stats();
    assert_eq!(after.misses, before.misses, "in-memory blocks were evicted");
    assert_eq!(after.hits - before.hits, 20);
    // The flood (600 KiB through a 192 KiB partition) did evict ordinary blocks.
    assert!(after.evictions > 300, "{after:?}");
    assert!(after.size_bytes <= after.capacity_bytes, "{after:?}");
}

#[test]
fn the_unused_in_memory_share_is_lent_to_ordinary_blocks() {
    let fs = Mem(MemFs::new());
    let cache = Arc::new(BlockCache::new(256 * 1024));
    let flood = file(&fs, "flood", 400);
    let reader = open(&fs, &flood, 1, &cache, CacheOptions::default());
    scan(&reader, true);
    // No family is in-memory: ordinary blocks fill far past the 75% they may always use.
    let s = cache.stats();
    assert!(s.size_bytes > s.capacity_bytes * 85 / 100, "{s:?}");
    assert!(s.size_bytes <= s.capacity_bytes, "{s:?}");
    // In-memory blocks take their share back, and the total still holds.
    let hot_path = file(&fs, "hot", 40);
    let in_memory = CacheOptions {
        cache_data_blocks: true,
        priority: CachePriority::InMemory,
    };
    let hot = open(&fs, &hot_path, 2, &cache, in_memory);
    scan(&hot, true);
    scan(&reader, true);
    let s = cache.stats();
    assert!(s.size_bytes <= s.capacity_bytes, "{s:?}");
    let before = cache.stats();
    scan(&hot, true);
    let after = cache.stats();
    assert_eq!(after.misses, before.misses, "in-memory blocks were evicted");
}

#[test]
fn readers_and_the_cache_are_shared_across_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<HFileReader>();
    shared::<BlockCache>();
    fn sendable<T: Send>() {}
    sendable::<basalt_storage::hfile::HFileScanner>();

    let fs = Mem(MemFs::new());
    let path = file(&fs, "shared", 30);
    let cache = Arc::new(BlockCache::new(16 * 1024));
    let reader = open(&fs, &path, 1, &cache, CacheOptions::default());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..3 {
                    assert_eq!(scan(&reader, true), 210);
                }
            });
        }
    });
    let s = cache.stats();
    assert_eq!(s.hits + s.misses, 2 * 3 * 30);
    assert!(s.size_bytes <= s.capacity_bytes, "{s:?}");
}
