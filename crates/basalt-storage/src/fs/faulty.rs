//! A [`FileSystem`] that fails on demand, for testing what happens after a failed write or
//! sync, or on a full disk.
//!
//! The switches (`fail_*`) make every such operation fail with an I/O error of no
//! particular kind, as a failing device would. A full disk is modelled separately, the way
//! a real one behaves: [`Faults::fill_disk_after`] lets a given number of bytes more be
//! written, then a write stores what still fits and fails with `ENOSPC`
//! ([`io::ErrorKind::StorageFull`]); creating, renaming, truncating, syncing and removing
//! files still work (they need no data blocks). [`Faults::free_space`] ends it.

use super::{FileSystem, ReadableFile, WritableFile};
use parking_lot::Mutex;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Switches shared by a [`FaultyFs`] and every file it opened.
#[derive(Debug, Default)]
pub struct Faults {
    pub fail_writes: AtomicBool,
    pub fail_syncs: AtomicBool,
    pub fail_creates: AtomicBool,
    pub fail_renames: AtomicBool,
    /// File syncs fail with `ENOSPC`, as a disk that finds itself full only when writing
    /// back (a thin-provisioned volume, NFS) reports it.
    pub fail_syncs_no_space: AtomicBool,
    /// `Some` while the disk is filling or full.
    space: Mutex<Option<Space>>,
}

/// What is left of a filling disk.
#[derive(Debug, Clone)]
struct Space {
    left_bytes: u64,
    /// Only files under this folder count (another disk holds the rest), or every file.
    under: Option<PathBuf>,
}

impl Faults {
    fn check(flag: &AtomicBool, what: &str) -> io::Result<()> {
        if flag.load(Ordering::SeqCst) {
            Err(io::Error::other(format!("injected {what} failure")))
        } else {
            Ok(())
        }
    }

    /// From now on, `bytes` more can be written; then the disk is full.
    pub fn fill_disk_after(&self, bytes: u64) {
        *self.space.lock() = Some(Space {
            left_bytes: bytes,
            under: None,
        });
    }

    /// From now on, the disk holding `dir` takes `bytes` more, then is full; only files
    /// under `dir` count (the others are on another disk, as a log on its own disk is).
    pub fn fill_disk_under(&self, dir: &Path, bytes: u64) {
        *self.space.lock() = Some(Space {
            left_bytes: bytes,
            under: Some(dir.to_path_buf()),
        });
    }

    /// Space returns: writes succeed again.
    pub fn free_space(&self) {
        *self.space.lock() = None;
    }

    /// Whether a write of one more byte anywhere would fail for lack of space.
    pub fn disk_full(&self) -> bool {
        self.space
            .lock()
            .as_ref()
            .is_some_and(|s| s.left_bytes == 0)
    }

    /// How many of `len` bytes written to `path` fit (and takes them from what is left).
    fn take_space(&self, path: &Path, len: usize) -> usize {
        let mut space = self.space.lock();
        let Some(space) = space.as_mut() else {
            return len;
        };
        if space
            .under
            .as_ref()
            .is_some_and(|dir| !path.starts_with(dir))
        {
            return len;
        }
        let fits = usize::try_from(space.left_bytes).map_or(len, |left| left.min(len));
        space.left_bytes -= fits as u64;
        fits
    }
}

/// The error a full disk gives.
fn no_space() -> io::Error {
    io::Error::new(
        io::ErrorKind::StorageFull,
        "No space left on device (injected)",
    )
}

/// Wraps another file system; fails the operations its [`Faults`] switch on.
#[derive(Debug)]
pub struct FaultyFs {
    inner: Arc<dyn FileSystem>,
    faults: Arc<Faults>,
}

impl FaultyFs {
    pub fn new(inner: Arc<dyn FileSystem>) -> Self {
        Self {
            inner,
            faults: Arc::new(Faults::default()),
        }
    }

    pub fn faults(&self) -> Arc<Faults> {
        self.faults.clone()
    }
}

#[derive(Debug)]
struct FaultyWritable {
    inner: Box<dyn WritableFile>,
    path: PathBuf,
    faults: Arc<Faults>,
}

impl WritableFile for FaultyWritable {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        Faults::check(&self.faults.fail_writes, "write")?;
        let fits = self.faults.take_space(&self.path, buf.len());
        self.inner.write_all(&buf[..fits])?;
        if fits < buf.len() {
            return Err(no_space());
        }
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        Faults::check(&self.faults.fail_syncs, "sync")?;
        if self.faults.fail_syncs_no_space.load(Ordering::SeqCst) {
            return Err(no_space());
        }
        self.inner.sync_data()
    }

    fn start_sync(&mut self) -> io::Result<()> {
        self.inner.start_sync()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl FileSystem for FaultyFs {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Faults::check(&self.faults.fail_creates, "create")?;
        let inner = self.inner.create(path)?;
        Ok(Box::new(FaultyWritable {
            inner,
            path: path.to_path_buf(),
            faults: self.faults.clone(),
        }))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        self.inner.open(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        Faults::check(&self.faults.fail_renames, "rename")?;
        self.inner.rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_file(path)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        Faults::check(&self.faults.fail_creates, "link")?;
        self.inner.hard_link(from, to)
    }

    fn clean_archive(&self) -> io::Result<usize> {
        self.inner.clean_archive()
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_dir_all(path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.create_dir_all(path)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        self.inner.exists(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        Faults::check(&self.faults.fail_syncs, "sync")?;
        self.inner.sync_dir(dir)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        Faults::check(&self.faults.fail_writes, "write")?;
        self.inner.truncate(path, len)
    }

    fn seal_logs(&self, dir: &Path) -> io::Result<Option<super::SealedLogs>> {
        Faults::check(&self.faults.fail_writes, "write")?;
        self.inner.seal_logs(dir)
    }

    fn log_sealed(&self, dir: &Path) -> io::Result<bool> {
        self.inner.log_sealed(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::LocalFs;

    #[test]
    fn a_full_disk_keeps_what_fits_then_fails_until_space_is_freed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fs = FaultyFs::new(Arc::new(LocalFs));
        let faults = fs.faults();
        let path = dir.path().join("f");
        let mut file = fs.create(&path).expect("create");
        faults.fill_disk_after(5);
        let err = file.write_all(b"0123456789").expect_err("only 5 bytes fit");
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert!(faults.disk_full());
        assert_eq!(std::fs::read(&path).expect("read"), b"01234");
        assert!(file.write_all(b"x").is_err());
        let mut other = fs
            .create(&dir.path().join("g"))
            .expect("creating still works");
        assert!(other.write_all(b"y").is_err());
        faults.free_space();
        file.write_all(b"abc").expect("space is back");
        assert_eq!(std::fs::read(&path).expect("read"), b"01234abc");
    }

    #[test]
    fn a_full_disk_under_a_folder_leaves_other_folders_writable() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fs = FaultyFs::new(Arc::new(LocalFs));
        let full = dir.path().join("data");
        std::fs::create_dir(&full).expect("mkdir");
        fs.faults().fill_disk_under(&full, 0);
        let mut elsewhere = fs.create(&dir.path().join("wal")).expect("create");
        elsewhere.write_all(b"fine").expect("another disk");
        let mut inside = fs.create(&full.join("f")).expect("create");
        assert!(inside.write_all(b"no").is_err());
    }
}
