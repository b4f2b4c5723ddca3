//! A region: the rows of one key range, one store per family.
//!
//! A write takes the row's lock, gets a sequence id, goes to the write-ahead log, then to
//! each family's memstore, and becomes visible when the MVCC read point passes it. A read
//! merges each family's memstore and files at one read point. Flushes and compactions
//! write new files and commit them in the region's manifest.
//!
//! A full disk refuses writes (the log says so) and fails flushes and compactions without
//! harm: they remove what they wrote and are tried again, the memstore stays (its edits
//! are in the log), and a stop leaves them there to be replayed at the next start. Other
//! write failures poison the region: it refuses writes until reopened.
//!
//! # Layout
//! - [`info`]: the region's name and key range.
//! - [`open`]: opening a region and replaying its log edits.
//! - [`write`]: puts, deletes, increments, appends, conditional and row mutations.
//! - [`read`]: gets and scanners.
//! - [`multi_row`]: atomic mutations across rows of the region.
//! - [`flush`]: flushes and compactions.
//! - [`bulk_load`]: adopting files written outside the write path, all at once.
//! - [`split`], [`merge`]: writing daughter or merged region folders that reference this
//!   region's files; [`janitor`]: whether a region's files are still referenced.
//! - [`shared_files`]: a region's files held at one point for a snapshot, and region
//!   folders built from links to them (clones, restores).
//! - [`budget`]: the global memstore limit.
//! - [`load`]: scanned cells and bytes and a sample of written rows, for hot-spot views;
//!   [`sketch`]: the bounded top-k sketch of rows it keeps.
//! - [`manifest`]: which files each store holds, committed atomically, in two copies.
//! - [`mvcc`]: sequence ids and the read point.
//! - [`nonces`]: the nonces of recent edits, kept across moves (`recent.nonces`).
//! - [`row_locks`]: one writer per row.
//! - [`rules`]: what increments, appends and conditions compute.

mod batch;
pub mod budget;
pub mod bulk_load;
pub mod flush;
pub mod info;
pub mod janitor;
pub mod load;
pub mod manifest;
pub mod merge;
mod multi_row;
pub mod mvcc;
pub mod nonces;
mod open;
mod read;
pub mod row_locks;
pub mod rules;
pub mod shared_files;
pub mod sketch;
pub mod split;
mod write;

pub use info::RegionInfo;

use crate::context::Context;
use crate::store::Store;
use crate::{Error, Result};
use basalt_types::TableDescriptor;
use manifest::Manifest;
use mvcc::Mvcc;
use parking_lot::{Mutex, RwLock};
use row_locks::RowLocks;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug)]
pub struct Region {
    info: RegionInfo,
    table: Arc<TableDescriptor>,
    dir: PathBuf,
    ctx: Context,
    /// In family-name order.
    stores: Vec<Arc<Store>>,
    mvcc: Mvcc,
    row_locks: RowLocks,
    /// Writers hold it shared for the whole write; a flush takes it exclusively to freeze
    /// the memstores at a sequence id no write is still working below.
    updates: RwLock<()>,
    /// One flush at a time. Holds the sequence id of the snapshot a failed flush left in
    /// the memstores, which the next flush writes first.
    flush_lock: Mutex<Option<u64>>,
    /// One compaction at a time.
    compaction_lock: Mutex<()>,
    /// The committed manifest; flushes and compactions edit it under this lock.
    manifest: Mutex<Manifest>,
    poisoned: Mutex<Option<String>>,
    /// The highest sequence id written with SKIP_WAL: edits the log does not hold, lost
    /// if a close cannot flush them.
    skip_wal_seq_max: AtomicU64,
    /// Why writes are refused (a split or merge is under way); writers check it while
    /// holding `updates`, so a flush that takes `updates` afterwards holds every write.
    writes_stopped: Mutex<Option<String>>,
    closed: AtomicBool,
    memstore_bytes: AtomicU64,
    read_requests: AtomicU64,
    write_requests: AtomicU64,
    /// Scanned cells and bytes, and the sample of written rows (shared with scanners).
    load: Arc<load::LoadCounters>,
    /// When the last major compaction (or the open) happened.
    last_major_ms: std::sync::atomic::AtomicI64,
    /// The nonces of this region's recent edits: operations a client may retry that were
    /// already applied, here or on an earlier server (see [`Region::apply_once`]).
    nonces: nonces::RecentNonces,
    /// The highest sequence id of edits replayed from another server's log that no flush
    /// has written to files yet (0: none): while set, that log is still needed.
    recovered_unflushed: AtomicU64,
    /// What to do once those edits are flushed (remove the files they came from).
    on_recovered_flushed: Mutex<Option<RecoveredFlushed>>,
}

