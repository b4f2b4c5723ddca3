//! Injected I/O failures: no acknowledgement after a failed log write or sync, the region
//! refuses further writes with a clear error, and nothing acknowledged before is lost.

use crate::support;

use basalt_storage::fs::{FaultyFs, FileSystem, LocalFs};
use basalt_storage::{ErrorKind, StorageConfig};
use basalt_types::{Durability, Get, Put, Scan};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use support::*;

fn check_failure(flip: impl Fn(&basalt_storage::fs::Faults, bool)) {
    let dir = tempfile::tempdir().expect("temp dir");
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    let faults = faulty.faults();
    let fs: Arc<dyn FileSystem> = faulty;
    {
        let engine = open_engine_with(dir.path(), StorageConfig::default(), fs, manual_clock(1000));
        let region = open_region(&engine, table(&["cf"]));
        for i in 0..10 {
            region
                .put(
                    &Put::new(format!("ok{i}"))
                        .add("cf", "q", "v")
                        .durability(Durability::SyncWal),
                )
                .expect("put");
        }
        flip(&faults, true);
        let err = region
            .put(&Put::new("failed").add("cf", "q", "v"))
            .expect_err("no ack after a failure");
        assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
        flip(&faults, false);
        let err = region
            .put(&Put::new("after").add("cf", "q", "v"))
            .expect_err("poisoned");
        assert!(err.to_string().contains("refusing writes"), "{err}");
        assert!(region.poisoned().is_some());
        // Reads still work.
        assert!(!region.get(&Get::new("ok3")).expect("get").is_empty());
    }
    let engine = open_engine(dir.path(), StorageConfig::default());
    let region = open_region(&engine, table(&["cf"]));
    let rows = scan_all(&region, &Scan::new());
    let keys: Vec<_> = rows
        .iter()
        .map(|r| String::from_utf8_lossy(r.row().expect("row")).into_owned())
        .collect();
    for i in 0..10 {
        assert!(
            keys.contains(&format!("ok{i}")),
            "acknowledged ok{i} lost: {keys:?}"
        );
    }
    assert!(!keys.contains(&"after".to_string()));
}

#[test]
fn a_failed_sync_is_never_acknowledged_and_poisons() {
    check_failure(|faults, on| faults.fail_syncs.store(on, Ordering::SeqCst));
}

#[test]
fn a_failed_write_is_never_acknowledged_and_poisons() {
    check_failure(|faults, on| faults.fail_writes.store(on, Ordering::SeqCst));
}

#[test]
fn a_failed_flush_poisons_and_loses_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    let faults = faulty.faults();
    {
        let engine = open_engine_with(
            dir.path(),
            StorageConfig::default(),
            faulty,
            manual_clock(1000),
        );
        let region = open_region(&engine, table(&["cf"]));
        region.put(&Put::new("a").add("cf", "q", "v")).expect("put");
        faults.fail_creates.store(true, Ordering::SeqCst);
        assert!(region.flush().is_err());
        assert!(region.put(&Put::new("b").add("cf", "q", "v")).is_err());
        faults.fail_creates.store(false, Ordering::SeqCst);
    }
    let engine = open_engine(dir.path(), StorageConfig::default());
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(scan_all(&region, &Scan::new()).len(), 1);
}
