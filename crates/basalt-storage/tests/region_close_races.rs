//! Closing a region while a compaction runs on it: the close waits for the compaction, so
//! no manifest commit of the old instance lands after the region is opened again (two
//! instances would then hand out the same file ids and overwrite each other's files).

use crate::support;

use basalt_storage::RegionInfo;
use basalt_types::{Durability, Put, Scan};
use support::*;

#[test]
fn reopening_during_a_compaction_loses_no_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf"]);
    t.compaction_enabled = false;
    let mut expected = 0;
    for round in 0..6 {
        let region = engine
            .open_region(RegionInfo::whole("r1"), t.clone())
            .expect("open");
        for file in 0..4 {
            for i in 0..3000 {
                let put = Put::new(format!("row{round}-{file}-{i:04}"))
                    .add("cf", "q", vec![7u8; 64])
                    .durability(Durability::SkipWal);
                region.put(&put).expect("put");
                expected += 1;
            }
            region.flush().expect("flush");
        }
        std::thread::scope(|s| {
            let compacting = region.clone();
            s.spawn(move || {
                compacting
                    .compact(true)
                    .expect("compaction under way completes");
            });
            // Close only once the compaction is writing its output.
            let tmp = engine.region_dir(&t, "r1").join("cf").join(".tmp");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while std::fs::read_dir(&tmp).map_or(true, |mut d| d.next().is_none()) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the compaction never started"
                );
                std::thread::yield_now();
            }
            engine.close_region("r1").expect("close");
            // The new instance flushes at once: its next file id must not collide with
            // anything the old instance still writes.
            let reopened = engine
                .open_region(RegionInfo::whole("r1"), t.clone())
                .expect("reopen");
            assert_eq!(
                reopened.metrics().store_files,
                1,
                "close returned before the compaction under way committed"
            );
            reopened
                .put(&Put::new(format!("row{round}-new")).add("cf", "q", "v"))
                .expect("put");
            expected += 1;
            reopened.flush().expect("flush after reopen");
        });
        engine.close_region("r1").expect("close");
        let reopened = engine
            .open_region(RegionInfo::whole("r1"), t.clone())
            .expect("reopen");
        assert_eq!(
            scan_all(&reopened, &Scan::new()).len(),
            expected,
            "round {round}"
        );
        engine.close_region("r1").expect("close");
    }
    drop(engine);
    let engine = open_engine(dir.path(), Default::default());
    let region = engine
        .open_region(RegionInfo::whole("r1"), t)
        .expect("open after restart");
    assert_eq!(scan_all(&region, &Scan::new()).len(), expected);
}