/// Work run once, when a region's recovered edits reach its files.
pub struct RecoveredFlushed(Box<dyn FnOnce() + Send>);

impl RecoveredFlushed {
    pub fn new(work: impl FnOnce() + Send + 'static) -> Self {
        RecoveredFlushed(Box::new(work))
    }
}

impl std::fmt::Debug for RecoveredFlushed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RecoveredFlushed")
    }
}

/// A region's counters, as the admin API reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionMetrics {
    pub memstore_bytes: u64,
    pub store_files: usize,
    pub store_file_bytes: u64,
    pub read_requests: u64,
    pub write_requests: u64,
}

impl Region {
    pub fn info(&self) -> &RegionInfo {
        &self.info
    }

    pub fn table(&self) -> &Arc<TableDescriptor> {
        &self.table
    }

    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    pub fn memstore_size_bytes(&self) -> u64 {
        self.memstore_bytes.load(Ordering::Relaxed)
    }

    /// The highest sequence id written.
    pub fn last_seq(&self) -> u64 {
        self.mvcc.last_seq()
    }

    /// Scanned cells and bytes and the sample of written rows, since the region opened.
    /// Rows its scanners read and their filters dropped since it opened (HBase's
    /// `filteredReadRequestsCount`); it grows while a filtering scan runs.
    pub fn filtered_read_requests(&self) -> u64 {
        self.load.filtered_rows()
    }

    pub fn load(&self) -> load::LoadReport {
        self.load.report()
    }

    pub fn metrics(&self) -> RegionMetrics {
        RegionMetrics {
            memstore_bytes: self.memstore_size_bytes(),
            store_files: self.stores.iter().map(|s| s.files().len()).sum(),
            store_file_bytes: self.stores.iter().map(|s| s.file_size_bytes()).sum(),
            read_requests: self.read_requests.load(Ordering::Relaxed),
            write_requests: self.write_requests.load(Ordering::Relaxed),
        }
    }

    /// Notes that the edits replayed at open (from another server's log) are only in
    /// memory until a flush passes them; false when there were none to hold.
    pub(crate) fn hold_recovered_edits(&self) -> bool {
        if self.memstore_size_bytes() == 0 {
            return false;
        }
        self.recovered_unflushed
            .store(self.mvcc.last_seq(), Ordering::Release);
        true
    }

    /// Whether this region serves edits replayed from another server's log that are not
    /// in its files yet (so that log is still needed to recover it).
    pub fn holds_recovered_edits(&self) -> bool {
        self.recovered_unflushed.load(Ordering::Acquire) != 0
    }

    /// Runs `work` once the recovered edits this region holds are flushed (at once if
    /// it holds none).
    pub fn when_recovered_edits_flushed(&self, work: RecoveredFlushed) {
        let mut slot = self.on_recovered_flushed.lock();
        if self.holds_recovered_edits() {
            *slot = Some(work);
        } else {
            drop(slot);
            (work.0)();
        }
    }

    /// After a flush committed everything up to `flushed_seq`.
    fn recovered_edits_flushed(&self, flushed_seq: u64) {
        let mut slot = self.on_recovered_flushed.lock();
        let held = self.recovered_unflushed.load(Ordering::Acquire);
        if held != 0 && flushed_seq >= held {
            self.recovered_unflushed.store(0, Ordering::Release);
            if let Some(work) = slot.take() {
                drop(slot);
                (work.0)();
            }
        }
    }

    /// Store files per family, for admin and tests.
    pub fn store_file_counts(&self) -> Vec<(bytes::Bytes, usize)> {
        self.stores
            .iter()
            .map(|s| (s.family().name.clone(), s.files().len()))
            .collect()
    }

    fn store(&self, family: &[u8]) -> Result<&Arc<Store>> {
        self.stores
            .iter()
            .find(|s| s.family().name.as_ref() == family)
            .ok_or_else(|| Error::NoSuchFamily(self.table.unknown_family_message()))
    }

