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
    /// Bytes written so far.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
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
    /// Shortens a file (used to drop a torn log tail).
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
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
