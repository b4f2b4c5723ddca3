//! A scan asked to read at an older MVCC read point (HBase's `mvcc_read_point`, given back
//! by a client that reopens its scanner after the region moved) sees what a scanner opened
//! at that point saw: rows, versions and deletes written later stay invisible, whether they
//! are in the memstore, flushed to a newer file, or in a file of the region reopened.

use crate::support;

use basalt_types::{Delete, Put, Scan, SeqId};
use support::*;

fn put(row: &str, ts: i64, value: &str) -> Put {
    Put::new(row.to_string()).add_at("cf", "q", ts, value)
}

fn seen(region: &basalt_storage::Region, scan: &Scan) -> Vec<String> {
    show_rows(&scan_all(region, scan))
}

#[test]
fn writes_after_a_scans_read_point_stay_invisible_to_a_scanner_reopened_at_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    // Two versions kept: a flush keeps what the family's VERSIONS keep, whatever the read
    // points of scanners to come, so `e`'s older version (in the memstore with its newer
    // one at the flush) survives only if the family keeps it; `a`'s was flushed alone.
    let mut descriptor = table(&["cf"]);
    descriptor.families[0].max_versions = 2;
    let region = open_region(&engine, descriptor.clone());
    for (row, value) in [("a", "a1"), ("b", "b1"), ("d", "d1")] {
        region.put(&put(row, 1, value)).expect("put");
    }
    region.flush().expect("flush");
    region.put(&put("e", 1, "e1")).expect("put in the memstore");

    let first = region.scanner(&Scan::new()).expect("scanner");
    let point = first.read_point();
    assert_eq!(
        point,
        region.read_point(),
        "a new scanner reads at the current point"
    );
    let before = ["a/cf:q@1=a1", "b/cf:q@1=b1", "d/cf:q@1=d1", "e/cf:q@1=e1"];

    // After the point: a new row, a new version, a delete, and a put to the memstore's row.
    region.put(&put("c", 1, "c1")).expect("put");
    region.put(&put("a", 2, "a2")).expect("put");
    region.delete(&Delete::new("b")).expect("delete");
    region.put(&put("e", 2, "e2")).expect("put");
    let after = ["a/cf:q@2=a2", "c/cf:q@1=c1", "d/cf:q@1=d1", "e/cf:q@2=e2"];

    let at_point = Scan {
        read_point: Some(point),
        ..Scan::new()
    };
    let reversed = Scan {
        read_point: Some(point),
        ..Scan::new().reversed(true)
    };
    let check = |region: &basalt_storage::Region, layout: &str| {
        assert_eq!(seen(region, &at_point), before, "{layout}: at the point");
        let mut backwards = before.to_vec();
        backwards.reverse();
        assert_eq!(seen(region, &reversed), backwards, "{layout}: reversed");
        assert_eq!(seen(region, &Scan::new()), after, "{layout}: without it");
        // A point above the current one reads at the current one.
        let ahead = Scan {
            read_point: Some(SeqId(u64::MAX)),
            ..Scan::new()
        };
        assert_eq!(seen(region, &ahead), after, "{layout}: ahead of the region");
    };
    check(&region, "memstore");
    region.flush().expect("flush");
    check(&region, "flushed");

    // Closed and opened again (as a move does): sequence ids go on from the files.
    drop(first);
    engine.close_region("r1").expect("close");
    let region = open_region(&engine, descriptor);
    check(&region, "reopened");
    region.put(&put("f", 1, "f1")).expect("put after reopening");
    assert_eq!(seen(&region, &at_point), before, "reopened, written again");
    let now = seen(&region, &Scan::new());
    assert_eq!(now.last().map(String::as_str), Some("f/cf:q@1=f1"));
}