    /// Whether a periodic major compaction is due at `now_ms`.
    pub fn major_compaction_due(&self, now_ms: i64, period_ms: u64) -> bool {
        let last = self.last_major_ms.load(Ordering::Relaxed);
        self.table.compaction_enabled
            && now_ms.saturating_sub(last) >= i64::try_from(period_ms).unwrap_or(i64::MAX)
            && self.stores.iter().any(|s| !s.files().is_empty())
    }

    /// Why the region refuses writes, if it does.
    pub fn poisoned(&self) -> Option<String> {
        self.poisoned
            .lock()
            .clone()
            .or_else(|| self.ctx.wal.poisoned())
    }

    fn poison(&self, why: String) {
        tracing::error!(region = %self.info.name, %why, "region refuses further writes");
        self.poisoned.lock().get_or_insert(why);
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed(format!("region {}", self.info.name)));
        }
        Ok(())
    }

    /// Open, not poisoned and not a read-only table: anything that adds cells checks this.
    fn check_accepts_cells(&self) -> Result<()> {
        self.check_open()?;
        if let Some(why) = self.poisoned() {
            return Err(Error::Poisoned(why));
        }
        if self.table.read_only {
            return Err(Error::invalid(format!(
                "Table '{}' is read-only",
                self.table.name
            )));
        }
        Ok(())
    }

    /// Asks for a compaction once some store holds enough files (after a flush or a load).
    fn request_compaction_if_due(&self) {
        if self.table.compaction_enabled
            && self
                .stores
                .iter()
                .any(|s| s.files().len() >= self.ctx.config.compaction_min_files)
        {
            self.ctx.jobs.request_compaction(&self.info.name);
        }
    }

    /// Cells in the memstores.
    pub fn memstore_cell_count(&self) -> usize {
        self.stores.iter().map(|s| s.memstore_cell_count()).sum()
    }

    /// Flushes the memstores and stops serving. Later calls fail with `Closed`.
    pub fn close(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Ok(());
        }
        // A compaction under way finishes first: its manifest commit must not land after
        // the region is opened again, where a new instance hands out the same file ids.
        let _compaction = self.compaction_lock.lock();
        let flushed = if self.poisoned().is_none() {
            self.flush().map(|_| ())
        } else {
            Ok(())
        };
        self.closed.store(true, Ordering::Release);
        flushed
    }

    /// Closes the region if its memstore flushes. If the flush fails (a full disk) the
    /// region stays open, serving with its memstore kept, and the error is returned: a
    /// region server's region whose close fails stays where it is, as in HBase.
    pub fn close_or_stay_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Ok(());
        }
        let _compaction = self.compaction_lock.lock();
        if self.poisoned().is_none() {
            self.flush()?;
        }
        self.closed.store(true, Ordering::Release);
        Ok(())
    }

    /// Closes the region as the process stops. On a full disk the flush fails and the
    /// memstore's edits stay in the log, replayed at the next start: the close succeeds
    /// and logs what stayed, unless some edits were written with SKIP_WAL and are lost.
    ///
    /// (Not for a region closed while the process goes on, as disabling a table does:
    /// reopening it later replays nothing from the log, so its close must flush.)
    pub fn close_for_shutdown(&self) -> Result<()> {
        match self.close() {
            Err(e) if e.is_no_space() => self.close_unflushed(e),
            other => other,
        }
    }

    /// The end of a shutdown close whose flush found the disk full.
    fn close_unflushed(&self, error: Error) -> Result<()> {
        let flushed_seq = self
            .manifest
            .lock()
            .families
            .values()
            .map(|f| f.flushed_seq)
            .min()
            .unwrap_or(0);
        let unlogged = self.skip_wal_seq_max.load(Ordering::Acquire);
        if unlogged > flushed_seq {
            tracing::error!(region = %self.info.name, up_to_seq = unlogged, %error,
                "closing on a full disk: edits written with SKIP_WAL could not be flushed and are lost");
            return Err(error);
        }
        tracing::warn!(
            region = %self.info.name,
            memstore_bytes = self.memstore_size_bytes(),
            cells = self.memstore_cell_count(),
            from_seq = flushed_seq + 1,
            to_seq = self.last_seq(),
            "closing on a full disk: the memstore could not be flushed; its edits stay in the \
             write-ahead log and are replayed at the next start"
        );
        Ok(())
    }
}
