//! [`DiskCache`]: ranges of store objects kept on local disk, so that a region opened on a
//! new server (or reopened) is not served from cold ranged GETs for long.
//!
//! It sits below the engine's in-memory block cache: a read of an opened file is cut into
//! aligned blocks (1 MiB by default), and each block is looked up here before it is
//! fetched from the store. A block is cached under a name hashed from the store's URL, the
//! object's key, and the **version and size `head` gave when the file was opened**: an
//! object written again under the same key (a manifest name reused) has another version,
//! so its old blocks are never served for it; they are simply never asked for again and
//! age out.
//!
//! ```text
//! <cache_dir>/LOCK                           held (flock) by the process using the cache
//! <cache_dir>/blocks/<h2>/<hash>-<block>     the block's bytes, then CRC32C (u32, big-endian)
//! ```
//! `<hash>` is 32 hex digits (xxh3-128), `<h2>` its first two, `<block>` the block number.
//! A block is written to a temporary name and renamed, and its checksum is checked on
//! every read: a torn or damaged block (a crash, a bad disk) is dropped and fetched again,
//! never served. The cache is bounded in bytes (quick_cache's eviction, close to LRU);
//! evicted blocks are deleted. Blocks found at start are kept (a restarted server starts
//! warm); temporary files left by a crash are removed. All of it is a copy: losing the
//! folder loses nothing.

use bytes::Bytes;
use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, Lifecycle, OptionsBuilder, Weighter};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const CHECKSUM_LEN: u64 = 4;
const TMP_SUFFIX: &str = ".tmp";

/// What reads did, since the file system was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Blocks served from the disk cache.
    pub hits: u64,
    /// Blocks looked up and not found (then fetched).
    pub misses: u64,
    /// Bytes read from the store by reads (cached or not).
    pub bytes_fetched: u64,
    /// Bytes the disk cache holds now.
    pub bytes_cached: u64,
}

/// The counters behind [`CacheStats`], shared by a file system and its cache.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    bytes_fetched: AtomicU64,
}

impl Counters {
    pub(crate) fn fetched(&self, bytes: u64) {
        self.bytes_fetched.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self, bytes_cached: u64) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes_fetched: self.bytes_fetched.load(Ordering::Relaxed),
            bytes_cached,
        }
    }
}

#[derive(Debug, Clone)]
struct BlockWeight;

impl Weighter<String, u64> for BlockWeight {
    fn weight(&self, _name: &String, file_len: &u64) -> u64 {
        *file_len
    }
}

/// Deletes the files of evicted blocks once the cache's lock is released.
#[derive(Debug, Clone)]
struct DeleteEvicted {
    blocks: Arc<PathBuf>,
}

impl Lifecycle<String, u64> for DeleteEvicted {
    type RequestState = Vec<String>;

    fn begin_request(&self) -> Self::RequestState {
        Vec::new()
    }

    fn on_evict(&self, state: &mut Self::RequestState, name: String, _len: u64) {
        state.push(name);
    }

    fn end_request(&self, state: Self::RequestState) {
        for name in state {
            remove_block(&block_path(&self.blocks, &name));
        }
    }
}

fn block_path(blocks: &Path, name: &str) -> PathBuf {
    blocks.join(name.get(..2).unwrap_or("00")).join(name)
}

fn remove_block(path: &Path) {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(file = %path.display(), error = %e, "could not remove a cached block")
        }
    }
}

/// An object as the cache knows it: which store, which key, which version.
#[derive(Debug, Clone)]
pub(crate) struct CachedObject {
    hash: String,
}

impl CachedObject {
    pub(crate) fn new(url: &str, key: &str, version: Option<&str>, size: u64) -> Self {
        let identity = format!("{url}\0{key}\0{}\0{size}", version.unwrap_or(""));
        let hash = xxhash_rust::xxh3::xxh3_128(identity.as_bytes());
        Self {
            hash: format!("{hash:032x}"),
        }
    }
}

