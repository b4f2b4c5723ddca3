//! The coordinator's folder: a snapshot, a journal of the revisions committed since, and
//! a lock. Opening replays snapshot then journal into a [`Store`]; committing appends the
//! store's new revisions to the journal and syncs them before the caller is answered;
//! once the journal passes its bound, a new snapshot replaces the old one and the journal
//! starts again. (File layouts: `journal`, `snapshot`; drawn in docs/format.md.)
//!
//! ```text
//! <dir>/LOCK                       held (flock) while a process has the folder open
//! <dir>/snapshot                   every key at the revision the journal starts from
//! <dir>/journal                    the revisions committed after it
//! <dir>/snapshot.tmp, journal.tmp  a replacement being written (renamed into place)
//! <dir>/journal.tail-at-<offset>   torn bytes cut from the journal's end, kept
//! ```
//!
//! Keys under a lease do not outlive the process: a lease cannot, so on open they are
//! deleted at one new revision (journaled like any change), as etcd would expire them.

use super::codec::Damage;
use super::journal::{self, Scan};
use super::snapshot::{self, Snapshot};
use super::store::{Store, HISTORY_EVENTS_MAX};
use crate::{CoordError, Result, WatchEvent};
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

const LOCK: &str = "LOCK";
const SNAPSHOT: &str = "snapshot";
const JOURNAL: &str = "journal";
const TAIL_PREFIX: &str = "journal.tail-at-";

/// When the journal is folded into a new snapshot, and how much history watches get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DurableOptions {
    /// A snapshot is written once the journal holds more bytes than this (default 4 MiB).
    pub journal_bytes_max: u64,
    /// ... or at least this many records (default 10 000).
    pub journal_records_max: u64,
    /// Events kept for watches (history does not survive a restart).
    pub history_events_max: usize,
}

impl Default for DurableOptions {
    fn default() -> Self {
        Self {
            journal_bytes_max: 4 << 20,
            journal_records_max: 10_000,
            history_events_max: HISTORY_EVENTS_MAX,
        }
    }
}

/// An open folder: its lock, the journal being appended to and how full it is.
#[derive(Debug)]
pub(crate) struct Folder {
    dir: PathBuf,
    options: DurableOptions,
    journal: File,
    journal_bytes: u64,
    journal_records: u64,
    _lock: File,
}

fn io(what: &str, path: &Path, error: std::io::Error) -> CoordError {
    CoordError::Storage(format!("cannot {what} {}: {error}", path.display()))
}

fn damaged(path: &Path, damage: Damage) -> CoordError {
    CoordError::Damaged {
        file: path.display().to_string(),
        offset: damage.offset,
        cause: damage.cause,
    }
}

fn newer(kind: &str, path: &Path, version: u32, known: u32) -> CoordError {
    CoordError::Storage(format!(
        "{kind} format version {version} in {} is newer than this Basalt supports ({known}); \
         upgrade Basalt",
        path.display()
    ))
}

