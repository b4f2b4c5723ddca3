//! [`Wal`]: the log a region server shares among its regions.

use super::active::{ActiveSegment, Shape};
use super::damage::DamagedSegment;
use super::edit::WalEdit;
use super::recycle::{fate, Fate, FreeSegments};
use super::replay::{replay, RecoveryMode};
use super::retention::Retention;
use super::writer::{GroupCommit, Wait, ASYNC_HANDOFF_BYTES};
use super::{segment, syncer, WalConfig};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use basalt_types::Durability;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tracing::{info, warn};

/// ASYNC_WAL appends that find more than this unsynced in the buffer sync it themselves,
/// so a burst cannot grow the buffer without bound while the background syncer is busy
/// (past [`ASYNC_HANDOFF_BYTES`] it is already writing).
pub const BUFFER_UNSYNCED_MAX_BYTES: usize = 8 * 1024 * 1024;

/// What opening the log found.
#[derive(Debug)]
pub struct Recovered {
    /// Every readable edit, in log order.
    pub edits: Vec<WalEdit>,
    /// Segments with damage that is not a torn tail (see `replay` for what each mode did).
    pub damaged: Vec<DamagedSegment>,
}

/// The write-ahead log: segments in one folder, group-committed appends, replay on open.
#[derive(Debug)]
pub struct Wal {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    commit: Arc<GroupCommit>,
    syncer: Mutex<Option<JoinHandle<()>>>,
    /// Flushed segments kept for reuse.
    free: Arc<FreeSegments>,
}

impl Wal {
    /// Opens the log folder: replays every segment (oldest first) and returns the edits
    /// found, in log order; then starts a fresh segment for new appends. A torn tail of the
    /// newest segment is cut off; any other damage refuses the log, untouched. On a full
    /// disk it opens without a segment: the edits are returned (reads can be served) and
    /// appends are refused with [`Error::NoSpace`] until a segment can be created.
    pub fn open(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        config: WalConfig,
    ) -> Result<(Arc<Wal>, Vec<WalEdit>)> {
        let (wal, recovered) = Self::recover(fs, dir, config, RecoveryMode::Refuse)?;
        Ok((wal, recovered.edits))
    }

    /// Opens the log folder like [`Wal::open`], dealing with damage as `mode` says.
    pub fn recover(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        config: WalConfig,
        mode: RecoveryMode,
    ) -> Result<(Arc<Wal>, Recovered)> {
        config.validate()?;
        let replayed = replay(fs.as_ref(), &dir, mode)?;
        let mut retention = Retention::default();
        for (id, regions) in replayed.segments {
            retention.add_closed(id, regions);
        }
        let free = FreeSegments::adopt(fs.as_ref(), &dir, config.recycle_segments)
            .map(Arc::new)
            .map_err(|e| Error::io(format!("adopting free segments in {}", dir.display()), e))?;
        let shape = Shape {
            size_max_bytes: config.segment_size_bytes,
            preallocate_step_bytes: config.preallocate_step_bytes,
        };
        let active = ActiveSegment::open(
            fs.clone(),
            dir.clone(),
            replayed.next_id,
            shape,
            free.clone(),
        )?;
        let commit = Arc::new(GroupCommit::new(active, retention));
        let interval = Duration::from_millis(config.async_sync_interval_ms);
        let syncer = syncer::spawn(commit.clone(), interval)?;
        let wal = Wal {
            fs,
            dir,
            commit,
            syncer: Mutex::new(Some(syncer)),
            free,
        };
        // Segments with no records (an earlier open that logged nothing) are never needed.
        let mut retention = wal.commit.retention.lock();
        let empty = retention.empty_ids();
        wal.delete_segments(&mut retention, &empty)?;
        drop(retention);
        let recovered = Recovered {
            edits: replayed.edits,
            damaged: replayed.damaged,
        };
        Ok((Arc::new(wal), recovered))
    }

    /// Logs one edit. SkipWal: nothing written. AsyncWal: buffered, returns without waiting;
    /// the background thread syncs within the interval (sooner once the buffer holds
    /// [`ASYNC_HANDOFF_BYTES`]). SyncWal, FsyncWal and UseDefault:
    /// returns only after an fdatasync that covers this edit.
    ///
    /// On a full disk the edit is refused with [`Error::NoSpace`] (never logged later), and
    /// the log goes on: the next append starts a fresh segment. Other failures poison it.
    pub fn append(&self, edit: &WalEdit, durability: Durability) -> Result<()> {
        if durability == Durability::SkipWal {
            return self.commit.check_open();
        }
        let wait = match durability {
            Durability::AsyncWal => Wait::UnlessBufferOver(BUFFER_UNSYNCED_MAX_BYTES),
            _ => Wait::Synced,
        };
        let queued = self.commit.enqueue(edit, wait)?;
        if !queued.must_commit {
            if queued.buffered >= ASYNC_HANDOFF_BYTES {
                self.commit.wake_syncer();
            }
            return Ok(());
        }
        self.commit.commit(queued.ticket, wait == Wait::Synced)
    }