/// Store blocks on local disk, bounded in bytes.
#[derive(Debug)]
pub struct DiskCache {
    blocks: Arc<PathBuf>,
    block_bytes: u64,
    index: Cache<String, u64, BlockWeight, DefaultHashBuilder, DeleteEvicted>,
    counters: Arc<Counters>,
    tmp_seq: AtomicU64,
    /// Held for the cache's life: one process per cache folder.
    _lock: File,
}

impl DiskCache {
    /// Opens (creating) the cache folder `dir`, holding at most `capacity_bytes` in blocks
    /// of `block_bytes`; keeps the blocks already there.
    pub(crate) fn open(
        dir: &Path,
        capacity_bytes: u64,
        block_bytes: u64,
        counters: Arc<Counters>,
    ) -> io::Result<Self> {
        if block_bytes == 0 || capacity_bytes < block_bytes {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "cache {}: {capacity_bytes} bytes cannot hold one block of {block_bytes}",
                    dir.display()
                ),
            ));
        }
        let blocks = dir.join("blocks");
        fs::create_dir_all(&blocks)?;
        let lock = File::create(dir.join("LOCK"))?;
        if lock.try_lock().is_err() {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "cache folder {} is in use by another process",
                    dir.display()
                ),
            ));
        }
        let blocks = Arc::new(blocks);
        let items = usize::try_from(capacity_bytes / block_bytes).unwrap_or(usize::MAX);
        let options = OptionsBuilder::new()
            .estimated_items_capacity(items.max(1))
            .weight_capacity(capacity_bytes)
            .build()
            .map_err(|e| io::Error::other(format!("cache {}: {e:?}", dir.display())))?;
        let lifecycle = DeleteEvicted {
            blocks: blocks.clone(),
        };
        let index = Cache::with_options(
            options,
            BlockWeight,
            DefaultHashBuilder::default(),
            lifecycle,
        );
        let cache = Self {
            blocks,
            block_bytes,
            index,
            counters,
            tmp_seq: AtomicU64::new(0),
            _lock: lock,
        };
        cache.adopt_existing()?;
        Ok(cache)
    }

    pub fn block_bytes(&self) -> u64 {
        self.block_bytes
    }

    /// Bytes held now.
    pub fn bytes_cached(&self) -> u64 {
        self.index.weight()
    }

    /// Block `block` of `object` (`len` bytes): from disk when cached and intact, else from
    /// `fetch`, then cached (a cache that cannot write only logs it).
    pub(crate) fn read(
        &self,
        object: &CachedObject,
        block: u64,
        len: usize,
        fetch: impl FnOnce() -> io::Result<Bytes>,
    ) -> io::Result<Bytes> {
        let name = format!("{}-{block}", object.hash);
        if let Some(bytes) = self.lookup(&name, len) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(bytes);
        }
        self.counters.misses.fetch_add(1, Ordering::Relaxed);
        let bytes = fetch()?;
        if let Err(e) = self.insert(&name, &bytes) {
            tracing::warn!(dir = %self.blocks.display(), error = %e, "could not cache a block");
        }
        Ok(bytes)
    }

    /// The block's bytes if it is cached, whole and intact.
    fn lookup(&self, name: &str, len: usize) -> Option<Bytes> {
        self.index.get(name)?;
        let path = block_path(&self.blocks, name);
        let intact = match fs::read(&path) {
            Ok(mut data) if data.len() == len + CHECKSUM_LEN as usize => {
                let tail = data.split_off(len);
                let stored = u32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]);
                (crc32c::crc32c(&data) == stored).then_some(data)
            }
            Ok(data) => {
                tracing::warn!(file = %path.display(), len = data.len(), expected = len,
                    "a cached block has the wrong length: fetching it again");
                None
            }
            Err(_) => None,
        };
        match intact {
            Some(data) => Some(Bytes::from(data)),
            None => {
                self.index.remove(name);
                remove_block(&path);
                None
            }
        }
    }

    fn insert(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let path = block_path(&self.blocks, name);
        if let Some(folder) = path.parent() {
            fs::create_dir_all(folder)?;
        }
        let seq = self.tmp_seq.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!("{name}.{seq}{TMP_SUFFIX}"));
        let mut data = Vec::with_capacity(bytes.len() + CHECKSUM_LEN as usize);
        data.extend_from_slice(bytes);
        data.extend_from_slice(&crc32c::crc32c(bytes).to_be_bytes());
        if let Err(e) = fs::write(&tmp, &data).and_then(|()| fs::rename(&tmp, &path)) {
            remove_block(&tmp);
            return Err(e);
        }
        self.index.insert(name.to_owned(), data.len() as u64);
        Ok(())
    }

    /// Indexes the blocks a previous run left; removes its temporary files.
    fn adopt_existing(&self) -> io::Result<()> {
        let (mut kept, mut removed) = (0u64, 0u64);
        for folder in fs::read_dir(self.blocks.as_ref())? {
            let folder = folder?;
            if !folder.file_type()?.is_dir() {
                continue;
            }
            for entry in fs::read_dir(folder.path())? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(TMP_SUFFIX) {
                    remove_block(&entry.path());
                    removed += 1;
                } else if entry.file_type()?.is_file() {
                    self.index.insert(name, entry.metadata()?.len());
                    kept += 1;
                }
            }
        }
        if kept + removed > 0 {
            tracing::info!(dir = %self.blocks.display(), kept, removed_partial = removed,
                bytes = self.bytes_cached(), "opened the disk cache");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &Path, capacity: u64) -> DiskCache {
        DiskCache::open(dir, capacity, 16, Arc::default()).expect("cache opens")
    }

    fn fetch_of(byte: u8) -> io::Result<Bytes> {
        Ok(Bytes::from(vec![byte; 16]))
    }

    #[test]
    fn a_damaged_block_is_fetched_again_never_served() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = open(dir.path(), 1024);
        let object = CachedObject::new("memory://", "a", Some("v1"), 16);
        cache.read(&object, 0, 16, || fetch_of(1)).expect("fetched");
        let path = block_path(&cache.blocks, &format!("{}-0", object.hash));
        let mut bytes = fs::read(&path).expect("cached file");
        bytes[3] ^= 0x40;
        fs::write(&path, bytes).expect("damage");
        let again = cache.read(&object, 0, 16, || fetch_of(1)).expect("read");
        assert_eq!(again.as_ref(), &[1u8; 16]);
        assert_eq!(
            cache.counters.stats(0).misses,
            2,
            "the damaged block was a miss"
        );
    }

    #[test]
    fn another_version_of_an_object_is_another_block() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = open(dir.path(), 1024);
        let old = CachedObject::new("memory://", "m", Some("v1"), 16);
        let new = CachedObject::new("memory://", "m", Some("v2"), 16);
        cache.read(&old, 0, 16, || fetch_of(1)).expect("old");
        let read = cache.read(&new, 0, 16, || fetch_of(2)).expect("new");
        assert_eq!(read.as_ref(), &[2u8; 16]);
    }

    #[test]
    fn blocks_survive_a_restart_and_partial_files_do_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let object = CachedObject::new("memory://", "a", None, 16);
        {
            let cache = open(dir.path(), 1024);
            cache.read(&object, 0, 16, || fetch_of(5)).expect("fetched");
            let tmp = cache.blocks.join("ab").join("x.1.tmp");
            fs::create_dir_all(tmp.parent().expect("folder")).expect("folder");
            fs::write(&tmp, b"partial").expect("tmp");
        }
        let cache = open(dir.path(), 1024);
        assert!(!cache.blocks.join("ab").join("x.1.tmp").exists());
        let read = cache
            .read(&object, 0, 16, || Err(io::Error::other("must not fetch")))
            .expect("served from disk");
        assert_eq!(read.as_ref(), &[5u8; 16]);
    }

    #[test]
    fn a_second_process_cannot_share_the_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let _first = open(dir.path(), 1024);
        let second = DiskCache::open(dir.path(), 1024, 16, Arc::default());
        let error = second.expect_err("refused");
        assert!(error.to_string().contains("in use"), "{error}");
    }
}
