//! The KEEP_DELETED_CELLS transcript of the seed document (§40), cell for cell: puts at
//! 10, 12 and 14, a column delete at 11, raw scans before a flush, after it, and after a
//! major compaction.

use crate::support;

use basalt_types::{Delete, KeepDeletedCells, Put, Scan};
use support::*;

fn run(keep: KeepDeletedCells) -> [Vec<String>; 3] {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["e"]);
    t.families[0].max_versions = i32::MAX as u32;
    t.families[0].keep_deleted_cells = keep;
    let region = open_region(&engine, t);
    for ts in [10, 12, 14] {
        region
            .put(&Put::new("r1").add_at("e", "c1", ts, "value"))
            .expect("put");
    }
    region
        .delete(&Delete::new("r1").at(11).columns("e", "c1"))
        .expect("delete");
    let raw = Scan::new().raw(true).versions(1000);
    let before = show_rows(&scan_all(&region, &raw));
    region.flush().expect("flush");
    let flushed = show_rows(&scan_all(&region, &raw));
    region.compact(true).expect("major compaction");
    let compacted = show_rows(&scan_all(&region, &raw));
    [before, flushed, compacted]
}

#[test]
fn without_keep_deleted_cells_flush_drops_the_masked_put_and_major_compaction_the_marker() {
    let [before, flushed, compacted] = run(KeepDeletedCells::False);
    assert_eq!(
        before,
        [
            "r1/e:c1@14=value",
            "r1/e:c1@12=value",
            "r1/e:c1@11 DeleteColumn",
            "r1/e:c1@10=value"
        ]
    );
    assert_eq!(
        flushed,
        [
            "r1/e:c1@14=value",
            "r1/e:c1@12=value",
            "r1/e:c1@11 DeleteColumn"
        ]
    );
    assert_eq!(compacted, ["r1/e:c1@14=value", "r1/e:c1@12=value"]);
}

#[test]
fn with_keep_deleted_cells_everything_survives_flush_and_major_compaction() {
    let all = [
        "r1/e:c1@14=value",
        "r1/e:c1@12=value",
        "r1/e:c1@11 DeleteColumn",
        "r1/e:c1@10=value",
    ];
    for stage in run(KeepDeletedCells::True) {
        assert_eq!(stage, all);
    }
}
