//! Helpers shared by the `wal_*` integration tests: an in-memory file system (fast, and
//! lets a test wait for a sync instead of sleeping), edit builders and log openers.

#![allow(dead_code)] // each test binary uses a different part of this module

use basalt_storage::fs::{FileSystem, ReadableFile, WritableFile};
use basalt_storage::wal::{Wal, WalConfig, WalEdit};
use basalt_types::Cell;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

type Files = BTreeMap<PathBuf, Arc<Mutex<Vec<u8>>>>;

/// A file system in memory. Counts `sync_data` calls and lets tests wait for them.
#[derive(Debug, Default)]
pub struct MemFs {
    files: Mutex<Files>,
    syncs: Mutex<u64>,
    synced: Condvar,
}

impl MemFs {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn read(&self, path: &Path) -> Vec<u8> {
        self.files.lock()[path].lock().clone()
    }

    pub fn write(&self, path: &Path, bytes: Vec<u8>) {
        self.files
            .lock()
            .insert(path.to_path_buf(), Arc::new(Mutex::new(bytes)));
    }

    /// Waits until at least `count` file syncs happened; false on timeout.
    pub fn wait_for_syncs(&self, count: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut syncs = self.syncs.lock();
        while *syncs < count {
            if self.synced.wait_until(&mut syncs, deadline).timed_out() {
                return *syncs >= count;
            }
        }
        true
    }

    pub fn syncs(&self) -> u64 {
        *self.syncs.lock()
    }

    fn file(&self, path: &Path) -> io::Result<Arc<Mutex<Vec<u8>>>> {
        self.files
            .lock()
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, path.display().to_string()))
    }
}

#[derive(Debug)]
struct MemWritable {
    data: Arc<Mutex<Vec<u8>>>,
    fs: Arc<MemFs>,
}

impl WritableFile for MemWritable {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.data.lock().extend_from_slice(buf);
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        *self.fs.syncs.lock() += 1;
        self.fs.synced.notify_all();
        Ok(())
    }

    fn len(&self) -> u64 {
        self.data.lock().len() as u64
    }
}

#[derive(Debug)]
struct MemReadable(Vec<u8>);

impl ReadableFile for MemReadable {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(io::Error::other)?;
        let end = start + buf.len();
        let src = self
            .0
            .get(start..end)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

/// `MemFs` is shared by `Arc` so that its files can reach back to the sync counter.
#[derive(Debug, Clone)]
pub struct SharedMemFs(pub Arc<MemFs>);

impl FileSystem for SharedMemFs {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let data = Arc::new(Mutex::new(Vec::new()));
        self.0.files.lock().insert(path.to_path_buf(), data.clone());
        Ok(Box::new(MemWritable {
            data,
            fs: self.0.clone(),
        }))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let data = self.0.file(path)?.lock().clone();
        Ok(Arc::new(MemReadable(data)))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut files = self.0.files.lock();
        let data = files
            .remove(from)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        files.insert(to.to_path_buf(), data);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.0
            .files
            .lock()
            .remove(path)
            .map(|_| ())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        self.0.files.lock().retain(|p, _| !p.starts_with(path));
        Ok(())
    }

    fn create_dir_all(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let files = self.0.files.lock();
        Ok(files
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        Ok(self.0.files.lock().contains_key(path))
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = self.0.file(path)?;
        let len = usize::try_from(len).map_err(io::Error::other)?;
        file.lock().truncate(len);
        Ok(())
    }
}

pub fn mem_fs() -> (Arc<MemFs>, Arc<dyn FileSystem>) {
    let mem = MemFs::new();
    (mem.clone(), Arc::new(SharedMemFs(mem)))
}

/// A log whose segment files end at their last record (no preallocated zeros): tests of
/// torn tails append their tails to the file. `wal_recycle` covers preallocated and
/// reused segments.
pub fn config() -> WalConfig {
    WalConfig {
        segment_size_bytes: 64 * 1024 * 1024,
        async_sync_interval_ms: 1000,
        preallocate_step_bytes: 0,
        ..WalConfig::default()
    }
}

/// Rewrites a segment of the current format (records naming their segment) as format
/// `version` (1 or 2: records without the id), as an older Basalt wrote it; the
/// preallocated zeros after its last record are dropped.
pub fn downgrade_segment(bytes: &[u8], version: u32) -> Vec<u8> {
    let mut out = bytes[..24].to_vec();
    out[8..12].copy_from_slice(&version.to_be_bytes());
    let crc = crc32c::crc32c(&out[0..20]);
    out[20..24].copy_from_slice(&crc.to_be_bytes());
    let mut at = 24;
    while at + 20 <= bytes.len() && bytes[at..at + 4] != [0; 4] {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let len_bytes = len.to_be_bytes();
        out.extend_from_slice(&len_bytes);
        out.extend_from_slice(&crc32c::crc32c(&len_bytes).to_be_bytes());
        out.extend_from_slice(&bytes[at + 16..at + 20 + len as usize]);
        at += 20 + len as usize;
    }
    out
}

pub fn edit(region: &str, seq_id: u64, cells: usize) -> WalEdit {
    WalEdit {
        region: region.to_string(),
        seq_id,
        cells: (0..cells)
            .map(|i| {
                Cell::put(
                    format!("row-{seq_id}"),
                    "cf",
                    format!("q{i}"),
                    1_000 + i as i64,
                    format!("value-{region}-{seq_id}-{i}"),
                )
                .with_seq(seq_id)
            })
            .collect(),
        nonce: None,
    }
}

pub fn open(fs: &Arc<dyn FileSystem>, dir: &Path, config: WalConfig) -> (Arc<Wal>, Vec<WalEdit>) {
    Wal::open(fs.clone(), dir.to_path_buf(), config).expect("the log opens")
}

/// The segment files in `dir`, oldest first.
pub fn segments(fs: &Arc<dyn FileSystem>, dir: &Path) -> Vec<PathBuf> {
    fs.list(dir)
        .expect("listable")
        .into_iter()
        .filter(|n| n.starts_with("wal-") && n.ends_with(".log"))
        .map(|n| dir.join(n))
        .collect()
}
