//! Files being written: a plain file is spooled on local disk and published whole at each
//! sync; a log gets one new immutable chunk object per sync.
//!
//! | file | `write_all` | `sync_data` |
//! |------|-------------|-------------|
//! | plain (HFile, manifest, …) | appends to a temporary local file | uploads the whole file as one object (in parts above `upload_part_bytes`), replacing what an earlier sync published |
//! | log (under `wal/`) | appends to memory | writes the bytes since the last sync as chunk `n` with put-if-absent, trying again on store failures for `log_retry_for`; `n` taken by other bytes (a seal, or another writer) means this writer no longer owns the log: the sync fails and this writer is done (`n` holding these very bytes is this writer's own earlier attempt, whose answer was lost) |
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
use std::time::Duration;

use basalt_storage::fs::SEAL_RECORD;

/// The folder holding the file at `key`.
fn folder_of(key: &str) -> &str {
    key.rsplit_once('/').map_or("", |(folder, _)| folder)
}

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
    retry_for: Duration,
}

impl LogWriter {
    pub(super) fn new(store: Arc<dyn Store>, key: String, retry_for: Duration) -> Self {
        Self {
            store,
            key,
            pending: Vec::new(),
            next_chunk: 0,
            len: 0,
            retry_for,
        }
    }

    fn fenced(&self, why: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{}: log {}: chunk {}: {why}; this writer stops (it no longer owns the log)",
                self.store.url(),
                self.key,
                self.next_chunk
            ),
        )
    }
}

/// How a chunk's put ended.
enum Put {
    Stored,
    /// The key holds other bytes: a seal, or another writer's chunk.
    Taken {
        sealed: bool,
    },
}

/// Puts chunk `key`, trying again while the store fails or is too slow, for `retry_for`
/// in all (each attempt bounded by what is left). A retry that finds the chunk holding
/// exactly these bytes found its own earlier attempt, whose answer was lost.
async fn put_chunk(
    store: Arc<dyn Store>,
    key: String,
    bytes: Bytes,
    retry_for: Duration,
) -> crate::Result<Put> {
    let deadline = tokio::time::Instant::now() + retry_for;
    let mut pause = Duration::from_millis(20);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let attempt = tokio::time::timeout(left, store.put_if_absent(&key, bytes.clone())).await;
        let error = match attempt {
            Ok(Ok(Created::Created)) => return Ok(Put::Stored),
            Ok(Ok(Created::AlreadyExists)) => return judge_taken(&*store, &key, &bytes).await,
            Ok(Err(e)) if !e.is_transient() => return Err(e),
            Ok(Err(e)) => e,
            Err(_) => crate::StoreError::Failed {
                url: store.url().to_owned(),
                op: "put",
                key: key.clone(),
                cause: format!("no answer within {retry_for:?}"),
            },
        };
        if tokio::time::Instant::now() + pause >= deadline {
            return Err(error);
        }
        tracing::warn!(key, error = %error, "storing a log chunk failed: trying again");
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

/// What holds chunk `key` that a put of `bytes` found taken.
async fn judge_taken(store: &dyn Store, key: &str, bytes: &Bytes) -> crate::Result<Put> {
    match store.head(key).await? {
        Some(info) if info.size == 0 => Ok(Put::Taken { sealed: true }),
        Some(info) if info.size == bytes.len() as u64 => {
            let there = store.get_range(key, 0..info.size, None).await?;
            Ok(match there == *bytes {
                true => Put::Stored,
                false => Put::Taken { sealed: false },
            })
        }
        _ => Ok(Put::Taken { sealed: false }),
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
        let put = block(put_chunk(self.store.clone(), chunk, bytes, self.retry_for))?;
        match put {
            Put::Taken { sealed: true } => {
                return Err(
                    self.fenced("crash recovery sealed the log (its server was declared dead)")
                )
            }
            Put::Taken { sealed: false } => {
                return Err(self.fenced("another writer stored this chunk"))
            }
            Put::Stored => {}
        }
        // A new log's first chunk cannot meet a seal (the log had no chunk to seal): the
        // folder's seal record, made before the logs were listed, tells instead.
        if self.next_chunk == 0 {
            let record = keys::join(folder_of(&self.key), SEAL_RECORD);
            let store = self.store.clone();
            if block(async move { store.head(&record).await })?.is_some() {
                return Err(self.fenced(
                    "crash recovery sealed the log folder before this log's first chunk was stored",
                ));
            }
        }
        self.pending.clear();
        self.next_chunk += 1;
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}
