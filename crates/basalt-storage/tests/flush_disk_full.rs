//! Flushes and compactions on a full disk (injected `ENOSPC` on the data folder; the log
//! is on another disk, so writes go on): they fail without poisoning the region, remove
//! their own partial output, keep the memstore, and are tried again in the background
//! once space returns; writers beyond the memstore limit get "too busy" meanwhile.

use crate::support;

use basalt_storage::{ErrorKind, Region, StorageConfig};
use basalt_types::Put;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};
use support::*;

fn put(region: &Region, key: &str) -> basalt_storage::Result<()> {
    region.put(&Put::new(key.to_string()).add("cf", "q", format!("value-of-{key}")))
}

/// Puts `count` rows, all of which must be acknowledged, and notes them in `acked`.
fn put_all(region: &Region, prefix: &str, count: usize, acked: &mut BTreeMap<String, String>) {
    for i in 0..count {
        let key = format!("{prefix}{i:04}");
        put(region, &key).expect("acknowledged");
        acked.insert(key.clone(), format!("value-of-{key}"));
    }
}

/// Reopens `dir` with no fault: every acknowledged value must be there.
fn assert_kept_after_restart(
    dir: &Path,
    table: basalt_types::TableDescriptor,
    acked: &BTreeMap<String, String>,
) {
    let engine = open_engine(dir, StorageConfig::default());
    let region = open_region(&engine, table);
    let found = values(&region);
    let lost: Vec<&String> = acked
        .iter()
        .filter(|(k, v)| found.get(*k) != Some(*v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} acknowledged rows lost, first {:?}",
        lost.len(),
        acked.len(),
        &lost[..lost.len().min(5)]
    );
    assert_eq!(found.len(), acked.len(), "only acknowledged rows");
    engine.close().expect("close");
}

/// Waits (bounded) until `condition` holds.
fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Names in the family folder and in its staging folder.
fn family_files(root: &Path) -> (Vec<String>, Vec<String>) {
    let family = root.join("data/default/t/r1/cf");
    let names = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let mut own = names(&family);
    own.retain(|n| n != ".tmp");
    (own, names(&family.join(".tmp")))
}

fn quick_retries() -> StorageConfig {
    StorageConfig {
        retry_backoff_max_ms: 100,
        ..StorageConfig::default()
    }
}

#[test]
fn a_flush_on_a_full_disk_removes_its_file_keeps_the_memstore_and_is_retried() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let config = StorageConfig {
        wal_segment_size_bytes: 4096,
        ..StorageConfig::default()
    };
    let mut acked = BTreeMap::new();
    {
        let engine = open_engine_with(dir.path(), config.clone(), fs, manual_clock(1));
        let region = open_region(&engine, table(&["cf"]));
        put_all(&region, "a", 200, &mut acked);
        faults.fill_disk_under(&dir.path().join("data"), 0);
        let err = region.flush().expect_err("the disk is full");
        assert!(err.is_no_space(), "{err}");
        assert!(region.poisoned().is_none());
        assert_eq!(family_files(dir.path()), (vec![], vec![]), "nothing left");
        assert!(region.memstore_size_bytes() > 0, "the memstore is kept");
        // Writes go on (the log has room); the retry writes the kept snapshot first.
        put_all(&region, "b", 200, &mut acked);
        assert!(region.flush().is_err());
        faults.free_space();
        let files = region.flush().expect("space is back");
        assert_eq!(files.len(), 2, "the kept snapshot, then the newer cells");
        assert_eq!(region.memstore_size_bytes(), 0);
        assert_eq!(values(&region), acked);
        put_all(&region, "c", 10, &mut acked);
        // Dropped without a close: files and log must hold everything.
    }
    assert_kept_after_restart(dir.path(), table(&["cf"]), &acked);
}

