//! The file-system boundary: every byte the engine stores goes through [`FileSystem`].
//!
//! Standalone mode uses [`LocalFs`]; tests wrap it in [`FaultyFs`] to make writes and syncs
//! fail on demand; cluster mode will put an object store behind the same trait.
//!
//! Contract: a [`WritableFile`]'s bytes are durable only after [`WritableFile::sync_data`]
//! returns `Ok`; [`FileSystem::rename`] replaces its target atomically (the way files are
//! published), and is durable after [`FileSystem::sync_dir`] on the target's folder.

mod faulty;
mod local;
mod seal;
mod write_behind;

pub use faulty::{Faults, FaultyFs};
pub use local::LocalFs;

use std::fmt::Debug;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file being written, append only.
pub trait WritableFile: Send + Sync + Debug {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()>;
    /// Makes every byte written so far durable (`fdatasync` on a local disk).
    fn sync_data(&mut self) -> io::Result<()>;
    /// Starts making every byte written so far durable without waiting for it (a hint for
    /// large files; durability still needs [`WritableFile::sync_data`], which reports any
    /// error the background work met).
    fn start_sync(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Bytes written so far: where the next write goes.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes the file holds past which a write changes its size: at least [`Self::len`]
    /// (more after [`Self::preallocate`], or in a reused file).
    fn allocated(&self) -> u64 {
        self.len()
    }
    /// Writes zeros from [`Self::allocated`] up to `up_to` bytes without moving where the
    /// next write goes, so that later writes below `up_to` change no file size (and their
    /// sync no file metadata). `Ok(false)` from a file that cannot (the default: an
    /// append-only file, such as an object store's).
    fn preallocate(&mut self, up_to: u64) -> io::Result<bool> {
        let _ = up_to;
        Ok(false)
    }
    /// Writes `buf`, then `trailer` right after it without counting it: the next write
    /// starts where `buf` ended, over the trailer. Used to mark where a reused file's new
    /// bytes end. The default (a file with nothing after its end) writes `buf` alone.
    fn write_with_trailer(&mut self, buf: &[u8], trailer: &[u8]) -> io::Result<()> {
        let _ = trailer;
        self.write_all(buf)
    }
}

/// A file being read, by offset, from many threads at once.
pub trait ReadableFile: Send + Sync + Debug {
    /// Fills `buf` from `offset`; fails with `UnexpectedEof` past the end.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where the engine's files live.
pub trait FileSystem: Send + Sync + Debug {
    /// Creates (or truncates) a file for writing.
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;
    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>>;
    /// Moves `from` to `to`, replacing `to` atomically.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    fn remove_dir_all(&self, path: &Path) -> io::Result<()>;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Names (not paths) of the entries of a folder, sorted; empty if it does not exist.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    fn exists(&self, path: &Path) -> io::Result<bool>;
    /// Makes renames and creations in `dir` durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// Renames `from` to `to` and opens it for writing from its first byte, keeping its
    /// length and bytes (they are overwritten as writes come): a log segment reused for a
    /// new one. `Ok(None)` from a file system that cannot (the default); `from` is then as
    /// it was.
    fn reuse(&self, from: &Path, to: &Path) -> io::Result<Option<Box<dyn WritableFile>>> {
        let _ = (from, to);
        Ok(None)
    }
    /// Whether [`Self::reuse`] can reuse files.
    fn can_reuse(&self) -> bool {
        false
    }
    /// Shortens a file (used to drop a torn log tail).
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
    /// Makes `to` a second name of the file `from` (a hard link): no byte is copied, and
    /// the file's bytes stay until its last name is removed. Snapshots and clones share
    /// store files this way. A file system without links answers `Unsupported`.
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let _ = (from, to);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot link files",
        ))
    }
    /// Deletes the archived store files no snapshot or clone names any more (each logged)
    /// and returns how many went. A file system with hard links has no archive (the last
    /// name removed frees the bytes): nothing to do (the default).
    fn clean_archive(&self) -> io::Result<usize> {
        Ok(0)
    }
    /// Fences the logs in `dir` (a dead server's log folder) against their writer: after
    /// it returns, nothing that writer syncs is acknowledged, and each log's replayable
    /// end is fixed (see [`SealedLogs`]). Idempotent: a second call returns the first
    /// one's record. `Ok(None)` from a file system that cannot be shared (the default).
    /// [`LocalFs`] seals as a shared folder (`seal`); an object store seals each log's
    /// chunks.
    fn seal_logs(&self, dir: &Path) -> io::Result<Option<SealedLogs>> {
        let _ = dir;
        Ok(None)
    }

    /// Whether the log folder `dir` has been sealed: checked by the log's writer after each
    /// sync, before it acknowledges. A store whose seal fails the writer's next sync by
    /// itself answers `false` without looking.
    fn log_sealed(&self, dir: &Path) -> io::Result<bool> {
        self.exists(&dir.join(SEAL_RECORD))
    }
}