impl Folder {
    /// Opens (creating when absent) the folder at `dir` and the store it holds.
    pub(crate) fn open(dir: &Path, options: DurableOptions) -> Result<(Folder, Store)> {
        fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
        let lock = lock(dir)?;
        report_strangers(dir)?;
        let snapshot_path = dir.join(SNAPSHOT);
        let journal_path = dir.join(JOURNAL);
        let snapshot = read_optional(&snapshot_path)?
            .map(|bytes| read_snapshot(&snapshot_path, &bytes))
            .transpose()?;
        let scan = match read_optional(&journal_path)? {
            Some(bytes) => read_journal(&journal_path, &bytes)?,
            None if snapshot.is_some() => {
                return Err(CoordError::Storage(format!(
                    "{} is missing beside {}: the changes after the snapshot would be lost; \
                     refusing to open",
                    journal_path.display(),
                    snapshot_path.display()
                )))
            }
            None => {
                write_atomically(dir, JOURNAL, &journal::encode_header(1))?;
                Scan {
                    base_revision: 1,
                    ..Scan::default()
                }
            }
        };
        let snapshot = snapshot.unwrap_or(Snapshot {
            revision: 1,
            kvs: Vec::new(),
        });
        let mut store = replay(&journal_path, snapshot, &scan, options)?;
        let mut journal_bytes = fs::metadata(&journal_path)
            .map_err(|e| io("read", &journal_path, e))?
            .len();
        if let Some(torn) = &scan.torn {
            cut_torn_tail(dir, &journal_path, torn)?;
            journal_bytes = torn.offset;
        }
        let journal = OpenOptions::new()
            .append(true)
            .open(&journal_path)
            .map_err(|e| io("open", &journal_path, e))?;
        let mut folder = Folder {
            dir: dir.to_path_buf(),
            options,
            journal,
            journal_bytes,
            journal_records: scan.records.len() as u64,
            _lock: lock,
        };
        store.start_journaling();
        if store.drop_leased_keys() {
            tracing::info!(dir = %dir.display(), revision = store.revision(),
                "keys under leases of the previous process deleted");
            folder.commit(store.take_unsaved(), &store)?;
        }
        tracing::info!(dir = %dir.display(), revision = store.revision(), keys = store.kvs().len(),
            "coordinator folder opened");
        Ok((folder, store))
    }

    /// Appends `events` (whole revisions, in order) and syncs them (unless they only create
    /// keys under leases); then writes a new
    /// snapshot if the journal passed its bound. An error leaves the journal in doubt:
    /// the caller stops using this folder.
    pub(crate) fn commit(&mut self, events: Vec<WatchEvent>, store: &Store) -> Result<()> {
        let mut buf = Vec::new();
        let mut records = 0;
        for revision in events.chunk_by(|a, b| a.kv.mod_revision == b.kv.mod_revision) {
            buf.extend(journal::encode_record(
                revision[0].kv.mod_revision,
                revision,
            ));
            records += 1;
        }
        let path = self.dir.join(JOURNAL);
        self.journal
            .write_all(&buf)
            .map_err(|e| io("append to", &path, e))?;
        // A key created under a lease does not outlive the process (the next open drops
        // it), so revisions made only of such keys (elections, registrations) are not
        // synced before the caller is answered: losing them loses nothing a reopen would
        // keep. The next synced revision syncs them too.
        let leased_only = events.iter().all(|e| {
            e.kind == crate::EventKind::Put
                && e.kv.lease != 0
                && e.kv.create_revision == e.kv.mod_revision
        });
        if !leased_only {
            self.journal.sync_data().map_err(|e| io("sync", &path, e))?;
        }
        self.journal_bytes += buf.len() as u64;
        self.journal_records += records;
        if self.journal_bytes > self.options.journal_bytes_max
            || self.journal_records >= self.options.journal_records_max
        {
            self.snapshot(store)?;
        }
        Ok(())
    }

    /// Writes every key as the new snapshot, then starts the journal again after it.
    fn snapshot(&mut self, store: &Store) -> Result<()> {
        let bytes = snapshot::encode(store.revision(), store.kvs());
        write_atomically(&self.dir, SNAPSHOT, &bytes)?;
        let header = journal::encode_header(store.revision());
        write_atomically(&self.dir, JOURNAL, &header)?;
        let path = self.dir.join(JOURNAL);
        self.journal = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| io("open", &path, e))?;
        tracing::debug!(dir = %self.dir.display(), revision = store.revision(),
            snapshot_bytes = bytes.len(), folded_records = self.journal_records,
            "coordinator journal folded into a snapshot");
        self.journal_bytes = header.len() as u64;
        self.journal_records = 0;
        Ok(())
    }
}

