//! Files being written: a plain file is spooled on local disk and published whole at each
//! sync; a log gets one new immutable chunk object per sync.
//!
//! | file | `write_all` | `sync_data` |
//! |------|-------------|-------------|
//! | plain (HFile, manifest, …) | appends to a temporary local file | uploads the whole file as one object (in parts above `upload_part_bytes`), replacing what an earlier sync published |
//! | log (under `wal/`) | appends to memory | writes the bytes since the last sync as chunk `n` with put-if-absent; `n` taken by other bytes means another writer wrote this log: the sync fails and this writer is done (`n` holding these very bytes is this writer's own earlier attempt, whose answer was lost) |
//!
//! Nothing a writer does is visible on the store before its first sync.

use super::keys;
use crate::bridge;
use crate::store::{Created, Store, Upload};
use basalt_storage::fs::WritableFile;
use bytes::Bytes;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// Runs a store call from a blocking caller.
pub(super) fn block<T, F>(future: F) -> io::Result<T>
where
    T: Send + 'static,
    F: std::future::Future<Output = crate::Result<T>> + Send + 'static,
{
    bridge::run(future)?.map_err(io::Error::from)
}

/// A plain file: spooled locally, uploaded whole at each sync.
#[derive(Debug)]
pub(super) struct PlainWriter {
    store: Arc<dyn Store>,
    key: String,
    spool: File,
    len: u64,
    /// The length last published, `None` before the first sync.
    published: Option<u64>,
    part_bytes: u64,
}

impl PlainWriter {
    pub(super) fn new(
        store: Arc<dyn Store>,
        key: String,
        spool_dir: &Path,
        part_bytes: u64,
    ) -> io::Result<Self> {
        let spool = tempfile::tempfile_in(spool_dir).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("spooling {key} in {}: {e}", spool_dir.display()),
            )
        })?;
        Ok(Self {
            store,
            key,
            spool,
            len: 0,
            published: None,
            part_bytes: part_bytes.max(1),
        })
    }

    fn read_spool(&self, offset: u64, len: u64) -> io::Result<Bytes> {
        let len = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "part too large"))?;
        let mut buf = vec![0; len];
        self.spool.read_exact_at(&mut buf, offset)?;
        Ok(Bytes::from(buf))
    }

    fn upload_in_parts(&self) -> io::Result<()> {
        let store = self.store.clone();
        let key = self.key.clone();
        let mut upload: Box<dyn Upload> = block(async move { store.upload(&key).await })?;
        let mut offset = 0;
        while offset < self.len {
            let part = match self.read_spool(offset, self.part_bytes.min(self.len - offset)) {
                Ok(part) => part,
                Err(e) => {
                    abort(upload, &self.key);
                    return Err(e);
                }
            };
            offset += part.len() as u64;
            let (back, sent) = bridge::run(async move {
                let sent = upload.put_part(part).await;
                (upload, sent)
            })?;
            upload = back;
            if let Err(e) = sent {
                abort(upload, &self.key);
                return Err(e.into());
            }
        }
        block(upload.complete())
    }
}

/// Gives an upload up, best effort (the store discards abandoned uploads by itself).
fn abort(upload: Box<dyn Upload>, key: &str) {
    if let Err(e) = block(upload.abort()) {
        tracing::warn!(key, error = %e, "could not abort an upload");
    }
}

impl WritableFile for PlainWriter {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.spool.write_all(buf)?;
        self.len += buf.len() as u64;
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        if self.published == Some(self.len) {
            return Ok(());
        }
        if self.len > self.part_bytes {
            self.upload_in_parts()?;
        } else {
            let bytes = self.read_spool(0, self.len)?;
            let store = self.store.clone();
            let key = self.key.clone();
            block(async move { store.put(&key, bytes).await })?;
        }
        self.published = Some(self.len);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

/// A log: one chunk object per sync.
#[derive(Debug)]
pub(super) struct LogWriter {
    store: Arc<dyn Store>,
    key: String,
    /// Written since the last sync.
    pending: Vec<u8>,
    next_chunk: u64,
    len: u64,
}

impl LogWriter {
    pub(super) fn new(store: Arc<dyn Store>, key: String) -> Self {
        Self {
            store,
            key,
            pending: Vec::new(),
            next_chunk: 0,
            len: 0,
        }
    }
}

impl WritableFile for LogWriter {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.pending.extend_from_slice(buf);
        self.len += buf.len() as u64;
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let chunk = keys::chunk_key(&self.key, self.next_chunk);
        let bytes = Bytes::copy_from_slice(&self.pending);
        let store = self.store.clone();
        let outcome = block(async move {
            match store.put_if_absent(&chunk, bytes.clone()).await? {
                Created::Created => Ok(true),
                // A request retried after its answer was lost finds its own chunk: the
                // chunk holding exactly these bytes is ours (or identical, which is the
                // same log).
                Created::AlreadyExists => match store.head(&chunk).await? {
                    Some(info) if info.size == bytes.len() as u64 => {
                        let there = store.get_range(&chunk, 0..info.size, None).await?;
                        Ok(there == bytes)
                    }
                    _ => Ok(false),
                },
            }
        })?;
        match outcome {
            true => {
                self.pending.clear();
                self.next_chunk += 1;
                Ok(())
            }
            false => Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: log {}: chunk {} was written by another writer; this writer \
                     stops (it no longer owns the log)",
                    self.store.url(),
                    self.key,
                    self.next_chunk
                ),
            )),
        }
    }

    fn len(&self) -> u64 {
        self.len
    }
}
