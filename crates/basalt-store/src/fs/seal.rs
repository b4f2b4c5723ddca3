//! Sealing a dead server's log folder on an object store (design §5.3, fencing layer 1).
//!
//! A log is its chunks `0, 1, 2, …`, each created with put-if-absent, and a writer never
//! writes an empty one. The seal of a log is an **empty chunk at its first gap**: the
//! writer's next sync tries that very key, finds it taken by bytes that are not its own,
//! and fails, so it acknowledges nothing more. If the writer's chunk wins the race for the
//! key instead, the seal goes to the next gap: exactly one of the two gets each key, and
//! whatever the writer did get is before the seal and replayed.
//!
//! A folder is sealed in three steps, like a shared folder's (`basalt_storage::fs`):
//! 1. the record `sealed` is created empty: a writer that creates a *new* log after this
//!    finds it once its first chunk is stored and fails that sync;
//! 2. every log present gets its seal;
//! 3. `sealed` is rewritten with each log and its length up to the seal: replay reads
//!    exactly that, whoever reads and however often recovery runs.
//!
//! Reading a log stops at its first empty chunk (`read::list_chunks`): chunks after it are
//! a fenced writer's, never acknowledged.

use super::keys;
use super::write::block;
use super::StoreFs;
use crate::store::{Created, ListMode};
use basalt_storage::fs::{SealedLogs, SEAL_RECORD};
use bytes::Bytes;
use std::io;

/// How often one log's seal is retried when its writer keeps winning the next chunk.
const SEAL_ATTEMPTS: usize = 64;

impl StoreFs {
    /// Seals the log folder at `key` (see the module's story).
    pub(super) fn seal_folder(&self, key: &str) -> io::Result<SealedLogs> {
        let record = keys::join(key, SEAL_RECORD);
        match self.head(&record)? {
            Some(info) if info.size > 0 => {
                let (store, at) = (self.store.clone(), record.clone());
                let text = block(async move { store.get_range(&at, 0..info.size, None).await })?;
                let text = String::from_utf8_lossy(&text);
                return SealedLogs::decode(&text).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{}: {record}: not a seal record: {text:?}",
                            self.store.url()
                        ),
                    )
                });
            }
            Some(_) => {}
            None => self.put_if_absent(&record, Bytes::new()).map(drop)?,
        }
        let listed = self.list_under(key, ListMode::Children)?;
        let mut logs = Vec::new();
        for folder in &listed.folders {
            let name = keys::name_of(folder);
            if name == basalt_storage::wal::corrupt::CORRUPT_DIR {
                continue;
            }
            logs.push((name.to_owned(), self.seal_log(folder)?));
        }
        let sealed = SealedLogs { logs };
        let (store, at, text) = (self.store.clone(), record, Bytes::from(sealed.encode()));
        block(async move { store.put(&at, text).await })?;
        tracing::info!(
            url = self.store.url(),
            folder = key,
            logs = sealed.logs.len(),
            "sealed a dead server's log folder"
        );
        Ok(sealed)
    }

    /// Puts an empty chunk at the first gap of the log at `key` (or finds one there);
    /// returns the log's length up to it.
    fn seal_log(&self, key: &str) -> io::Result<u64> {
        for _ in 0..SEAL_ATTEMPTS {
            let listed = self.list_under(key, ListMode::Children)?;
            let mut len = 0;
            let mut gap = 0;
            for object in &listed.objects {
                match keys::parse_chunk(keys::name_of(&object.key)) {
                    Some(n) if n == gap && object.size == 0 => return Ok(len),
                    Some(n) if n == gap => {
                        len += object.size;
                        gap += 1;
                    }
                    _ => break,
                }
            }
            match self.put_if_absent(&keys::chunk_key(key, gap), Bytes::new())? {
                Created::Created => {
                    tracing::info!(
                        url = self.store.url(),
                        log = key,
                        chunk = gap,
                        "sealed a log"
                    );
                    return Ok(len);
                }
                Created::AlreadyExists => {
                    tracing::info!(
                        url = self.store.url(),
                        log = key,
                        chunk = gap,
                        "its writer stored the chunk the seal was for: sealing at the next gap"
                    );
                }
            }
        }
        Err(io::Error::other(format!(
            "{}: log {key}: its writer won the race for {SEAL_ATTEMPTS} chunks in a row; \
             it is not dead",
            self.store.url()
        )))
    }

    fn put_if_absent(&self, key: &str, bytes: Bytes) -> io::Result<Created> {
        let (store, key) = (self.store.clone(), key.to_owned());
        block(async move { store.put_if_absent(&key, bytes).await })
    }
}
