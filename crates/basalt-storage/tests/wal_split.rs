//! A dead server's sealed log split per region (cluster-design §5.4, server crash step 3):
//! each region named gets exactly its own edits, in log order with their sequence ids and
//! nonces (an empty file for a region the log holds nothing of); a log that is not sealed
//! is refused, since its writer might still add to it.

use crate::wal_support;

use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::wal::{recovered, split::split_log};
use basalt_types::Durability;
use std::collections::BTreeMap;
use std::sync::Arc;
use wal_support::{config, edit, open};

#[test]
fn wal_a_sealed_log_splits_into_each_regions_own_edits() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let log = tmp.path().join("wal").join("h,1,1");
    let (wal, _) = open(&fs, &log, config());
    let edits: Vec<_> = (1..=9)
        .map(|seq| edit(["a", "b", "c"][seq as usize % 3], seq, 2))
        .collect();
    for e in &edits {
        wal.append(e, Durability::SyncWal).expect("acknowledged");
    }
    let regions: BTreeMap<String, std::path::PathBuf> = ["a", "b", "quiet"]
        .iter()
        .map(|r| (r.to_string(), tmp.path().join("data").join(r)))
        .collect();
    let refused = split_log(fs.as_ref(), &log, "h,1,1", &regions).expect_err("not sealed");
    assert!(refused.to_string().contains("not sealed"), "{refused}");

    fs.seal_logs(&log).expect("seal").expect("sealed");
    let outcome = split_log(fs.as_ref(), &log, "h,1,1", &regions).expect("split");
    assert_eq!(
        (outcome.edits, outcome.edits_written, outcome.files),
        (9, 6, 3)
    );
    for (region, dir) in &regions {
        let got = recovered::read(fs.as_ref(), dir, "h,1,1")
            .expect("readable")
            .expect("written for every region named");
        let want: Vec<_> = edits
            .iter()
            .filter(|e| &e.region == region)
            .cloned()
            .collect();
        assert_eq!(&got, &want, "region {region}");
    }
    // A second split (a master failover) writes the same files.
    split_log(fs.as_ref(), &log, "h,1,1", &regions).expect("again");
    let again = recovered::read(fs.as_ref(), &regions["a"], "h,1,1").expect("read");
    assert_eq!(again.map(|e| e.len()), Some(3));
}
