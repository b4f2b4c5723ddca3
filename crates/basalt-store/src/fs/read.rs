//! Files being read.
//!
//! A plain file is pinned at open to the version and size `head` gave: its reads go by
//! aligned blocks through the [`DiskCache`] (or straight to the store without one), and
//! every fetch asks the store for that version, so a file replaced under its name fails a
//! read rather than mixing two versions. The block read last is kept in memory, so that
//! a reader going through a file (a compaction, a scan) touches each cached block once.
//!
//! A log is its chunks, listed at open and presented concatenated; a read fetches the
//! chunks it spans, several at a time. Logs are read once, at recovery: they bypass the
//! disk cache.

use super::keys;
use super::write::block;
use crate::cache::{CachedObject, Counters, DiskCache};
use crate::store::{ObjectInfo, Store};
use basalt_storage::fs::ReadableFile;
use bytes::Bytes;
use futures_util::StreamExt;
use parking_lot::Mutex;
use std::io;
use std::ops::Range;
use std::sync::Arc;

/// Chunk fetches a log read keeps in flight.
const CHUNK_FETCHES_IN_FLIGHT: usize = 16;

fn past_end(url: &str, key: &str, offset: u64, len: usize, size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("{url}: {key}: cannot read {len} bytes at offset {offset}: the file has {size}"),
    )
}

/// A plain object, read at the version seen at open.
#[derive(Debug)]
pub(super) struct PlainReader {
    store: Arc<dyn Store>,
    key: String,
    info: ObjectInfo,
    cache: Option<(Arc<DiskCache>, CachedObject)>,
    counters: Arc<Counters>,
    /// The block read last: (block number, bytes).
    last: Mutex<Option<(u64, Bytes)>>,
}

impl PlainReader {
    pub(super) fn new(
        store: Arc<dyn Store>,
        key: String,
        info: ObjectInfo,
        cache: Option<Arc<DiskCache>>,
        counters: Arc<Counters>,
    ) -> Self {
        let cache = cache.map(|cache| {
            let object = CachedObject::new(store.url(), &key, info.version.as_deref(), info.size);
            (cache, object)
        });
        Self {
            store,
            key,
            info,
            cache,
            counters,
            last: Mutex::new(None),
        }
    }

    fn fetch(&self, range: Range<u64>) -> io::Result<Bytes> {
        let store = self.store.clone();
        let key = self.key.clone();
        let version = self.info.version.clone();
        let bytes = block(async move { store.get_range(&key, range, version.as_deref()).await })?;
        self.counters.fetched(bytes.len() as u64);
        Ok(bytes)
    }

    fn block(&self, cache: &DiskCache, object: &CachedObject, n: u64) -> io::Result<Bytes> {
        if let Some((last, bytes)) = self.last.lock().as_ref() {
            if *last == n {
                return Ok(bytes.clone());
            }
        }
        let start = n * cache.block_bytes();
        let end = (start + cache.block_bytes()).min(self.info.size);
        let len = usize::try_from(end - start).map_err(io::Error::other)?;
        let bytes = cache.read(object, n, len, || self.fetch(start..end))?;
        *self.last.lock() = Some((n, bytes.clone()));
        Ok(bytes)
    }
}

impl ReadableFile for PlainReader {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&end| end <= self.info.size)
            .ok_or_else(|| {
                past_end(
                    self.store.url(),
                    &self.key,
                    offset,
                    buf.len(),
                    self.info.size,
                )
            })?;
        if buf.is_empty() {
            return Ok(());
        }
        let Some((cache, object)) = &self.cache else {
            buf.copy_from_slice(&self.fetch(offset..end)?);
            return Ok(());
        };
        let block_bytes = cache.block_bytes();
        let mut at = offset;
        while at < end {
            let n = at / block_bytes;
            let bytes = self.block(cache, object, n)?;
            let from = usize::try_from(at - n * block_bytes).map_err(io::Error::other)?;
            let take =
                (bytes.len() - from).min(usize::try_from(end - at).map_err(io::Error::other)?);
            let into = usize::try_from(at - offset).map_err(io::Error::other)?;
            buf[into..into + take].copy_from_slice(&bytes[from..from + take]);
            at += take as u64;
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.info.size
    }
}

