//! A damaged `hbase:meta` store file: the database still opens — so that hbck and the
//! status pages can say why — but serves no table (every call names the damaged file) and
//! cleans nothing up (a folder the catalog cannot vouch for stays where it is). When hbck
//! sets the file aside, meta opens without its rows: here the second table's definition,
//! whose region row survives in another file and is reported as an orphan, its folder
//! kept.

use crate::support;

use basalt_api::{Connection, InconsistencyKind, PreSplit};
use basalt_db::{hbck, DbConfig};
use basalt_types::{Get, Put, TableName};
use std::path::Path;
use support::damage::{damage, store_files, Part};
use support::*;

const NOT_SERVING: &str = "org.apache.hadoop.hbase.NotServingRegionException";

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

/// Creates `name` with one row and closes the database (meta flushes a store file).
fn create_and_close(dir: &Path, name: &str) {
    let db = open(dir, config());
    let t = descriptor(name, &["f"]);
    db.admin.create_table(&t, &PreSplit::None).expect("create");
    db.table(&t.name)
        .put(&Put::new("r").add("f", "q", name))
        .expect("put");
    db.db.close().expect("close");
}

#[test]
fn a_damaged_meta_file_serves_nothing_cleans_nothing_and_hbck_sets_it_aside() {
    let dir = tempfile::tempdir().expect("temp dir");
    create_and_close(dir.path(), "first");
    create_and_close(dir.path(), "second");
    let meta_tables = dir.path().join("data/hbase/meta/1588230740/table");
    let files = store_files(&meta_tables);
    assert_eq!(files.len(), 2, "one meta file per close: {files:?}");
    let damaged = files[1].clone();
    damage(&damaged, Part::IndexRoot);
    let stray = dir.path().join("data/default/stray/0123456789abcdef");
    std::fs::create_dir_all(&stray).expect("stray folder");

    let db = open(dir.path(), config());
    let e = db.admin.list_tables(None).expect_err("no catalog");
    assert_eq!(e.exception, NOT_SERVING);
    assert!(e.message.contains(&damaged.display().to_string()), "{e}");
    let first = TableName::parse("first").expect("valid");
    let e = db.conn.table(&first).err().expect("no table is served");
    assert!(
        e.message.contains("hbase:meta") && e.message.contains("FAILED_OPEN"),
        "{e}"
    );
    let health = db.db.health().expect("health");
    assert_eq!(health.failed_regions.len(), 1);
    assert_eq!(health.failed_regions[0].table.to_string(), "hbase:meta");
    assert!(
        health.quarantined.is_empty(),
        "nothing is cleaned up: {health:?}"
    );
    assert!(stray.exists(), "nothing is cleaned up");
    db.db.close().expect("close");
    drop(db);

    let check = hbck::verify(dir.path()).expect("verify");
    assert_eq!(check.problems.len(), 1, "{:?}", check.problems);
    assert_eq!(check.problems[0].path, damaged);
    hbck::quarantine_store_file(dir.path(), &damaged, 1).expect("quarantine");

    let db = open(dir.path(), config());
    assert_eq!(
        db.admin.list_tables(None).expect("catalog"),
        std::slice::from_ref(&first)
    );
    let row = db.table(&first).get(&Get::new("r")).expect("served");
    assert!(row.value(b"f", b"q").is_some());
    let health = db.db.health().expect("health");
    assert!(health.failed_regions.is_empty(), "{health:?}");
    let orphans: Vec<_> = health
        .inconsistencies
        .iter()
        .filter(|i| i.kind == InconsistencyKind::OrphanRow)
        .collect();
    assert_eq!(orphans.len(), 1, "{health:?}");
    assert_eq!(orphans[0].table, "second");
    assert!(dir
        .path()
        .join("data/default/second")
        .read_dir()
        .expect("kept")
        .next()
        .is_some());
    let moved: Vec<_> = health
        .quarantined
        .iter()
        .map(|q| q.original.as_str())
        .collect();
    assert!(
        moved.contains(&"data/default/stray/0123456789abcdef"),
        "{moved:?}"
    );
    db.db.close().expect("close");
}
