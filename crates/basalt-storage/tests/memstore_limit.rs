//! A writer faster than flushing is throttled at the global memstore limit instead of
//! growing memory without bound.

use crate::support;

use basalt_storage::StorageConfig;
use basalt_types::{Durability, Put};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use support::*;

#[test]
fn writers_are_held_at_the_global_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let limit = 256 * 1024;
    let config = StorageConfig {
        global_memstore_limit_bytes: limit,
        // Per-region flushes would keep memory low by themselves; make the global limit decide.
        memstore_flush_size_bytes: u64::MAX,
        ..StorageConfig::default()
    };
    let engine = open_engine(dir.path(), config);
    let region = open_region(&engine, table(&["cf"]));
    let peak = Arc::new(AtomicU64::new(0));
    let value = vec![7u8; 1024];
    std::thread::scope(|s| {
        for t in 0..4 {
            let (region, peak, value) = (&region, &peak, &value);
            s.spawn(move || {
                for i in 0..400 {
                    let put = Put::new(format!("t{t}-{i:05}"))
                        .add("cf", "q", value.clone())
                        .durability(Durability::SkipWal);
                    region.put(&put).expect("put");
                    peak.fetch_max(engine_used(region), Ordering::Relaxed);
                }
            });
        }
    });
    let written = 4 * 400 * 1024;
    assert!(
        written > 4 * limit,
        "the load must exceed the limit several times"
    );
    // Each writer may add one cell past the limit before it is throttled.
    let slack = 4 * 2048;
    assert!(
        peak.load(Ordering::Relaxed) <= limit + slack,
        "peak {} over limit {limit}",
        peak.load(Ordering::Relaxed)
    );
    assert!(region.metrics().store_files > 0, "flushes made room");
    let jobs = engine.context().jobs.stats();
    assert!(
        jobs.write_stalls > 0 && jobs.write_stall_us > 0,
        "the writers' waits are counted as write stalls: {jobs:?}"
    );
}

fn engine_used(region: &basalt_storage::Region) -> u64 {
    region.memstore_size_bytes()
}
