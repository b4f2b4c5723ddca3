//! The engines under test, each behind one small trait, all with one layout: a record is
//! ten cells (HBase's model), `row 0x00 field<i>` as keys in the key-value engines and
//! `f:field<i>` cells in Basalt.

#![cfg_attr(
    not(any(feature = "rocksdb", feature = "fjall")),
    allow(dead_code, reason = "the key helpers serve the key-value engines alone")
)]

pub mod basalt;
#[cfg(feature = "fjall")]
pub mod fjall;
#[cfg(feature = "rocksdb")]
pub mod rocks;

pub type Result<T> = std::result::Result<T, String>;

/// Settings every engine gets alike.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub block_bytes: u32,
    pub cache_bytes: u64,
    pub memtable_bytes: u64,
    /// Data block compression, on every engine alike.
    pub lz4: bool,
    /// How keys within a data block are laid out.
    pub keys: KeyLayout,
}

/// Keys in a data block, made equal across engines: RocksDB and fjall store each key as a
/// delta from the previous one (restart points every 16 keys) unless told to restart at
/// every key; Basalt's `DATA_BLOCK_ENCODING` chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLayout {
    /// Every key whole: Basalt `NONE`, RocksDB and fjall with a restart at every key.
    Whole,
    /// Shared prefixes dropped: Basalt `PREFIX`, RocksDB and fjall at their default.
    Prefix,
    /// Basalt `FAST_DIFF` (timestamps and repeated values dropped too; the others have no
    /// such layout and keep their prefix deltas).
    FastDiff,
}

impl KeyLayout {
    pub fn parse(text: &str) -> Result<Self> {
        match text.to_ascii_lowercase().as_str() {
            "none" | "whole" => Ok(Self::Whole),
            "prefix" => Ok(Self::Prefix),
            "fast_diff" | "fastdiff" => Ok(Self::FastDiff),
            other => Err(format!("--encoding {other}: expected none, prefix or fast_diff")),
        }
    }

    /// Restart interval for the key-value engines' blocks.
    pub fn restart_interval(self) -> i32 {
        match self {
            Self::Whole => 1,
            Self::Prefix | Self::FastDiff => 16,
        }
    }
}

impl Settings {
    /// What every engine shares, for the report.
    pub fn describe(&self) -> String {
        format!(
            "block cache {} MiB, memtable {} MiB, blocks {} KiB, compression {}",
            self.cache_bytes >> 20,
            self.memtable_bytes >> 20,
            self.block_bytes >> 10,
            if self.lz4 { "LZ4" } else { "none" },
        )
    }
}

pub trait Engine: Send + Sync {
    fn name(&self) -> &'static str;
    /// The engine's settings as opened: cache, memtable, block size, bloom filter,
    /// compression, key layout, and what a durable write waits for.
    fn configuration(&self) -> String;
    /// Writes a whole record; `durable` waits for the log to reach the disk (fdatasync).
    fn insert(&self, row: &[u8], values: &[Vec<u8>], durable: bool) -> Result<()>;
    fn update(&self, row: &[u8], field: usize, value: &[u8], durable: bool) -> Result<()>;
    /// Reads a whole record; returns the bytes of its values.
    fn read(&self, row: &[u8]) -> Result<usize>;
    /// Reads up to `rows` records from `start` on; returns how many it saw.
    fn scan(&self, start: &[u8], rows: usize) -> Result<usize>;
    /// Reads every record; returns the bytes of keys and values.
    fn full_scan(&self) -> Result<u64>;
    /// Writes memtables out to files and waits for it.
    fn flush(&self) -> Result<()>;
    /// Loads records given in key order through the engine's bulk path (sorted files
    /// written directly, no log, no memtable), or through inserts and a flush when it has
    /// none.
    fn bulk_load(&self, records: &mut dyn Iterator<Item = Record>) -> Result<()> {
        for (row, values) in records {
            self.insert(&row, &values, false)?;
        }
        self.flush()
    }
}

/// A record: its row key and field values.
pub type Record = (Vec<u8>, Vec<Vec<u8>>);

/// The qualifier (Basalt) or key suffix (key-value engines) of field `i`.
pub fn field_name(i: usize) -> String {
    format!("field{i}")
}

/// `row 0x00 field<i>`: a record's cells sort together, fields in order.
pub fn cell_key(row: &[u8], field: usize) -> Vec<u8> {
    let mut key = Vec::with_capacity(row.len() + 8);
    key.extend_from_slice(row);
    key.push(0);
    key.extend_from_slice(field_name(field).as_bytes());
    key
}

/// The bounds of a record's cells: `[row 0x00, row 0x01)`.
pub fn row_bounds(row: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut lo = row.to_vec();
    lo.push(0);
    let mut hi = row.to_vec();
    hi.push(1);
    (lo, hi)
}

/// The row part of a cell key.
pub fn row_of(key: &[u8]) -> &[u8] {
    key.iter()
        .position(|&b| b == 0)
        .map_or(key, |end| &key[..end])
}

/// Counts rows while walking cell keys in order, stopping after `limit` rows.
pub struct RowCounter {
    last: Vec<u8>,
    pub rows: usize,
}

impl RowCounter {
    pub fn new() -> Self {
        Self {
            last: Vec::new(),
            rows: 0,
        }
    }

    /// Notes a cell key; false once the cell starts row number `limit + 1`.
    pub fn see(&mut self, key: &[u8], limit: usize) -> bool {
        let row = row_of(key);
        if self.rows == 0 || row != self.last.as_slice() {
            if self.rows == limit {
                return false;
            }
            self.rows += 1;
            self.last.clear();
            self.last.extend_from_slice(row);
        }
        true
    }
}
