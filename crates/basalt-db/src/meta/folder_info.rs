//! The catalog's fallback in the data folders: `.tableinfo` in each table folder (the
//! table's descriptor) and `.regioninfo` in each region folder (the region's table, id and
//! key range), as HBase writes them, so that a lost catalog can be rebuilt from the
//! folders (`basalt hbck rebuild-meta`; nothing reads them at start-up).
//!
//! Both are written whenever a region opens (creation, enable, split, merge, alter, start)
//! if missing or different, and `.tableinfo` also when an alter commits, so that folders
//! written before these files existed get them at their next open. In a cluster the region
//! server writes them on the shared store (the `_on` functions take the engine's file
//! system); a split's or merge's new regions get theirs when written, and the master marks
//! a parent's `.regioninfo` `SPLIT` or `MERGED` once it commits. Writing them is best
//! effort: a failure is logged, never fails the open (a full disk must not stop serving).
//!
//! ```text
//! | magic "BSTI" / "BSRI" | version u32 = 1 | length u32 | value | crc32c u32 of all before |
//! ```
//!
//! `value` is the catalog value encoding ([`super::codec`], docs/format.md): a table
//! descriptor, or a region record (state `OPEN` when it opened; `SPLIT` or `MERGED`, with
//! the regions that replaced it, once the master committed that).

use super::codec;
use super::record::RegionRecord;
use basalt_storage::fs::{self, FileSystem, LocalFs};
use basalt_types::TableDescriptor;
use std::path::{Path, PathBuf};

pub const TABLE_INFO: &str = ".tableinfo";
pub const REGION_INFO: &str = ".regioninfo";
const TABLE_MAGIC: &[u8; 4] = b"BSTI";
const REGION_MAGIC: &[u8; 4] = b"BSRI";
/// The version written.
pub const VERSION: u32 = 1;

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfoError {
    #[error("reading {}: {reason}", file.display())]
    Io { file: PathBuf, reason: String },
    #[error("{} is damaged: {reason}", file.display())]
    Damaged { file: PathBuf, reason: String },
    #[error(
        "{} has format version {found}, newer than this Basalt supports ({VERSION}); upgrade Basalt",
        file.display()
    )]
    Newer { file: PathBuf, found: u32 },
}

pub(crate) fn frame(magic: &[u8; 4], value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 16);
    out.extend_from_slice(magic);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

pub(crate) fn unframe<'a>(
    magic: &[u8; 4],
    bytes: &'a [u8],
    file: &Path,
) -> Result<&'a [u8], InfoError> {
    let damaged = |reason: &str| InfoError::Damaged {
        file: file.to_path_buf(),
        reason: reason.to_string(),
    };
    let Some((body, crc)) = bytes.split_last_chunk::<4>() else {
        return Err(damaged("too short"));
    };
    if body.len() < 12 || crc32c::crc32c(body) != u32::from_be_bytes(*crc) {
        return Err(damaged("checksum mismatch or too short"));
    }
    if &body[..4] != magic {
        return Err(damaged("bad magic"));
    }
    let version = u32::from_be_bytes([body[4], body[5], body[6], body[7]]);
    if version > VERSION {
        return Err(InfoError::Newer {
            file: file.to_path_buf(),
            found: version,
        });
    }
    let len = u32::from_be_bytes([body[8], body[9], body[10], body[11]]) as usize;
    if version == 0 || body.len() != 12 + len {
        return Err(damaged("bad version or length"));
    }
    Ok(&body[12..])
}

/// The bytes of `<table folder>/.tableinfo` for `descriptor`.
pub fn encode_table_info(descriptor: &TableDescriptor) -> Vec<u8> {
    frame(TABLE_MAGIC, &codec::encode_table(descriptor))
}

/// The bytes of `<region folder>/.regioninfo` for `record`.
pub fn encode_region_info(record: &RegionRecord) -> Vec<u8> {
    frame(REGION_MAGIC, &codec::encode_region(record))
}