/// The name of the seal's record in a sealed log folder; a writer that finds it there has
/// been fenced, and replay does not take it for a segment.
pub const SEAL_RECORD: &str = "sealed";

/// What [`FileSystem::seal_logs`] fixed: each log of the folder and the length it will be
/// replayed to. A log not named was created after the seal by a fenced writer; nothing
/// in it was ever acknowledged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SealedLogs {
    /// (log name, its sealed length in bytes), sorted by name.
    pub logs: Vec<(String, u64)>,
}

impl SealedLogs {
    /// One line per log: `<name> <length>`.
    pub fn encode(&self) -> String {
        self.logs
            .iter()
            .map(|(name, len)| format!("{name} {len}\n"))
            .collect()
    }

    /// Parses [`SealedLogs::encode`]'s form; `None` if it is not that.
    pub fn decode(text: &str) -> Option<Self> {
        let mut logs = Vec::new();
        for line in text.lines() {
            let (name, len) = line.rsplit_once(' ')?;
            if name.is_empty() {
                return None;
            }
            logs.push((name.to_owned(), len.parse().ok()?));
        }
        Some(Self { logs })
    }

    /// Whether `name` is one of the sealed logs.
    pub fn names(&self, name: &str) -> bool {
        self.length_of(name).is_some()
    }

    /// The sealed length of log `name`.
    pub fn length_of(&self, name: &str) -> Option<u64> {
        self.logs
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, len)| len)
    }
}

/// Reads a whole (small) file.
pub fn read_all(fs: &dyn FileSystem, path: &Path) -> io::Result<Vec<u8>> {
    let file = fs.open(path)?;
    let len = usize::try_from(file.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "file too large"))?;
    let mut buf = vec![0; len];
    file.read_exact_at(&mut buf, 0)?;
    Ok(buf)
}

/// Writes `bytes` to `path` atomically and durably: a temporary file, synced, renamed over
/// `path`, and the folder synced. A failure before the rename (a full disk, say) removes
/// the temporary file and leaves `path` as it was.
pub fn write_atomic(fs: &dyn FileSystem, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp: PathBuf = dir.join(tmp_name);
    let staged = fs.create(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_data()
    });
    if let Err(e) = staged.and_then(|()| fs.rename(&tmp, path)) {
        if let Err(removing) = fs.remove_file(&tmp) {
            if removing.kind() != io::ErrorKind::NotFound {
                tracing::warn!(file = %tmp.display(), error = %removing, "could not remove a partial file");
            }
        }
        return Err(e);
    }
    fs.sync_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::SealedLogs;

    #[test]
    fn a_seal_record_reads_back_and_junk_is_refused() {
        let sealed = SealedLogs {
            logs: vec![("wal-1.log".into(), 4096), ("wal-2.log".into(), 0)],
        };
        let text = sealed.encode();
        assert_eq!(text, "wal-1.log 4096\nwal-2.log 0\n");
        assert_eq!(SealedLogs::decode(&text), Some(sealed.clone()));
        assert!(sealed.names("wal-2.log") && !sealed.names("wal-3.log"));
        assert_eq!(SealedLogs::decode(""), Some(SealedLogs::default()));
        assert_eq!(SealedLogs::decode("wal-1.log x\n"), None);
        assert_eq!(SealedLogs::decode("nospace\n"), None);
    }
}
