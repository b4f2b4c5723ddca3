//! A file of a newer format met by this code is refused with a message naming both
//! versions, never read as today's format and never taken for damage: for a store file
//! (HFile trailer), a log segment (header) and the data folder (`VERSION`). Each test
//! writes the real file with today's code, raises its version with a valid checksum (as a
//! newer Basalt would write it), and checks that opening fails naming the file and both
//! versions, and leaves the folder as it was. (Manifests: `manifest_copies.rs`.)

use crate::support;

use basalt_storage::engine::folder_version;
use basalt_storage::fs::LocalFs;
use basalt_storage::{Engine, Error, ErrorKind, RegionInfo, StorageConfig};
use basalt_types::{Durability, Put};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::*;

/// Every file below `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("list") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.insert(path.clone(), std::fs::read(&path).expect("read"));
        }
    }
    files
}

fn engine_result(dir: &Path) -> basalt_storage::Result<Arc<Engine>> {
    Engine::open(
        Arc::new(LocalFs),
        dir,
        StorageConfig::default(),
        Arc::new(basalt_storage::clock::SystemClock),
    )
}

fn assert_newer(err: &Error, what: &str, file: &Path, found: u32) {
    let want = format!(
        "{what} format version {found} in {} is newer than this Basalt supports ({}); upgrade Basalt",
        file.display(),
        found - 1
    );
    assert_eq!(err.to_string(), want);
    assert_eq!(
        err.kind(),
        ErrorKind::Unavailable,
        "not taken for corruption"
    );
}

/// Rewrites the big-endian u32 at `version_at` and the CRC32C of `crc_over` stored at
/// `crc_at`, as a writer of that version would.
fn raise_version(path: &Path, from_end: bool, version_at: usize, crc_over: usize, crc_at: usize) {
    set_version(path, from_end, version_at, crc_over, crc_at, |v| v + 1);
}

fn set_version(
    path: &Path,
    from_end: bool,
    version_at: usize,
    crc_over: usize,
    crc_at: usize,
    to: impl Fn(u32) -> u32,
) {
    let mut bytes = std::fs::read(path).expect("read");
    let base = if from_end { bytes.len() - 108 } else { 0 };
    let version = u32::from_be_bytes(bytes[base + version_at..][..4].try_into().expect("4"));
    bytes[base + version_at..][..4].copy_from_slice(&to(version).to_be_bytes());
    let crc = crc32c::crc32c(&bytes[base..base + crc_over]);
    bytes[base + crc_at..][..4].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn a_newer_store_file_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let region_dir = {
        let engine = open_engine(dir.path(), StorageConfig::default());
        let region = open_region(&engine, table(&["cf"]));
        region.put(&Put::new("r").add("cf", "q", "v")).expect("put");
        region.flush().expect("flush");
        engine.close().expect("close");
        engine.region_dir(&table(&["cf"]), "r1")
    };
    let file = region_dir
        .join("cf")
        .join(basalt_storage::store::file::file_name(1));
    // Trailer: version at 8, CRC32C of bytes 0..104 at 104 (docs/format.md). This code
    // reads versions 1 and 2 (a NONE file is written as 1): 3 stands for a newer one.
    set_version(&file, true, 8, 104, 104, |_| 3);
    let before = snapshot(dir.path());
    let engine = open_engine(dir.path(), StorageConfig::default());
    let err = engine
        .open_region(RegionInfo::whole("r1"), table(&["cf"]))
        .expect_err("a newer HFile");
    assert_newer(&err, "HFile", &file, 3);
    drop(engine);
    let after = snapshot(dir.path());
    assert_eq!(after.get(&file), before.get(&file), "the file is untouched");
}

#[test]
fn a_newer_log_segment_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let engine = open_engine(dir.path(), StorageConfig::default());
        let region = open_region(&engine, table(&["cf"]));
        let put = Put::new("r")
            .add("cf", "q", "v")
            .durability(Durability::SyncWal);
        region.put(&put).expect("put");
        // Dropped without a close: the edit is only in the log.
    }
    let segment = dir.path().join("wal/wal-00000000000000000001.log");
    // Header: version at 8, CRC32C of bytes 0..20 at 20.
    raise_version(&segment, false, 8, 20, 20);
    let before = snapshot(dir.path());
    let err = engine_result(dir.path()).expect_err("a newer segment");
    let newer = basalt_storage::wal::segment::SEGMENT_VERSION + 1;
    assert_newer(&err, "write-ahead log segment", &segment, newer);
    assert_eq!(
        snapshot(dir.path()),
        before,
        "nothing replayed, truncated or added"
    );
}

#[test]
fn a_version_1_log_segment_is_still_replayed() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let engine = open_engine(dir.path(), StorageConfig::default());
        let region = open_region(&engine, table(&["cf"]));
        region.put(&Put::new("r").add("cf", "q", "v")).expect("put");
        // Dropped without a close: the edit is only in the log.
    }
    // A version 1 writer's segment: the same records (none carries a nonce), framed
    // without the segment's id.
    let segment = dir.path().join("wal/wal-00000000000000000001.log");
    let current = std::fs::read(&segment).expect("read");
    let v1 = crate::wal_support::downgrade_segment(&current, 1);
    std::fs::write(&segment, v1).expect("write");
    let engine = open_engine(dir.path(), StorageConfig::default());
    let region = open_region(&engine, table(&["cf"]));
    let got = region.get(&basalt_types::Get::new("r")).expect("get");
    assert_eq!(got.value(b"cf", b"q"), Some(&b"v"[..]));
}

#[test]
fn a_newer_data_folder_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    open_engine(dir.path(), StorageConfig::default())
        .close()
        .expect("close");
    let path = dir.path().join(folder_version::FILE_NAME);
    assert_eq!(
        std::fs::read_to_string(&path).expect("written at create"),
        folder_version::encode(folder_version::VERSION)
    );
    // Version 2 (a standalone folder whose catalog is in coordinator/) the engine reads.
    let newer = folder_version::COORDINATED + 1;
    std::fs::write(&path, folder_version::encode(newer)).expect("write");
    let before = snapshot(dir.path());
    let err = engine_result(dir.path()).expect_err("a newer folder");
    assert_newer(&err, "data folder", &path, newer);
    assert_eq!(snapshot(dir.path()), before, "nothing read or changed");
}
