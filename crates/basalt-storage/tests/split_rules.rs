//! What splits and merges refuse, where split points fall, what the janitor answers, and
//! that regions whose files share manifest ids never share cached blocks.

use crate::split_support;
use crate::support;

use basalt_storage::fs::LocalFs;
use basalt_storage::region::janitor::{referenced_files, references_into};
use basalt_storage::region::merge::write_merge;
use basalt_storage::{Engine, ErrorKind, Region};
use basalt_types::{Get, Put, TableName};
use split_support::*;
use std::sync::Arc;

fn engine(dir: &std::path::Path) -> Arc<Engine> {
    support::open_engine(dir, Default::default())
}

fn put_rows(region: &Region, rows: impl IntoIterator<Item = String>) {
    for r in rows {
        region
            .put(&Put::new(r).add_at("cf", "q", 1, "value"))
            .expect("put");
    }
}

#[test]
fn bad_split_keys_and_folders_are_refused_and_writes_go_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine(dir.path());
    let t = table();
    let region = open(&engine, &t, info("r", "row10", "row50"));
    put_rows(&region, (10..50).map(row));
    region.flush().expect("flush");
    let (b, top) = (engine.region_dir(&t, "b"), engine.region_dir(&t, "t"));
    for key in [&b""[..], b"row10", b"row05", b"row50", b"row70"] {
        let err = region.write_split(key, &b, &top).expect_err("bad key");
        assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{err}");
    }
    let elsewhere = dir.path().join("elsewhere");
    // A live region's folder is never replaced.
    let live = open(&engine, &t, info("live", "", ""));
    put_rows(&live, ["a".to_string()]);
    live.flush().expect("flush");
    let live_dir = live.dir().to_path_buf();
    for (low, high) in [
        (&b, &b),
        (&elsewhere, &top),
        (&b, &region.dir().to_path_buf()),
        (&b, &live_dir),
    ] {
        let err = region
            .write_split(b"row30", low, high)
            .expect_err("bad folders");
        assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{err}");
    }
    assert_eq!(live.get(&Get::new("a")).expect("get").cells.len(), 1);
    engine.close_region("live").expect("close");
    let live = open(&engine, &t, info("live", "", ""));
    assert_eq!(live.get(&Get::new("a")).expect("get").cells.len(), 1);
    assert!(!top.exists(), "no top daughter written for a refused split");
    // A refused split leaves the region writable.
    put_rows(&region, ["row20x".to_string()]);
}

#[test]
fn split_points_fall_strictly_inside_or_nowhere() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine(dir.path());
    let t = table();
    let region = open(&engine, &t, info("r", "row10", "row50"));
    assert_eq!(region.split_point(), None, "no files");
    put_rows(&region, ["row10".to_string()]);
    region.flush().expect("flush");
    assert_eq!(region.split_point(), None, "one row");
    // Many versions of the start row fill blocks; the point moves past it.
    for ts in 0..200 {
        region
            .put(&Put::new("row10").add_at("cf", "q", ts, "v".repeat(40)))
            .expect("put");
    }
    put_rows(&region, ["row11".to_string()]);
    region.flush().expect("flush");
    assert_eq!(region.split_point().as_deref(), Some(&b"row11"[..]));
    put_rows(&region, (10..50).map(row));
    region.flush().expect("flush");
    region.compact(true).expect("compact");
    let point = region.split_point().expect("splittable");
    assert!(point.as_ref() > b"row10".as_slice() && point.as_ref() < b"row50".as_slice());

    // A one-block file is split at its middle row.
    let small = open(&engine, &t, info("small", "", ""));
    put_rows(&small, ["a", "b", "c", "d", "e"].map(String::from));
    small.flush().expect("flush");
    assert_eq!(small.split_point().as_deref(), Some(&b"c"[..]));
}

#[test]
fn regions_holding_references_neither_split_nor_merge() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine(dir.path());
    let t = table();
    let parent = open(&engine, &t, info("p", "", ""));
    put_rows(&parent, (0..40).map(row));
    let (b, top) = (engine.region_dir(&t, "b"), engine.region_dir(&t, "t"));
    parent.write_split(b"row20", &b, &top).expect("split");
    // A retry replaces the daughters (idempotent).
    parent.write_split(b"row20", &b, &top).expect("split again");
    engine.close_region("p").expect("close");
    let low = open(&engine, &t, info("b", "", "row20"));
    let high = open(&engine, &t, info("t", "row20", ""));
    assert!(low.has_references());
    assert_eq!(low.split_point(), None);
    let err = low
        .write_split(
            b"row10",
            &engine.region_dir(&t, "x"),
            &engine.region_dir(&t, "y"),
        )
        .expect_err("references");
    assert_eq!(err.kind(), ErrorKind::InvalidRequest);
    let err = write_merge(&low, &high, &engine.region_dir(&t, "m")).expect_err("references");
    assert_eq!(err.kind(), ErrorKind::InvalidRequest);
    // Still writable after the refusals.
    put_rows(&low, ["row05x".to_string()]);
    let files = referenced_files(&LocalFs, &[b.clone(), top.clone()], parent.dir()).expect("read");
    assert_eq!(
        files.len(),
        2,
        "each daughter references the one file: {files:?}"
    );
    low.compact(false).expect("compact");
    assert!(references_into(&LocalFs, &[b.clone(), top.clone()], parent.dir()).expect("read"));
    high.compact(false).expect("compact");
    assert!(!references_into(&LocalFs, &[b, top], parent.dir()).expect("read"));
}

#[test]
fn merges_need_adjacent_regions_of_one_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine(dir.path());
    let t = table();
    let a = open(&engine, &t, info("a", "", "row20"));
    let c = open(&engine, &t, info("c", "row30", ""));
    let mut other = table();
    other.name = TableName::parse("other").expect("name");
    let o = open(&engine, &other, info("o", "row20", "row30"));
    for (x, y) in [(&a, &c), (&a, &o), (&a, &a)] {
        let err = write_merge(x, y, &engine.region_dir(&t, "m")).expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{err}");
    }
    put_rows(&a, ["row01".to_string()]);
}

/// Every region counts its file ids from 1; two regions' files (or a parent's file and a
/// daughter's own) must not share cached blocks.
#[test]
fn files_with_the_same_id_in_two_regions_never_share_cached_blocks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = engine(dir.path());
    let t = table();
    let one = open(&engine, &t, info("one", "", ""));
    let two = open(&engine, &t, info("two", "", ""));
    for (region, value) in [(&one, "from one"), (&two, "from two")] {
        region
            .put(&Put::new("row").add_at("cf", "q", 1, value))
            .expect("put");
        region.flush().expect("flush");
    }
    for _ in 0..2 {
        for (region, value) in [(&one, "from one"), (&two, "from two")] {
            let got = region.get(&Get::new("row")).expect("get");
            assert_eq!(got.value(b"cf", b"q"), Some(value.as_bytes()));
        }
    }
}
