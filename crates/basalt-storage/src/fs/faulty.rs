//! A [`FileSystem`] that fails on demand, for testing what happens after a failed write or
//! sync.

use super::{FileSystem, ReadableFile, WritableFile};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Switches shared by a [`FaultyFs`] and every file it opened.
#[derive(Debug, Default)]
pub struct Faults {
    pub fail_writes: AtomicBool,
    pub fail_syncs: AtomicBool,
    pub fail_creates: AtomicBool,
    pub fail_renames: AtomicBool,
}

impl Faults {
    fn check(flag: &AtomicBool, what: &str) -> io::Result<()> {
        if flag.load(Ordering::SeqCst) {
            Err(io::Error::other(format!("injected {what} failure")))
        } else {
            Ok(())
        }
    }
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
    faults: Arc<Faults>,
}

impl WritableFile for FaultyWritable {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        Faults::check(&self.faults.fail_writes, "write")?;
        self.inner.write_all(buf)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        Faults::check(&self.faults.fail_syncs, "sync")?;
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
}
