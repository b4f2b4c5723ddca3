//! A split end to end: daughters opened through the engine answer exactly as a control
//! region (never split, same writes) does for their rows, from references, after writes,
//! after a compaction and after reopening; the parent keeps serving reads and refuses
//! writes from the moment the split starts.

use crate::split_support;
use crate::support;

use basalt_storage::fs::LocalFs;
use basalt_storage::region::janitor::{referenced_files, references_into};
use basalt_storage::{Engine, ErrorKind, Region};
use basalt_types::{Get, Put};
use split_support::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use support::{manual_clock, open_engine_with};

fn engine(dir: &std::path::Path) -> Arc<Engine> {
    open_engine_with(
        dir,
        Default::default(),
        Arc::new(LocalFs),
        manual_clock(1_000_000),
    )
}

/// Parent and control with the same data: three flushed files (one only below the split,
/// one only above, one across it) and more in the memstore.
fn fill(parent: &Region, control: &Region) {
    let both = [parent, control];
    apply_all(&random_ops(1, 300, 0, ROWS), &both);
    parent.flush().expect("flush");
    apply_all(&random_ops(2, 80, 0, 20), &both);
    parent.flush().expect("flush");
    apply_all(&random_ops(3, 80, 40, ROWS), &both);
    parent.flush().expect("flush");
    apply_all(&random_ops(4, 60, 0, ROWS), &both);
}

fn check_daughters(bottom: &Region, top: &Region, control: &Region, state: &str) {
    assert_same_as_control(bottom, control, &format!("bottom, {state}"));
    assert_same_as_control(top, control, &format!("top, {state}"));
}

#[test]
fn daughters_answer_as_the_parent_through_writes_compactions_and_reopens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = table();
    let (bottom_dir, top_dir, parent_dir): (PathBuf, PathBuf, PathBuf);
    let split;
    {
        let engine = engine(dir.path());
        let parent = open(&engine, &t, info("parent", "", ""));
        let control = open(&engine, &t, info("control", "", ""));
        fill(&parent, &control);
        split = parent.split_point().expect("a region with files can split");
        assert!(split.as_ref() > b"row00".as_slice() && split.as_ref() < b"row59".as_slice());
        bottom_dir = engine.region_dir(&t, "bottom");
        top_dir = engine.region_dir(&t, "top");
        parent_dir = parent.dir().to_path_buf();
        parent
            .write_split(&split, &bottom_dir, &top_dir)
            .expect("split");
        assert_same_as_control(&parent, &control, "parent after the split");
        engine.close_region("parent").expect("close parent");
        engine.close().expect("close engine");
    }
    let split_str = String::from_utf8(split.to_vec()).expect("utf-8 row");
    let children = [bottom_dir.clone(), top_dir.clone()];
    assert!(references_into(&LocalFs, &children, &parent_dir).expect("manifests read"));

    // Opened, written to, reopened, compacted, reopened.
    for round in 0..3 {
        let engine = engine(dir.path());
        let control = open(&engine, &t, info("control", "", ""));
        let bottom = open(&engine, &t, info("bottom", "", &split_str));
        let top = open(&engine, &t, info("top", &split_str, ""));
        check_daughters(&bottom, &top, &control, &format!("round {round}, opened"));
        match round {
            0 => {
                assert!(bottom.has_references() && top.has_references());
                assert!(bottom.split_point().is_none(), "no split while referencing");
                // Overwrites at the parent's timestamps must win: daughters' sequence
                // ids start above the parent's.
                let ops = random_ops(5, 200, 0, ROWS);
                for op in &ops {
                    op.apply(&control).expect("control write");
                    let daughter = if op.row().as_ref() < split.as_ref() {
                        &bottom
                    } else {
                        &top
                    };
                    op.apply(daughter).expect("daughter write");
                }
                check_daughters(&bottom, &top, &control, "after writes");
            }
            1 => {
                bottom.compact(true).expect("major compaction");
                top.compact(true).expect("major compaction");
                assert!(!bottom.has_references() && !top.has_references());
                check_daughters(&bottom, &top, &control, "compacted");
                assert!(!references_into(&LocalFs, &children, &parent_dir).expect("read"));
                // Nothing needs the parent any more.
                std::fs::remove_dir_all(&parent_dir).expect("delete parent");
            }
            _ => assert!(!bottom.has_references() && !top.has_references()),
        }
        engine.close().expect("close engine");
    }
}

