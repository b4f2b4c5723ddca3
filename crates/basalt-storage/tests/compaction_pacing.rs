//! A compaction keeps to its throughput limit (HBase's pressure-aware compaction
//! throughput control): it rests between megabytes when the limit says writing them took
//! too little time, never when pacing is off, and the rows it rewrites are all there after.

use crate::support;

use basalt_storage::StorageConfig;
use basalt_types::{Durability, Put, Scan};
use support::*;

fn compact_paced(lower_bytes_per_sec: u64) -> u64 {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = StorageConfig {
        compaction_throughput_lower_bytes_per_sec: lower_bytes_per_sec,
        compaction_throughput_higher_bytes_per_sec: lower_bytes_per_sec,
        // Only the compaction this test asks for runs.
        compaction_min_files: 100,
        major_compaction_period_ms: 0,
        ..StorageConfig::default()
    };
    let engine = open_engine(dir.path(), config);
    let region = open_region(&engine, table(&["cf"]));
    // Three files of 512 KiB of values each.
    let value = vec![b'v'; 1024];
    for file in 0..3 {
        for i in 0..512 {
            let put = Put::new(format!("row-{file}-{i:05}"))
                .add("cf", "q", value.clone())
                .durability(Durability::SkipWal);
            region.put(&put).expect("put");
        }
        region.flush().expect("flush");
    }
    assert_eq!(region.metrics().store_files, 3);
    region.compact(true).expect("major compaction");
    assert_eq!(region.metrics().store_files, 1);
    let rows = scan_all(&region, &Scan::new());
    assert_eq!(rows.len(), 3 * 512, "every row rewritten");
    engine.context().jobs.stats().compaction_paced_us
}

#[test]
fn a_paced_compaction_rests_between_megabytes_and_an_unpaced_one_never_does() {
    // 1.5 MiB at 512 KiB/s: about three seconds, most of it resting.
    let paced = compact_paced(512 * 1024);
    assert!(
        paced > 0,
        "a compaction writing faster than its limit rests"
    );
    assert_eq!(compact_paced(0), 0, "pacing off: no rest");
}