#[test]
fn a_retried_flush_commits_its_kept_snapshot_at_the_sequence_id_it_was_taken_at() {
    // The kept snapshot holds the `a` rows only. Committed as flushed up to the newest
    // sequence id, it would let the log drop the `b` rows (small segments: they are in
    // closed ones) while they are still only in the memstore, and the next open would
    // skip them.
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let config = StorageConfig {
        wal_segment_size_bytes: 4096,
        ..StorageConfig::default()
    };
    let mut acked = BTreeMap::new();
    {
        let engine = open_engine_with(dir.path(), config.clone(), fs, manual_clock(1));
        let region = open_region(&engine, table(&["cf"]));
        put_all(&region, "a", 5, &mut acked);
        let data = dir.path().join("data");
        faults.fill_disk_under(&data, 0);
        assert!(region.flush().is_err());
        put_all(&region, "b", 600, &mut acked);
        // Room for the small `a` file and its manifest, not for the `b` one.
        faults.fill_disk_under(&data, 8 * 1024);
        let err = region.flush().expect_err("the second file does not fit");
        assert!(err.is_no_space(), "{err}");
        assert_eq!(
            region.metrics().store_files,
            1,
            "the kept snapshot was flushed"
        );
        // Dropped without a close, as a crash would.
    }
    assert_kept_after_restart(dir.path(), table(&["cf"]), &acked);
}

#[test]
fn background_flushes_failing_on_a_full_disk_are_retried_once_space_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let engine = open_engine_with(dir.path(), quick_retries(), fs, manual_clock(1));
    let mut t = table(&["cf"]);
    t.memstore_flush_size_bytes = 8 * 1024;
    let region = open_region(&engine, t.clone());
    faults.fill_disk_under(&dir.path().join("data"), 0);
    let mut acked = BTreeMap::new();
    put_all(&region, "a", 300, &mut acked);
    // A flush that started (its staging folder exists) and is over without a file failed.
    let staging = dir.path().join("data/default/t/r1/cf/.tmp");
    wait_for("a background flush to fail", || {
        staging.exists()
            && engine.context().jobs.stats().flushes_running == 0
            && region.metrics().store_files == 0
    });
    assert!(region.poisoned().is_none());
    faults.free_space();
    wait_for("a retried flush", || region.metrics().store_files > 0);
    wait_for("the memstore to empty", || {
        region.memstore_size_bytes() < 8 * 1024
    });
    assert_eq!(values(&region), acked);
    engine.close().expect("close");
    assert_kept_after_restart(dir.path(), t, &acked);
}

#[test]
fn writers_get_too_busy_while_flushes_fail_and_resume_once_space_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let config = StorageConfig {
        global_memstore_limit_bytes: 32 * 1024,
        memstore_block_timeout_ms: 200,
        ..quick_retries()
    };
    let engine = open_engine_with(dir.path(), config, fs, manual_clock(1));
    let region = open_region(&engine, table(&["cf"]));
    faults.fill_disk_under(&dir.path().join("data"), 0);
    let mut acked = BTreeMap::new();
    let busy = (0..10_000)
        .find_map(|i| {
            let key = format!("a{i:05}");
            let put = put(&region, &key);
            if put.is_ok() {
                acked.insert(key.clone(), format!("value-of-{key}"));
            }
            put.err()
        })
        .expect("writes are held back once the memstores pass their limit");
    assert_eq!(busy.kind(), ErrorKind::Busy, "{busy}");
    assert!(busy.to_string().contains("global memstore limit"), "{busy}");
    assert!(region.poisoned().is_none());
    faults.free_space();
    let mut resumed = false;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !resumed && Instant::now() < deadline {
        resumed = put(&region, "after").is_ok();
    }
    assert!(resumed, "writes resume once the retried flush frees memory");
    acked.insert("after".into(), "value-of-after".into());
    engine.close().expect("close");
    assert_kept_after_restart(dir.path(), table(&["cf"]), &acked);
}

#[test]
fn a_compaction_on_a_full_disk_removes_its_output_and_succeeds_later() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty_fs();
    let engine = open_engine_with(dir.path(), StorageConfig::default(), fs, manual_clock(1));
    let mut t = table(&["cf"]);
    t.compaction_enabled = false;
    let region = open_region(&engine, t.clone());
    let mut acked = BTreeMap::new();
    for batch in ["a", "b", "c"] {
        put_all(&region, batch, 100, &mut acked);
        region.flush().expect("flush");
    }
    let before = family_files(dir.path());
    assert_eq!(before.0.len(), 3);
    faults.fill_disk_after(1000);
    let err = region.compact(true).expect_err("the disk is full");
    assert!(err.is_no_space(), "{err}");
    assert_eq!(family_files(dir.path()), before, "its output removed");
    assert!(region.poisoned().is_none());
    assert_eq!(values(&region), acked);
    faults.free_space();
    region.compact(true).expect("space is back");
    assert_eq!(family_files(dir.path()).0.len(), 1);
    engine.close().expect("close");
    assert_kept_after_restart(dir.path(), t, &acked);
}
