//! The engine's background work: flushes when a region's memstore passes its flush size,
//! compactions when files pile up, periodic major compactions, and a clean shutdown.

use crate::support;

use basalt_storage::clock::ManualClock;
use basalt_storage::fs::LocalFs;
use basalt_storage::{Engine, RegionInfo, StorageConfig};
use basalt_types::{Delete, Durability, Put, Scan};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::*;

/// Waits (bounded) until `condition` holds.
fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn memstore_past_its_flush_size_flushes_and_files_get_compacted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(
        dir.path(),
        StorageConfig {
            compaction_min_files: 3,
            ..StorageConfig::default()
        },
    );
    let mut t = table(&["cf"]);
    t.memstore_flush_size_bytes = 16 * 1024;
    let region = open_region(&engine, t);
    for i in 0..2000 {
        region
            .put(
                &Put::new(format!("row{i:05}"))
                    .add("cf", "q", vec![1u8; 100])
                    .durability(Durability::SkipWal),
            )
            .expect("put");
    }
    wait_for("flushes to bring the memstore under its flush size", || {
        region.memstore_size_bytes() < 16 * 1024
    });
    wait_for("compactions to keep the file count low", || {
        region.metrics().store_files < 8
    });
    assert_eq!(scan_all(&region, &Scan::new()).len(), 2000);
    engine.close().expect("clean shutdown");
}

#[test]
fn major_compaction_runs_on_its_period() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(1_000_000));
    let config = StorageConfig {
        major_compaction_period_ms: 60_000,
        ..StorageConfig::default()
    };
    let engine =
        Engine::open(Arc::new(LocalFs), dir.path(), config, clock.clone()).expect("engine opens");
    let region = engine
        .open_region(RegionInfo::whole("r1"), table(&["cf"]))
        .expect("region opens");
    region.put(&Put::new("a").add("cf", "q", "v")).expect("put");
    region.flush().expect("flush");
    region.delete(&Delete::new("a")).expect("delete");
    region.flush().expect("flush");
    assert_eq!(region.metrics().store_files, 2);
    clock.advance(61_000);
    // The major compaction drops the put and the marker: no file is left.
    wait_for("the periodic major compaction", || {
        region.metrics().store_files == 0
    });
    assert!(scan_all(&region, &Scan::new().raw(true)).is_empty());
}
