//! The engine on a full disk (injected `ENOSPC`): writes are refused with a clear error and
//! resume by themselves once space returns, without poisoning the region; a start on a full
//! disk serves reads; a stop on a full disk leaves no partial file, keeps the unflushed
//! edits in the log for the next start, and fails only if an acknowledged edit is lost.

use crate::support;

use basalt_storage::{Engine, ErrorKind, StorageConfig};
use basalt_types::{Durability, Get, Put};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use support::*;

fn put(key: &str) -> Put {
    Put::new(key.to_string()).add("cf", "q", format!("value-of-{key}"))
}

/// Writes `keys` (SYNC_WAL), all of which must be acknowledged; returns what was written.
fn write_all(region: &basalt_storage::Region, keys: &[String]) -> BTreeMap<String, String> {
    keys.iter()
        .map(|k| {
            region.put(&put(k)).expect("acknowledged");
            (k.clone(), format!("value-of-{k}"))
        })
        .collect()
}

fn keys(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{prefix}{i:03}")).collect()
}

fn assert_refused(result: basalt_storage::Result<()>) {
    let err = result.expect_err("refused on a full disk");
    assert!(err.is_no_space(), "{err:?}");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().starts_with("disk full: "), "{err}");
}

/// Reopens `dir` with no fault and returns its values.
fn reopened_values(dir: &Path) -> BTreeMap<String, String> {
    let engine = open_engine(dir, StorageConfig::default());
    let region = open_region(&engine, table(&["cf"]));
    let found = values(&region);
    engine.close().expect("close");
    found
}

#[test]
fn writes_refused_on_a_full_disk_resume_once_space_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let mut acked;
    {
        let engine = open_engine_with(dir.path(), StorageConfig::default(), fs, manual_clock(1));
        let region = open_region(&engine, table(&["cf"]));
        acked = write_all(&region, &keys("before", 20));
        faults.fill_disk_after(30);
        for k in keys("refused", 5) {
            assert_refused(region.put(&put(&k)));
        }
        assert!(region.poisoned().is_none(), "a full disk does not poison");
        assert_eq!(values(&region), acked, "reads go on");
        faults.free_space();
        acked.extend(write_all(&region, &keys("after", 20)));
        assert_eq!(values(&region), acked);
        // Dropped without a close: only the log keeps the edits.
    }
    assert_eq!(reopened_values(dir.path()), acked);
}

#[test]
fn a_start_on_a_full_disk_serves_reads_and_writes_resume_once_space_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let mut acked;
    {
        let engine = open_engine(dir.path(), StorageConfig::default());
        let region = open_region(&engine, table(&["cf"]));
        acked = write_all(&region, &keys("flushed", 10));
        region.flush().expect("flush");
        acked.extend(write_all(&region, &keys("logged", 10)));
    }
    let wal = dir.path().join("wal");
    let segments_before = std::fs::read_dir(&wal).expect("wal").count();

    faults.fill_disk_after(0);
    let engine = open_engine_with(dir.path(), StorageConfig::default(), fs, manual_clock(1));
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(
        values(&region),
        acked,
        "files and log replayed: reads served"
    );
    assert_eq!(
        std::fs::read_dir(&wal).expect("wal").count(),
        segments_before,
        "no empty log segment created"
    );
    assert_refused(region.put(&put("refused")));
    faults.free_space();
    acked.extend(write_all(&region, &keys("resumed", 5)));
    engine.close().expect("close");
    assert_eq!(reopened_values(dir.path()), acked);
}

/// Writes, fills the disk with some space left (so the flush starts its file and fails
/// midway), closes; returns what was acknowledged.
fn close_on_a_full_disk(
    dir: &Path,
    durability: Durability,
) -> (BTreeMap<String, String>, Arc<Engine>) {
    let (faults, fs) = faulty_fs();
    let engine = open_engine_with(dir, StorageConfig::default(), fs, manual_clock(1));
    let region = open_region(&engine, table(&["cf"]));
    let mut acked = write_all(&region, &keys("flushed", 50));
    region.flush().expect("flush");
    for k in keys("unflushed", 300) {
        region.put(&put(&k).durability(durability)).expect("put");
        acked.insert(k.clone(), format!("value-of-{k}"));
    }
    faults.fill_disk_after(2000);
    (acked, engine)
}

#[test]
fn a_stop_on_a_full_disk_leaves_no_partial_file_and_the_log_keeps_the_edits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (acked, engine) = close_on_a_full_disk(dir.path(), Durability::SyncWal);
    let files_before = store_files(dir.path());
    engine
        .close()
        .expect("nothing acknowledged is lost: the close succeeds");
    assert_eq!(partial_files(dir.path()), Vec::<std::path::PathBuf>::new());
    assert_eq!(store_files(dir.path()), files_before, "no new store file");
    assert_eq!(reopened_values(dir.path()), acked, "replayed from the log");
}

#[test]
fn a_stop_on_a_full_disk_fails_when_skip_wal_edits_cannot_be_flushed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_acked, engine) = close_on_a_full_disk(dir.path(), Durability::SkipWal);
    let err = engine.close().expect_err("SKIP_WAL edits are lost");
    assert!(err.is_no_space(), "{err}");
    assert_eq!(partial_files(dir.path()), Vec::<std::path::PathBuf>::new());
    let engine = open_engine(dir.path(), StorageConfig::default());
    let region = open_region(&engine, table(&["cf"]));
    assert!(!region.get(&Get::new("flushed000")).expect("get").is_empty());
}

#[test]
fn closing_one_region_on_a_full_disk_fails_rather_than_leave_its_edits_behind() {
    // A region closed while the process goes on (a table disabled) replays nothing from
    // the log when it opens again: its close must flush, so a full disk fails it.
    let dir = tempfile::tempdir().expect("temp dir");
    let (acked, engine) = close_on_a_full_disk(dir.path(), Durability::SyncWal);
    let err = engine
        .close_region("r1")
        .expect_err("the flush cannot be written");
    assert!(err.is_no_space(), "{err}");
    assert_eq!(partial_files(dir.path()), Vec::<std::path::PathBuf>::new());
    engine.close().expect("close");
    assert_eq!(reopened_values(dir.path()), acked, "replayed from the log");
}

/// The store files (`*.hfile`) under `root`, sorted.
fn store_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "hfile") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