#[test]
fn parent_refuses_writes_from_the_split_on_and_loses_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = table();
    let engine = engine(dir.path());
    let parent = open(&engine, &t, info("parent", "", ""));
    let control = open(&engine, &t, info("control", "", ""));
    fill(&parent, &control);
    let acknowledged = Arc::new(AtomicU64::new(0));
    let writer = {
        let (parent, acknowledged) = (parent.clone(), acknowledged.clone());
        std::thread::spawn(move || {
            for i in 0.. {
                let put = Put::new(format!("new{i:05}")).add_at("cf", "q", 1, "x");
                if let Err(e) = parent.put(&put) {
                    return e.kind();
                }
                acknowledged.store(i + 1, Ordering::Release);
            }
            unreachable!("the loop ends on the first refused write")
        })
    };
    while acknowledged.load(Ordering::Acquire) < 20 {
        std::thread::yield_now();
    }
    let (bottom_dir, top_dir) = (engine.region_dir(&t, "b"), engine.region_dir(&t, "t"));
    parent
        .write_split(b"row30", &bottom_dir, &top_dir)
        .expect("split");
    assert_eq!(writer.join().expect("writer"), ErrorKind::WrongRegion);
    let err = parent
        .put(&Put::new("row01").add_at("cf", "q", 1, "x"))
        .expect_err("no writes after a split");
    assert_eq!(err.kind(), ErrorKind::WrongRegion, "{err}");
    // Reads go on, and so do compaction requests, which do nothing.
    assert_same_in(&parent, &control, b"row", b"rox", "parent after the split");
    assert!(parent
        .compact(true)
        .expect("compaction is a no-op")
        .is_empty());
    engine.close_region("parent").expect("close parent");

    // Every acknowledged write ("new…" sorts below "row30") is in the bottom daughter.
    let written = acknowledged.load(Ordering::Acquire);
    let bottom = open(&engine, &t, info("b", "", "row30"));
    for i in 0..written {
        let got = bottom.get(&Get::new(format!("new{i:05}"))).expect("get");
        assert_eq!(
            got.cells.len(),
            1,
            "acknowledged write new{i:05} is in the daughter"
        );
    }
    assert!(bottom
        .get(&Get::new(format!("new{written:05}")))
        .expect("get")
        .cells
        .is_empty());
    let top = open(&engine, &t, info("t", "row30", ""));
    assert_same_in(
        &bottom,
        &control,
        b"row",
        b"row30",
        "bottom after a split under writes",
    );
    assert_same_as_control(&top, &control, "top after a split under writes");
    let files = referenced_files(&LocalFs, &[bottom_dir, top_dir], parent.dir()).expect("read");
    assert!(!files.is_empty());
}

#[test]
fn a_minor_compaction_takes_every_reference() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = table();
    let engine = engine(dir.path());
    let parent = open(&engine, &t, info("parent", "", ""));
    let control = open(&engine, &t, info("control", "", ""));
    fill(&parent, &control);
    let (b, top_dir) = (engine.region_dir(&t, "b"), engine.region_dir(&t, "t"));
    parent.write_split(b"row30", &b, &top_dir).expect("split");
    engine.close_region("parent").expect("close");
    let top = open(&engine, &t, info("t", "row30", ""));
    // No flush: it would ask the background compactor, which could get there first.
    let put = Put::new("row45").add_at("cf", "q9", 9, "own");
    top.put(&put).expect("write");
    control.put(&put).expect("write");
    let references = top.metrics().store_files;
    assert!(references >= 2 && top.has_references());
    let outcomes = top.compact(false).expect("minor compaction");
    let inputs: usize = outcomes.iter().map(|o| o.inputs.len()).sum();
    assert_eq!(inputs, references, "every reference is compacted");
    assert!(!top.has_references());
    assert_same_as_control(&top, &control, "after a minor compaction");
    assert_eq!(top.metrics().store_files, 2, "one file per family");
}

/// A crash after `write_split` but before the catalog recorded the split: the parent
/// reopens whole and writable, takes writes and compacts; a retry (another key, even)
/// replaces the old, now stale, daughter folders.
#[test]
fn a_crashed_split_is_retried_over_its_leftovers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = table();
    let (b, top);
    {
        let engine = engine(dir.path());
        let parent = open(&engine, &t, info("parent", "", ""));
        let control = open(&engine, &t, info("control", "", ""));
        fill(&parent, &control);
        (b, top) = (engine.region_dir(&t, "b"), engine.region_dir(&t, "t"));
        parent.write_split(b"row20", &b, &top).expect("split");
        control.flush().expect("flush");
        // As if the crash came while the top daughter's manifest was being committed
        // (before its first copy's rename, the commit point).
        std::fs::remove_file(top.join("MANIFEST")).expect("remove");
        std::fs::remove_file(top.join("MANIFEST.2")).expect("remove");
        std::fs::write(top.join("MANIFEST.tmp"), b"torn").expect("write");
        drop(engine);
    }
    let engine = engine(dir.path());
    let parent = open(&engine, &t, info("parent", "", ""));
    let control = open(&engine, &t, info("control", "", ""));
    assert_same_as_control(&parent, &control, "parent reopened after a crashed split");
    apply_all(&random_ops(9, 100, 0, ROWS), &[&parent, &control]);
    parent.flush().expect("flush");
    parent.compact(true).expect("compact");
    parent.write_split(b"row35", &b, &top).expect("retry");
    engine.close_region("parent").expect("close");
    let bottom = open(&engine, &t, info("b", "", "row35"));
    let high = open(&engine, &t, info("t", "row35", ""));
    check_daughters(&bottom, &high, &control, "after a retried split");
    assert!(!top.join("MANIFEST.tmp").exists());
}