/// The store from `snapshot` and the journal records after it. Records must follow one
/// another from the journal's base revision; those the snapshot already holds are skipped
/// (a crash between writing a snapshot and restarting the journal leaves them).
fn replay(path: &Path, snapshot: Snapshot, scan: &Scan, options: DurableOptions) -> Result<Store> {
    if scan.base_revision > snapshot.revision {
        return Err(damaged(
            path,
            Damage::new(
                12,
                format!(
                    "the journal follows revision {} but the snapshot holds only revision {}",
                    scan.base_revision, snapshot.revision
                ),
            ),
        ));
    }
    let snapshot_revision = snapshot.revision;
    let mut store = Store::restore(snapshot_revision, snapshot.kvs, options.history_events_max);
    for (expected, (offset, record)) in (scan.base_revision + 1..).zip(&scan.records) {
        if record.revision != expected {
            return Err(damaged(
                path,
                Damage::new(
                    *offset,
                    format!("revision {} where {expected} was expected", record.revision),
                ),
            ));
        }
        if record.revision > snapshot_revision {
            store.replay(record.revision, record.events.clone());
        }
    }
    Ok(store)
}

fn lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io("open", &path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => Err(CoordError::Storage(format!(
            "coordinator folder {} is in use by another process",
            dir.display()
        ))),
        Err(fs::TryLockError::Error(e)) => Err(io("lock", &path, e)),
    }
}

/// Logs every name in `dir` that is not the coordinator's; nothing is moved or removed.
fn report_strangers(dir: &Path) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| io("list", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io("list", dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        match name.as_ref() {
            LOCK | SNAPSHOT | JOURNAL => {}
            "snapshot.tmp" | "journal.tmp" => tracing::info!(path = %entry.path().display(),
                "left by an interrupted snapshot; replaced by the next one"),
            tail if tail.starts_with(TAIL_PREFIX) => tracing::info!(path = %entry.path().display(),
                "torn journal bytes kept from an earlier open; an operator may remove them"),
            _ => tracing::warn!(path = %entry.path().display(),
                "not a coordinator file; left in place"),
        }
    }
    Ok(())
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("read", path, e)),
    }
}

fn read_snapshot(path: &Path, bytes: &[u8]) -> Result<Snapshot> {
    let version = snapshot::version(bytes).map_err(|d| damaged(path, d))?;
    if version > snapshot::VERSION {
        return Err(newer(
            "coordinator snapshot",
            path,
            version,
            snapshot::VERSION,
        ));
    }
    snapshot::decode(bytes).map_err(|d| damaged(path, d))
}

fn read_journal(path: &Path, bytes: &[u8]) -> Result<Scan> {
    let version = journal::header_version(bytes).map_err(|d| damaged(path, d))?;
    if version > journal::VERSION {
        return Err(newer(
            "coordinator journal",
            path,
            version,
            journal::VERSION,
        ));
    }
    journal::scan(bytes).map_err(|d| damaged(path, d))
}

/// Keeps the torn bytes beside the journal, then cuts the journal back to its last whole
/// record. They were never acknowledged: no caller was told they committed.
fn cut_torn_tail(dir: &Path, path: &Path, torn: &Damage) -> Result<()> {
    tracing::warn!(file = %path.display(), offset = torn.offset, cause = %torn.cause,
        "torn journal tail (a crash mid-append, never acknowledged) cut off");
    let bytes = fs::read(path).map_err(|e| io("read", path, e))?;
    let tail = bytes.get(torn.offset as usize..).unwrap_or_default();
    let mut name = format!("{TAIL_PREFIX}{}", torn.offset);
    let mut n = 0;
    while dir.join(&name).exists() {
        n += 1;
        name = format!("{TAIL_PREFIX}{}~{n}", torn.offset);
    }
    write_atomically(dir, &name, tail)?;
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| io("open", path, e))?;
    file.set_len(torn.offset)
        .map_err(|e| io("truncate", path, e))?;
    file.sync_all().map_err(|e| io("sync", path, e))
}

/// Writes `bytes` as `dir/name` through `name.tmp`: synced, renamed, the folder synced.
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let path = dir.join(name);
    let mut file = File::create(&tmp).map_err(|e| io("create", &tmp, e))?;
    file.write_all(bytes).map_err(|e| io("write", &tmp, e))?;
    file.sync_all().map_err(|e| io("sync", &tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| io("rename into place", &path, e))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io("sync folder", dir, e))
}
