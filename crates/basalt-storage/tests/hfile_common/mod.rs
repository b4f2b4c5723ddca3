//! Helpers shared by the `hfile_*` tests: an in-memory file system, cell generators and
//! a model of what a scanner must return.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use basalt_storage::block_cache::BlockCache;
use basalt_storage::fs::{FileSystem, ReadableFile, WritableFile};
use basalt_storage::hfile::{FileInfo, HFileReader, HFileWriter, WriterOptions};
use basalt_storage::scanner::CellSource;
use basalt_storage::Result;
use basalt_types::{Cell, CellType};
use bytes::Bytes;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files held in memory, so tests that open thousands of variants stay fast.
#[derive(Debug, Default)]
pub struct MemFs {
    files: Mutex<BTreeMap<PathBuf, Arc<Vec<u8>>>>,
}

#[derive(Debug)]
struct MemWritable {
    fs: Arc<MemFs>,
    path: PathBuf,
    buf: Vec<u8>,
}

impl WritableFile for MemWritable {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(buf);
        Ok(())
    }
    fn sync_data(&mut self) -> io::Result<()> {
        self.fs.put(&self.path, self.buf.clone());
        Ok(())
    }
    fn len(&self) -> u64 {
        self.buf.len() as u64
    }
}

#[derive(Debug)]
struct MemReadable(Arc<Vec<u8>>);

impl ReadableFile for MemReadable {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(io::Error::other)?;
        let src = start
            .checked_add(buf.len())
            .and_then(|end| self.0.get(start..end))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

impl MemFs {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn put(&self, path: &Path, bytes: Vec<u8>) {
        self.files
            .lock()
            .insert(path.to_path_buf(), Arc::new(bytes));
    }

    pub fn get(&self, path: &Path) -> Vec<u8> {
        self.files
            .lock()
            .get(path)
            .map(|b| b.to_vec())
            .unwrap_or_default()
    }

    /// A writer whose synced bytes land in this file system.
    pub fn create_shared(self: &Arc<Self>, path: &Path) -> Box<dyn WritableFile> {
        Box::new(MemWritable {
            fs: self.clone(),
            path: path.to_path_buf(),
            buf: Vec::new(),
        })
    }
}

/// `FileSystem` over a shared `MemFs` (the trait's `create` needs the `Arc`).
#[derive(Debug, Clone)]
pub struct Mem(pub Arc<MemFs>);

impl FileSystem for Mem {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(self.0.create_shared(path))
    }
    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let files = self.0.files.lock();
        let bytes = files.get(path).ok_or(io::ErrorKind::NotFound)?;
        Ok(Arc::new(MemReadable(bytes.clone())))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut files = self.0.files.lock();
        let bytes = files.remove(from).ok_or(io::ErrorKind::NotFound)?;
        files.insert(to.to_path_buf(), bytes);
        Ok(())
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.0.files.lock().remove(path);
        Ok(())
    }
    fn remove_dir_all(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }
    fn create_dir_all(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }
    fn list(&self, _dir: &Path) -> io::Result<Vec<String>> {
        Ok(Vec::new())
    }
    fn exists(&self, path: &Path) -> io::Result<bool> {
        Ok(self.0.files.lock().contains_key(path))
    }
    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let mut bytes = self.0.get(path);
        bytes.truncate(len as usize);
        self.0.put(path, bytes);
        Ok(())
    }
}

/// A small deterministic random source (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const TYPES: [CellType; 5] = [
    CellType::Put,
    CellType::Delete,
    CellType::DeleteColumn,
    CellType::DeleteFamily,
    CellType::DeleteFamilyVersion,
];

/// `n` varied cells in cell order: rows of different lengths, two families, empty
/// qualifiers and values, every type, negative timestamps, TTLs, a few large values.
pub fn varied_cells(n: usize, seed: u64) -> Vec<Cell> {
    let mut rng = Rng(seed);
    let mut cells = Vec::with_capacity(n);
    for _ in 0..n {
        let row = format!(
            "row{:0width$}",
            rng.below(n as u64 / 3 + 1),
            width = 1 + rng.below(6) as usize
        );
        let family = if rng.below(4) == 0 { "a" } else { "cf" };
        let qualifier = match rng.below(4) {
            0 => String::new(),
            q => format!("q{q}{}", "x".repeat(rng.below(10) as usize)),
        };
        let value: Vec<u8> = match rng.below(20) {
            0 => Vec::new(),
            1 => vec![b'V'; 20_000 + rng.below(50_000) as usize],
            _ => (0..rng.below(60))
                .map(|i| (i as u8).wrapping_mul(31))
                .collect(),
        };
        let ts = rng.below(1000) as i64 - 100;
        let cell_type = TYPES[rng.below(TYPES.len() as u64) as usize];
        let mut cell =
            Cell::marker(row, family, qualifier, ts, cell_type).with_seq(rng.below(1 << 40));
        if cell_type == CellType::Put {
            cell.set_value(Bytes::from(value));
        }
        if rng.below(8) == 0 {
            cell.set_ttl_ms(Some(rng.next() >> 4));
        }
        cells.push(cell);
    }
    sort_dedup(cells)
}

pub fn sort_dedup(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort_by(|a, b| a.cmp_key(b));
    cells.dedup_by(|a, b| a.cmp_key(b).is_eq());
    cells
}

pub fn write(fs: &dyn FileSystem, path: &Path, cells: &[Cell], opts: WriterOptions) -> FileInfo {
    let mut w = HFileWriter::create(fs, path, opts).expect("create");
    for c in cells {
        w.append(c).expect("append");
    }
    w.finish().expect("finish")
}

pub fn open(fs: &dyn FileSystem, path: &Path, cache: &Arc<BlockCache>) -> Result<Arc<HFileReader>> {
    HFileReader::open(fs, path, 1, cache.clone())
}

/// Every cell of the file, in order.
pub fn scan_all(reader: &Arc<HFileReader>) -> Result<Vec<Cell>> {
    let mut s = reader.scanner(true);
    s.seek_to_first()?;
    let mut out = Vec::new();
    while let Some(c) = s.peek() {
        out.push(c.clone());
        s.advance()?;
    }
    Ok(out)
}

/// Index of the first model cell `>= key`.
pub fn model_seek(model: &[Cell], key: &Cell) -> usize {
    model.partition_point(|c| c.cmp_key(key).is_lt())
}

/// Index of the first cell of the greatest row `< row`, or `None`.
pub fn model_previous_row(model: &[Cell], row: &[u8]) -> Option<usize> {
    let end = model.partition_point(|c| c.row() < row);
    let prev = &model.get(end.checked_sub(1)?)?.row();
    Some(model.partition_point(|c| c.row() < *prev))
}
