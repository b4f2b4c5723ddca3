//! [`StoreFs`]: the engine's [`FileSystem`] on a [`Store`], so the engine runs unchanged
//! on a shared folder or an S3-compatible service.
//!
//! How each operation maps onto objects (keys as in `keys`; logs are chunked):
//!
//! | operation | on the store |
//! |-----------|--------------|
//! | `create` | nothing until the first sync (a log refuses a key whose chunks exist: its chunks are never replaced) |
//! | `sync_data` | plain: put of the whole file; log: put-if-absent of the next chunk |
//! | `open` | plain: `head` (version and size pinned); log: list of its chunks |
//! | `rename` | copy, then delete of the source: the target appears whole; a crash between leaves both, harmless. A folder is renamed object by object |
//! | `remove_file`, `remove_dir_all` | delete (a log's chunks newest first); a store file a link names goes to the archive (`links`) |
//! | `hard_link` | a link object and its back-reference (`links`) |
//! | `list`, `exists` | list of the folder's children (files and sub-folders alike) |
//! | `create_dir_all`, `sync_dir` | nothing: a store has no folders, and a put is durable when it returns |
//! | `truncate` | plain: put of the kept prefix; log: delete of the chunks past the cut, newest first, and put of the kept part of the chunk it falls in |
//!
//! # Layout
//! - `keys`: paths to keys; which files are logs; chunk names.
//! - `write`: files being written (spooled plain files, chunked logs).
//! - `read`: files being read (pinned plain objects through the disk cache; logs).
//! - `moves`: rename and truncate.
//! - `seal`: fencing a dead server's logs (an empty chunk at each log's first gap).
//! - `links`: store files shared by snapshots and clones: links, back-references, the
//!   archive and its cleaner.

mod keys;
pub mod links;
mod moves;
mod read;
mod seal;
mod write;

use crate::cache::{CacheStats, Counters, DiskCache};
use crate::error::{Result, StoreError};
use crate::probe::{probe_blocking, ProbeError, ProbeReport};
use crate::store::{ListMode, Store};
use crate::StoreOptions;
use basalt_storage::fs::{FileSystem, ReadableFile, WritableFile};
use read::{list_chunks, LogReader, PlainReader};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use write::{block, LogWriter, PlainWriter};

/// The engine's file system on a store.
#[derive(Debug)]
pub struct StoreFs {
    store: Arc<dyn Store>,
    cache: Option<Arc<DiskCache>>,
    counters: Arc<Counters>,
    spool_dir: PathBuf,
    log_folder: String,
    upload_part_bytes: u64,
    unsafe_lease_only_fencing: bool,
    log_retry_for: std::time::Duration,
}

impl StoreFs {
    /// The file system on the store at `url` (see [`crate::open_store`]).
    pub fn open(url: &str, options: StoreOptions) -> Result<Self> {
        let store = crate::open_store(url, &options)?;
        Self::new(store, options)
    }

    /// The file system on `store`: opens the disk cache and the spool folder the options
    /// name.
    pub fn new(store: Arc<dyn Store>, options: StoreOptions) -> Result<Self> {
        let config = |reason: String| StoreError::Config {
            url: store.url().to_owned(),
            reason,
        };
        let counters = Arc::new(Counters::default());
        let cache = match &options.cache_dir {
            Some(dir) => Some(Arc::new(
                DiskCache::open(
                    dir,
                    options.cache_bytes,
                    options.cache_block_bytes,
                    counters.clone(),
                )
                .map_err(|e| config(format!("disk cache {}: {e}", dir.display())))?,
            )),
            None => None,
        };
        let spool_dir = match (&options.spool_dir, &options.cache_dir) {
            (Some(dir), _) => dir.clone(),
            (None, Some(cache)) => cache.join("spool"),
            (None, None) => std::env::temp_dir(),
        };
        std::fs::create_dir_all(&spool_dir)
            .map_err(|e| config(format!("spool folder {}: {e}", spool_dir.display())))?;
        Ok(Self {
            store,
            cache,
            counters,
            spool_dir,
            log_folder: options.log_folder,
            upload_part_bytes: options.upload_part_bytes,
            unsafe_lease_only_fencing: options.unsafe_lease_only_fencing,
            log_retry_for: options.log_retry_for,
        })
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// What reads did: disk cache hits and misses, bytes fetched from the store.
    pub fn stats(&self) -> CacheStats {
        let cached = self.cache.as_ref().map_or(0, |c| c.bytes_cached());
        self.counters.stats(cached)
    }

    /// [`crate::probe`] of this file system's store, with its options.
    pub fn probe(&self) -> std::result::Result<ProbeReport, ProbeError> {
        probe_blocking(&self.store, self.unsafe_lease_only_fencing)
    }

    fn is_log(&self, key: &str) -> bool {
        keys::is_log(key, &self.log_folder)
    }

    fn with_path(path: &Path, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", path.display()))
    }

    fn head(&self, key: &str) -> io::Result<Option<crate::ObjectInfo>> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.head(&key).await })
    }

    fn list_under(&self, key: &str, mode: ListMode) -> io::Result<crate::Listing> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.list(&key, mode).await })
    }

    fn delete(&self, key: &str) -> io::Result<()> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.delete(&key).await })
    }

    /// Deletes `keys` in order.
    fn delete_all(&self, keys: Vec<String>) -> io::Result<()> {
        let store = self.store.clone();
        block(async move {
            for key in keys {
                store.delete(&key).await?;
            }
            Ok(())
        })
    }
}

