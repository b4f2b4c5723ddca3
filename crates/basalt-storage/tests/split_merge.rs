//! A merge end to end: the merged region answers as a control region (never split or
//! merged, same writes) does, before and after the compaction that removes its
//! references, and after reopening; the janitor sees the sources freed.

use crate::split_support;
use crate::support;

use basalt_storage::fs::LocalFs;
use basalt_storage::region::janitor::references_into;
use basalt_storage::region::merge::write_merge;
use basalt_storage::ErrorKind;
use basalt_types::Put;
use split_support::*;
use std::sync::Arc;
use support::{manual_clock, open_engine_with};

#[test]
fn merged_region_answers_the_union_until_and_after_compaction() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = table();
    let open_engine = || {
        open_engine_with(
            dir.path(),
            Default::default(),
            Arc::new(LocalFs),
            manual_clock(1_000_000),
        )
    };
    let (a_dir, b_dir, merged_dir);
    {
        let engine = open_engine();
        let a = open(&engine, &t, info("a", "", "row30"));
        let b = open(&engine, &t, info("b", "row30", ""));
        let control = open(&engine, &t, info("control", "", ""));
        for (seed, flush) in [(1, true), (2, true), (3, false)] {
            for op in random_ops(seed, 150, 0, ROWS) {
                op.apply(&control).expect("control write");
                let region = if op.row().as_ref() < b"row30".as_slice() {
                    &a
                } else {
                    &b
                };
                op.apply(region).expect("write");
            }
            if flush {
                a.flush().expect("flush");
                b.flush().expect("flush");
            }
        }
        merged_dir = engine.region_dir(&t, "ab");
        (a_dir, b_dir) = (a.dir().to_path_buf(), b.dir().to_path_buf());
        // Either order names the same merge.
        write_merge(&b, &a, &merged_dir).expect("merge");
        for region in [&a, &b] {
            let err = region
                .put(&Put::new("row31").add_at("cf", "q", 1, "x"))
                .expect_err("merging regions refuse writes");
            assert_eq!(err.kind(), ErrorKind::WrongRegion);
            assert_same_as_control(region, &control, "a source after the merge");
        }
        engine.close_region("a").expect("close");
        engine.close_region("b").expect("close");
        let merged = open(&engine, &t, info("ab", "", ""));
        assert!(merged.has_references());
        assert_same_as_control(&merged, &control, "merged, from references");
        // Its writes come after both sources' cells.
        for op in random_ops(4, 150, 0, ROWS) {
            op.apply(&control).expect("control write");
            op.apply(&merged).expect("write");
        }
        assert_same_as_control(&merged, &control, "merged, written to");
        engine.close().expect("close");
    }
    let children = [merged_dir.clone()];
    assert!(references_into(&LocalFs, &children, &a_dir).expect("read"));
    assert!(references_into(&LocalFs, &children, &b_dir).expect("read"));
    {
        let engine = open_engine();
        let control = open(&engine, &t, info("control", "", ""));
        let merged = open(&engine, &t, info("ab", "", ""));
        assert_same_as_control(&merged, &control, "merged, reopened");
        merged.compact(true).expect("major compaction");
        assert!(!merged.has_references());
        assert_same_as_control(&merged, &control, "merged, compacted");
        engine.close().expect("close");
    }
    assert!(!references_into(&LocalFs, &children, &a_dir).expect("read"));
    assert!(!references_into(&LocalFs, &children, &b_dir).expect("read"));
    std::fs::remove_dir_all(&a_dir).expect("delete a");
    std::fs::remove_dir_all(&b_dir).expect("delete b");
    let engine = open_engine();
    let control = open(&engine, &t, info("control", "", ""));
    let merged = open(&engine, &t, info("ab", "", ""));
    assert_same_as_control(&merged, &control, "merged, sources deleted");
}