    /// Every edit of `region` with seq_id <= `seq_id` is now in durable files: closed
    /// segments that hold nothing else still needed are deleted (never the active one).
    pub fn mark_flushed(&self, region: &str, seq_id: u64) -> Result<()> {
        let mut retention = self.commit.retention.lock();
        let deletable = retention.mark_flushed(region, seq_id);
        self.delete_segments(&mut retention, &deletable)
    }

    /// Every edit of `region` with seq_id <= `seq_id` is in durable files (a region
    /// opening says so); nothing is deleted now, the next [`Wal::mark_flushed`] counts it.
    pub fn note_flushed(&self, region: &str, seq_id: u64) {
        self.commit.retention.lock().note_flushed(region, seq_id);
    }

    /// Whether `region`'s flushed segments are kept in the archive
    /// ([`super::retained_dir`]) rather than deleted, and its edits timed (its table sets
    /// `WAL_RETENTION_SECS`). Set it before the region logs anything.
    pub fn set_retained(&self, region: &str, retained: bool) {
        self.commit.set_retained(region, retained);
    }

    fn delete_segments(&self, retention: &mut Retention, deletable: &[u64]) -> Result<()> {
        let retained = self.commit.retained();
        for &id in deletable {
            let path = self.dir.join(segment::file_name(id));
            let free_now = self.free.count();
            let can_reuse = self.fs.can_reuse();
            match fate(
                retention.holds_any(id, &retained),
                free_now,
                self.free.max(),
                can_reuse,
            ) {
                Fate::Archive => {
                    self.archive_segment(&path)?;
                    retention.forget(id);
                    continue;
                }
                Fate::Keep => {
                    self.free.keep(self.fs.as_ref(), &path, id).map_err(|e| {
                        Error::io(
                            format!("keeping log segment {} for reuse", path.display()),
                            e,
                        )
                    })?;
                    retention.forget(id);
                    continue;
                }
                Fate::Delete => {}
            }
            match self.fs.remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::io(
                        format!("deleting log segment {}", path.display()),
                        e,
                    ))
                }
            }
            retention.forget(id);
            info!(file = %path.display(), "deleted a fully flushed log segment");
        }
        if !deletable.is_empty() {
            self.fs
                .sync_dir(&self.dir)
                .map_err(|e| Error::io(format!("syncing log folder {}", self.dir.display()), e))?;
        }
        Ok(())
    }

    /// Moves a flushed segment holding edits of a retained region to the archive, where
    /// point-in-time restores read it and only the retention cleaner removes it.
    fn archive_segment(&self, path: &Path) -> Result<()> {
        let archive = super::retained_dir(&self.dir);
        let to = archive.join(path.file_name().unwrap_or_default());
        self.fs
            .create_dir_all(&archive)
            .and_then(|()| self.fs.rename(path, &to))
            .and_then(|()| self.fs.sync_dir(&archive))
            .map_err(|e| {
                Error::io(
                    format!(
                        "archiving log segment {} to {}",
                        path.display(),
                        to.display()
                    ),
                    e,
                )
            })?;
        info!(from = %path.display(), to = %to.display(),
            "archived a flushed log segment a table retains (WAL_RETENTION_SECS)");
        Ok(())
    }

    /// Syncs everything appended so far.
    pub fn sync(&self) -> Result<()> {
        self.commit.commit_all()
    }

    /// Syncs and stops the background thread; later appends fail with `Error::Closed`.
    pub fn close(&self) -> Result<()> {
        let result = self.commit.close();
        self.commit.stop_syncer();
        if let Some(handle) = self.syncer.lock().take() {
            if handle.join().is_err() {
                warn!("the log syncer thread panicked");
            }
        }
        result
    }

    /// Why the log refuses every write from now on, if it does.
    pub fn poisoned(&self) -> Option<String> {
        self.commit.poisoned()
    }

    /// Whether the last write was refused for lack of space (the next one tries again).
    pub fn refusing(&self) -> bool {
        self.commit.refusing()
    }

    /// How many appenders and syncs wait for an outcome still to be told (none once they
    /// have all returned; for tests).
    pub fn waiting_len(&self) -> usize {
        self.commit.waiting_len()
    }

    /// How many times appended batches were synced (a metric; group commit keeps it below
    /// the number of synced appends under concurrency).
    pub fn sync_count(&self) -> u64 {
        self.commit.sync_count()
    }

    /// The log folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Ids of the closed segments still kept (the active segment is not included).
    pub fn closed_segment_ids(&self) -> Vec<u64> {
        self.commit.retention.lock().closed_ids()
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            warn!(error = %e, "closing the write-ahead log on drop failed");
        }
    }
}

/// One log is shared by every region of a server, across threads.
const _: fn() = || {
    fn shared_across_threads<T: Send + Sync>() {}
    shared_across_threads::<Wal>();
};