/// One chunk of a log.
#[derive(Debug, Clone)]
pub(super) struct Chunk {
    pub key: String,
    /// Its first byte's offset in the log.
    pub start: u64,
    pub len: u64,
}

/// A log's chunks, concatenated.
#[derive(Debug)]
pub(super) struct LogReader {
    store: Arc<dyn Store>,
    key: String,
    chunks: Vec<Chunk>,
    size: u64,
    counters: Arc<Counters>,
}

impl LogReader {
    pub(super) fn new(
        store: Arc<dyn Store>,
        key: String,
        chunks: Vec<Chunk>,
        counters: Arc<Counters>,
    ) -> Self {
        let size = chunks.last().map_or(0, |c| c.start + c.len);
        Self {
            store,
            key,
            chunks,
            size,
            counters,
        }
    }
}

impl ReadableFile for LogReader {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&end| end <= self.size)
            .ok_or_else(|| past_end(self.store.url(), &self.key, offset, buf.len(), self.size))?;
        // (chunk key, range in the chunk, where it goes in buf)
        let mut wanted = Vec::new();
        for chunk in &self.chunks {
            let (from, to) = (offset.max(chunk.start), end.min(chunk.start + chunk.len));
            if from < to {
                let into = usize::try_from(from - offset).map_err(io::Error::other)?;
                wanted.push((
                    chunk.key.clone(),
                    from - chunk.start..to - chunk.start,
                    into,
                ));
            }
        }
        let store = self.store.clone();
        let fetched = block(async move {
            let fetches = wanted.into_iter().map(|(key, range, into)| {
                let store = store.clone();
                async move {
                    let bytes = store.get_range(&key, range, None).await?;
                    Ok::<_, crate::StoreError>((into, bytes))
                }
            });
            let mut stream = futures_util::stream::iter(fetches).buffered(CHUNK_FETCHES_IN_FLIGHT);
            let mut out = Vec::new();
            while let Some(piece) = stream.next().await {
                out.push(piece?);
            }
            Ok(out)
        })?;
        for (into, bytes) in fetched {
            self.counters.fetched(bytes.len() as u64);
            buf[into..into + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.size
    }
}

/// The chunks of the log at `key`, in order, up to its seal (its first empty chunk: see
/// `seal`; chunks after a seal are a fenced writer's and are not part of the log); empty
/// if it has none. Fails, naming the log, on a gap before any seal or a name that is not
/// a chunk's.
pub(super) fn list_chunks(store: &Arc<dyn Store>, key: &str) -> io::Result<Vec<Chunk>> {
    let listed = {
        let store = store.clone();
        let key = key.to_owned();
        block(async move { store.list(&key, crate::ListMode::Children).await })?
    };
    let damaged = |reason: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: log {key}: {reason}", store.url()),
        )
    };
    if let Some(folder) = listed.folders.first() {
        return Err(damaged(format!("holds a folder {folder}, not only chunks")));
    }
    let mut chunks = Vec::with_capacity(listed.objects.len());
    let mut start = 0;
    for (expected, object) in (0u64..).zip(&listed.objects) {
        let name = keys::name_of(&object.key);
        match keys::parse_chunk(name) {
            Some(n) if n == expected => {}
            Some(n) => {
                return Err(damaged(format!(
                    "chunk {expected} is missing (the next one is {n})"
                )))
            }
            None => return Err(damaged(format!("{name} is not a chunk"))),
        }
        if object.size == 0 {
            break; // the seal
        }
        chunks.push(Chunk {
            key: object.key.clone(),
            start,
            len: object.size,
        });
        start += object.size;
    }
    Ok(chunks)
}
