//! The nonces of a region's recent edits, so that a client's retry of an increment,
//! append or check-and-mutate is refused rather than applied twice — on this server and
//! on every later one, however often the region moves.
//!
//! A nonce is known three ways: recorded when its edit is applied here, read back from the
//! log replayed at open (the edit may have been applied by a server that died), or read
//! from the region's [`file`] (`recent.nonces`), which each flush that flushed an edit with
//! a nonce rewrites before its manifest commit lets the log go. So a nonce lives wherever
//! its edit does: in the log while the edit is only there, in the file once the edit is in
//! a store file. Only nonces of flushed edits (sequence id at or below the flush's) go into
//! the file: a later edit may still be lost with the log's unsynced tail, and its nonce
//! must not then refuse the client's retry.
//!
//! Nonces are kept for `window_ms` after their edit (HBase's
//! `hbase.server.hashNonce.gracePeriod`, 30 minutes) and at most `max` per region, the
//! oldest going first.
//!
//! # Layout
//! - [`file`]: the `recent.nonces` format.

pub mod file;

use crate::fs::{read_all, write_atomic, FileSystem};
use basalt_types::Nonce;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

/// One nonce: the edit that carried it and when it was applied (or first seen here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub nonce: Nonce,
    pub seq_id: u64,
    pub applied_ms: i64,
}

/// A region's recent nonces; see the module documentation.
#[derive(Debug)]
pub struct RecentNonces {
    window_ms: i64,
    max: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Nonce → its entry's position key in `order` (the entry itself).
    known: HashMap<Nonce, Entry>,
    /// Oldest first, for ageing out.
    order: VecDeque<Nonce>,
    /// The highest sequence id the region's file holds every nonce up to.
    persisted_seq: u64,
}

impl RecentNonces {
    /// The nonces of the file in `dir` (if any) still inside the window at `now_ms`.
    pub fn load(fs: &dyn FileSystem, dir: &Path, window_ms: i64, max: usize, now_ms: i64) -> Self {
        let nonces = Self {
            window_ms,
            max: max.max(1),
            inner: Mutex::default(),
        };
        let path = dir.join(file::FILE_NAME);
        let entries = match read_all(fs, &path) {
            Ok(bytes) => file::decode(&bytes).unwrap_or_else(|why| {
                tracing::warn!(file = %path.display(), %why,
                    "the region's nonce file is unreadable: retries of operations flushed \
                     before this open are not recognised; it is rewritten at the next flush");
                Vec::new()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                tracing::warn!(file = %path.display(), error = %e,
                    "could not read the region's nonce file; opening without it");
                Vec::new()
            }
        };
        let mut inner = nonces.inner.lock();
        let mut entries = entries;
        entries.sort_by_key(|e| e.applied_ms);
        for entry in entries {
            inner.persisted_seq = inner.persisted_seq.max(entry.seq_id);
            nonces.insert(&mut inner, entry, now_ms);
        }
        drop(inner);
        nonces
    }

    /// Remembers `nonce`, the nonce of the edit `seq_id`, applied (or replayed) at `now_ms`.
    pub fn record(&self, nonce: Nonce, seq_id: u64, now_ms: i64) {
        let entry = Entry {
            nonce,
            seq_id,
            applied_ms: now_ms,
        };
        self.insert(&mut self.inner.lock(), entry, now_ms);
    }

    /// Whether an edit carrying `nonce` was applied to this region within the window.
    pub fn contains(&self, nonce: &Nonce) -> bool {
        self.inner.lock().known.contains_key(nonce)
    }

    /// How many nonces are kept.
    pub fn len(&self) -> usize {
        self.inner.lock().known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the file in `dir` if an edit at or below `flushed_seq` carried a nonce the
    /// file does not hold yet. Called by a flush before its manifest commit.
    pub fn persist(
        &self,
        fs: &dyn FileSystem,
        dir: &Path,
        flushed_seq: u64,
    ) -> std::io::Result<()> {
        let entries = {
            let inner = self.inner.lock();
            let news = inner
                .known
                .values()
                .any(|e| e.seq_id > inner.persisted_seq && e.seq_id <= flushed_seq);
            if !news {
                return Ok(());
            }
            self.flushed(&inner, flushed_seq)
        };
        write_atomic(fs, &dir.join(file::FILE_NAME), &file::encode(&entries))?;
        let mut inner = self.inner.lock();
        inner.persisted_seq = inner.persisted_seq.max(flushed_seq);
        Ok(())
    }

    /// The nonces of edits at or below `flushed_seq`, for a region made from this one (split
    /// daughters, a merged region) to start with.
    pub fn flushed_entries(&self, flushed_seq: u64) -> Vec<Entry> {
        self.flushed(&self.inner.lock(), flushed_seq)
    }

    /// Writes `entries` as the nonce file of the region folder `dir`.
    pub fn write_for(fs: &dyn FileSystem, dir: &Path, entries: &[Entry]) -> std::io::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        write_atomic(fs, &dir.join(file::FILE_NAME), &file::encode(entries))
    }

    fn flushed(&self, inner: &Inner, flushed_seq: u64) -> Vec<Entry> {
        inner
            .order
            .iter()
            .filter_map(|n| inner.known.get(n))
            .filter(|e| e.seq_id <= flushed_seq)
            .copied()
            .collect()
    }

    fn insert(&self, inner: &mut Inner, entry: Entry, now_ms: i64) {
        let oldest_kept = now_ms.saturating_sub(self.window_ms);
        if entry.applied_ms < oldest_kept {
            return;
        }
        if inner.known.insert(entry.nonce, entry).is_none() {
            inner.order.push_back(entry.nonce);
        }
        while let Some(&front) = inner.order.front() {
            let expired = inner
                .known
                .get(&front)
                .is_none_or(|e| e.applied_ms < oldest_kept);
            if !expired && inner.order.len() <= self.max {
                break;
            }
            inner.order.pop_front();
            inner.known.remove(&front);
        }
    }
}

#[cfg(test)]
mod tests;