impl FileSystem for StoreFs {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let key = keys::key_of(path)?;
        if !self.is_log(&key) {
            let writer = PlainWriter::new(
                self.store.clone(),
                key,
                &self.spool_dir,
                self.upload_part_bytes,
            )
            .map_err(|e| Self::with_path(path, e))?;
            return Ok(Box::new(writer));
        }
        if !list_chunks(&self.store, &key)?.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: log {key} exists: a log's chunks are never replaced",
                    self.store.url()
                ),
            ));
        }
        Ok(Box::new(LogWriter::new(
            self.store.clone(),
            key,
            self.log_retry_for,
        )))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let key = keys::key_of(path)?;
        if self.is_log(&key) {
            let chunks = list_chunks(&self.store, &key)?;
            if !chunks.is_empty() {
                let reader = LogReader::new(self.store.clone(), key, chunks, self.counters.clone());
                return Ok(Arc::new(reader));
            }
        }
        match self.resolve(&key)? {
            Some((key, info)) => Ok(Arc::new(PlainReader::new(
                self.store.clone(),
                key,
                info,
                self.cache.clone(),
                self.counters.clone(),
            ))),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: {key} does not exist", self.store.url()),
            )),
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (from_key, to_key) = (keys::key_of(from)?, keys::key_of(to)?);
        moves::rename(self, &from_key, &to_key)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let key = keys::key_of(path)?;
        if self.is_log(&key) {
            let chunks = list_chunks(&self.store, &key)?;
            if !chunks.is_empty() {
                return self.delete_all(chunks.into_iter().rev().map(|c| c.key).collect());
            }
        }
        if links::shareable(&key) {
            if let Some(info) = self.head(&key)? {
                return self.remove_shared(&key, info.size);
            }
        }
        self.delete(&key)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (from_key, to_key) = (keys::key_of(from)?, keys::key_of(to)?);
        self.link(&from_key, &to_key)
    }

    fn clean_archive(&self) -> io::Result<usize> {
        self.clean()
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        let key = keys::key_of(path)?;
        let listed = self.list_under(&key, ListMode::Recursive)?;
        let count = listed.objects.len();
        if count > 0 {
            let (shared, plain): (Vec<_>, Vec<_>) = listed
                .objects
                .into_iter()
                .partition(|o| links::shareable(&o.key));
            for object in shared {
                self.remove_shared(&object.key, object.size)?;
            }
            self.delete_all(plain.into_iter().map(|o| o.key).collect())?;
            tracing::info!(
                url = self.store.url(),
                folder = key,
                objects = count,
                "removed a folder"
            );
        }
        Ok(())
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        keys::key_of(path).map(drop)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let key = keys::key_of(dir)?;
        let listed = self.list_under(&key, ListMode::Children)?;
        let mut names: Vec<String> = listed
            .objects
            .iter()
            .map(|o| keys::name_of(&o.key).to_owned())
            .chain(listed.folders.iter().map(|f| keys::name_of(f).to_owned()))
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        let key = keys::key_of(path)?;
        if key.is_empty() {
            return Ok(true); // the store's root
        }
        if self.head(&key)?.is_some() {
            return Ok(true);
        }
        let listed = self.list_under(&key, ListMode::Children)?;
        Ok(!listed.objects.is_empty() || !listed.folders.is_empty())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        keys::key_of(dir).map(drop)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let key = keys::key_of(path)?;
        moves::truncate(self, &key, len)
    }

    fn seal_logs(&self, dir: &Path) -> io::Result<Option<basalt_storage::fs::SealedLogs>> {
        let key = keys::key_of(dir)?;
        self.seal_folder(&key).map(Some)
    }

    /// The seal fails a writer's next chunk by itself (and a new log's first chunk looks
    /// for the record), so no sync needs to ask.
    fn log_sealed(&self, _dir: &Path) -> io::Result<bool> {
        Ok(false)
    }
}