pub(crate) fn read(fs: &dyn FileSystem, file: &Path) -> Result<Vec<u8>, InfoError> {
    fs::read_all(fs, file).map_err(|e| InfoError::Io {
        file: file.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Reads a table folder's `.tableinfo`.
pub fn read_table_info(table_dir: &Path) -> Result<TableDescriptor, InfoError> {
    read_table_info_on(&LocalFs, table_dir)
}

/// Reads a table folder's `.tableinfo` through `fs`.
pub fn read_table_info_on(
    fs: &dyn FileSystem,
    table_dir: &Path,
) -> Result<TableDescriptor, InfoError> {
    let file = table_dir.join(TABLE_INFO);
    let bytes = read(fs, &file)?;
    let value = unframe(TABLE_MAGIC, &bytes, &file)?;
    codec::decode_table(value).map_err(|reason| InfoError::Damaged { file, reason })
}

/// Reads a region folder's `.regioninfo`.
pub fn read_region_info(region_dir: &Path) -> Result<RegionRecord, InfoError> {
    read_region_info_on(&LocalFs, region_dir)
}

/// Reads a region folder's `.regioninfo` through `fs`.
pub fn read_region_info_on(
    fs: &dyn FileSystem,
    region_dir: &Path,
) -> Result<RegionRecord, InfoError> {
    let file = region_dir.join(REGION_INFO);
    let bytes = read(fs, &file)?;
    let value = unframe(REGION_MAGIC, &bytes, &file)?;
    codec::decode_region(value).map_err(|reason| InfoError::Damaged { file, reason })
}

/// Writes `bytes` to `file` unless it already holds exactly them; logs a failure.
pub(crate) fn ensure(fs: &dyn FileSystem, file: &Path, bytes: &[u8]) {
    if fs::read_all(fs, file).is_ok_and(|held| held == bytes) {
        return;
    }
    if let Err(e) = fs::write_atomic(fs, file, bytes) {
        tracing::warn!(file = %file.display(), error = %e, "could not write catalog fallback file");
    }
}

/// Makes `<table_dir>/.tableinfo` describe `descriptor`.
pub fn ensure_table_info(table_dir: &Path, descriptor: &TableDescriptor) {
    ensure(
        &LocalFs,
        &table_dir.join(TABLE_INFO),
        &encode_table_info(descriptor),
    );
}

/// Makes `<region_dir>/.regioninfo` and its table folder's `.tableinfo` current.
pub fn ensure_region_info(region_dir: &Path, record: &RegionRecord, descriptor: &TableDescriptor) {
    ensure_region_info_on(&LocalFs, region_dir, record, descriptor);
}

/// As [`ensure_region_info`], through `fs` (a region server's shared store).
pub fn ensure_region_info_on(
    fs: &dyn FileSystem,
    region_dir: &Path,
    record: &RegionRecord,
    descriptor: &TableDescriptor,
) {
    ensure_record_on(fs, region_dir, record);
    // Regions of one table open side by side on a region server; its `.tableinfo` is
    // written through one temporary name, so one writer at a time.
    static TABLE_INFO_WRITES: parking_lot::Mutex<()> = parking_lot::Mutex::new(());
    if let Some(table_dir) = region_dir.parent() {
        let _one = TABLE_INFO_WRITES.lock();
        ensure(
            fs,
            &table_dir.join(TABLE_INFO),
            &encode_table_info(descriptor),
        );
    }
}

/// Makes `<region_dir>/.regioninfo` hold `record` (a retired parent's new state, say),
/// through `fs`; a failure is logged.
pub fn ensure_record_on(fs: &dyn FileSystem, region_dir: &Path, record: &RegionRecord) {
    ensure(
        fs,
        &region_dir.join(REGION_INFO),
        &encode_region_info(record),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::record::RegionState;
    use basalt_types::TableName;
    use bytes::Bytes;

    #[test]
    fn region_info_round_trips_and_every_flip_is_caught() {
        let record = RegionRecord::new(
            TableName::parse("ns:t").expect("valid"),
            7,
            Bytes::from_static(b"a"),
            Bytes::from_static(b"m"),
            RegionState::Open,
        );
        let bytes = encode_region_info(&record);
        let file = Path::new("r/.regioninfo");
        let value = unframe(REGION_MAGIC, &bytes, file).expect("valid");
        assert_eq!(codec::decode_region(value), Ok(record));
        for bit in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(unframe(REGION_MAGIC, &bad, file).is_err(), "bit {bit}");
        }
        for len in 0..bytes.len() {
            assert!(unframe(REGION_MAGIC, &bytes[..len], file).is_err(), "{len}");
        }
        assert!(
            unframe(TABLE_MAGIC, &bytes, file).is_err(),
            "not a .tableinfo"
        );
    }

    #[test]
    fn a_newer_version_is_refused() {
        let mut bytes = frame(TABLE_MAGIC, b"anything");
        bytes.truncate(bytes.len() - 4);
        bytes[4..8].copy_from_slice(&2u32.to_be_bytes());
        let crc = crc32c::crc32c(&bytes);
        bytes.extend_from_slice(&crc.to_be_bytes());
        let err = unframe(TABLE_MAGIC, &bytes, Path::new("t/.tableinfo")).expect_err("newer");
        assert_eq!(
            err.to_string(),
            "t/.tableinfo has format version 2, newer than this Basalt supports (1); upgrade Basalt"
        );
    }
}
