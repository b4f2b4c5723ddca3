//! Snapshots, clones and restores on the embedded database, as a user of the Admin API
//! sees them: consistent under a running writer, independent of the source table once
//! cloned, kept across compactions, splits and restarts, and dropped by the cleaner once
//! their TTL runs out.

use crate::support;

use basalt_api::{ErrorKind, PreSplit, SnapshotOptions, Table};
use basalt_db::DbConfig;
use basalt_types::{Delete, Durability, Get, Put, Scan, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::*;

fn name(t: &str) -> TableName {
    TableName::parse(t).expect("valid name")
}

fn quiet_config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn key(i: u64) -> String {
    format!("row{i:06}")
}

fn put(table: &dyn Table, row: &str, value: &str) {
    table
        .put(&Put::new(row.to_string()).add("f", "q", value))
        .expect("put");
}

/// Every row's `f:q` value.
fn rows(table: &dyn Table) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for row in table.scan(&Scan::new()).expect("scan") {
        let row = row.expect("row");
        let key = String::from_utf8_lossy(row.row().expect("cells")).into_owned();
        let value = row
            .value(b"f", b"q")
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_default();
        out.insert(key, value);
    }
    out
}

fn create(db: &Db, t: &str, splits: &[&str]) {
    let keys = splits.iter().map(|k| Bytes::from(k.to_string())).collect();
    db.admin
        .create_table(&descriptor(t, &["f"]), &PreSplit::Keys(keys))
        .expect("create");
}

fn snapshot(db: &Db, t: &str, s: &str) {
    db.admin
        .snapshot(&name(t), s, &SnapshotOptions::default())
        .expect("snapshot");
}

#[test]
fn a_snapshot_under_a_running_writer_clones_and_restores_rows_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(dir.path(), quiet_config());
    create(&db, "src", &["row000300", "row000600"]);
    let table = db.table(&name("src"));
    let written = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (table, written, stop) = (table.clone(), written.clone(), stop.clone());
        std::thread::spawn(move || {
            // Keys cycle over the three regions: row i goes to region i % 3.
            let mut i = 0;
            while !stop.load(Ordering::Acquire) && i < 900 {
                let k = (i % 3) * 300 + i / 3;
                table
                    .put(
                        &Put::new(key(k))
                            .add("f", "q", format!("v{k}"))
                            .durability(Durability::SyncWal),
                    )
                    .expect("put");
                i += 1;
                written.store(i, Ordering::Release);
            }
        })
    };
    assert!(wait_for(Duration::from_secs(30), || written
        .load(Ordering::Acquire)
        >= 60));
    let before = written.load(Ordering::Acquire);
    snapshot(&db, "src", "s1");
    let after = written.load(Ordering::Acquire);
    stop.store(true, Ordering::Release);
    writer.join().expect("writer");

    db.admin.clone_snapshot("s1", &name("copy")).expect("clone");
    let copy = db.table(&name("copy"));
    let snapped = rows(copy.as_ref());
    // Every acknowledged write before the snapshot began is in it; nothing written after it
    // returned is; and each region holds a prefix of its own writes (one point per region).
    for i in 0..before {
        let k = (i % 3) * 300 + i / 3;
        assert_eq!(
            snapped.get(&key(k)),
            Some(&format!("v{k}")),
            "row {k} written before"
        );
    }
    assert!(
        snapped.len() as u64 <= after,
        "{} rows > {after} written",
        snapped.len()
    );
    for region in 0..3u64 {
        let present: Vec<u64> = (0..300)
            .filter(|j| snapped.contains_key(&key(region * 300 + j)))
            .collect();
        assert_eq!(
            present,
            (0..present.len() as u64).collect::<Vec<_>>(),
            "region {region} holds a prefix of its writes"
        );
    }
    assert_eq!(
        db.admin.list_regions(&name("copy")).expect("regions").len(),
        3
    );

    // Both tables take writes on their own.
    put(table.as_ref(), "zz-source", "s");
    put(copy.as_ref(), "zz-clone", "c");
    assert!(rows(table.as_ref()).contains_key("zz-source"));
    assert!(!rows(table.as_ref()).contains_key("zz-clone"));
    assert!(rows(copy.as_ref()).contains_key("zz-clone"));
    assert!(!rows(copy.as_ref()).contains_key("zz-source"));

    // Restore: refused while enabled, with HBase's words; then the source is the snapshot.
    let refused = db.admin.restore_snapshot("s1").expect_err("enabled");
    assert_eq!(
        refused.exception,
        "org.apache.hadoop.hbase.TableNotDisabledException"
    );
    assert_eq!(
        refused.message,
        "Table 'src' must be disabled in order to perform a restore operation."
    );
    db.admin.disable_table(&name("src")).expect("disable");
    db.admin.restore_snapshot("s1").expect("restore");
    assert!(!db.admin.is_table_enabled(&name("src")).expect("state"));
    db.admin.enable_table(&name("src")).expect("enable");
    let table = db.table(&name("src"));
    assert_eq!(
        rows(table.as_ref()),
        snapped,
        "the source is the snapshot again"
    );
    check_tiling(&db.admin.list_regions(&name("src")).expect("regions")).expect("tiling");
}

#[test]
fn a_clone_outlives_its_source_table_and_its_snapshot_across_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let expected: BTreeMap<String, String> = (0..200).map(|i| (key(i), format!("v{i}"))).collect();
    {
        let db = open(dir.path(), quiet_config());
        create(&db, "src", &["row000100"]);
        let table = db.table(&name("src"));
        for (k, v) in &expected {
            put(table.as_ref(), k, v);
        }
        snapshot(&db, "src", "s1");
        db.admin.clone_snapshot("s1", &name("copy")).expect("clone");
        db.admin.disable_table(&name("src")).expect("disable");
        db.admin.delete_table(&name("src")).expect("drop");
        db.admin.delete_snapshot("s1").expect("delete snapshot");
        assert!(db.admin.list_snapshots(None).expect("list").is_empty());
        assert_eq!(rows(db.table(&name("copy")).as_ref()), expected);
        db.db.close().expect("close");
    }
    let db = open(dir.path(), quiet_config());
    let copy = db.table(&name("copy"));
    assert_eq!(rows(copy.as_ref()), expected, "after a restart");
    db.admin
        .compact(&name("copy"), true)
        .expect("major compaction");
    assert_eq!(
        rows(copy.as_ref()),
        expected,
        "after its files were rewritten"
    );
    let health = db.db.health().expect("health");
    assert!(health.quarantined.is_empty(), "{:?}", health.quarantined);
}

#[test]
fn a_snapshot_stays_readable_after_compactions_splits_and_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original: BTreeMap<String, String> = (0..300).map(|i| (key(i), format!("v{i}"))).collect();
    {
        let db = open(dir.path(), quiet_config());
        create(&db, "src", &[]);
        let table = db.table(&name("src"));
        for (k, v) in &original {
            put(table.as_ref(), k, v);
        }
        db.admin.flush(&name("src")).expect("flush");
        snapshot(&db, "src", "before");
        // Overwrite half, delete a few, then rewrite every file and split the region: the
        // files the snapshot names are gone from the table.
        for i in (0..300).step_by(2) {
            put(table.as_ref(), &key(i), "new");
        }
        table.delete(&Delete::new(key(1))).expect("delete");
        db.admin.compact(&name("src"), true).expect("major");
        db.admin
            .split(&name("src"), Some(b"row000150"))
            .expect("split");
        assert!(wait_for(Duration::from_secs(30), || {
            db.admin.list_regions(&name("src")).expect("regions").len() == 2
        }));
        db.admin
            .compact(&name("src"), true)
            .expect("major after split");
        db.admin.run_catalog_janitor().expect("janitor");
        db.db.close().expect("close");
    }
    let db = open(dir.path(), quiet_config());
    let listed = db.admin.list_snapshots(None).expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "before");
    assert_eq!(listed[0].table, name("src"));
    assert_eq!(listed[0].version, 1);
    db.admin
        .clone_snapshot("before", &name("old"))
        .expect("clone");
    assert_eq!(rows(db.table(&name("old")).as_ref()), original);
    // A snapshot of the split table is taken over its daughters.
    snapshot(&db, "src", "after");
    db.admin
        .clone_snapshot("after", &name("new"))
        .expect("clone after split");
    let now = rows(db.table(&name("new")).as_ref());
    assert_eq!(now.get(&key(0)).map(String::as_str), Some("new"));
    assert!(!now.contains_key(&key(1)));
    assert_eq!(now.len(), 299);
}

#[test]
fn a_snapshot_past_its_ttl_is_dropped_by_the_cleaner_and_others_stay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(
        dir.path(),
        DbConfig {
            split_check_interval_ms: 50,
            ..DbConfig::default()
        },
    );
    create(&db, "src", &[]);
    put(db.table(&name("src")).as_ref(), "r", "v");
    db.admin
        .snapshot(
            &name("src"),
            "short",
            &SnapshotOptions {
                ttl_secs: Some(1),
                ..SnapshotOptions::default()
            },
        )
        .expect("snapshot with ttl");
    snapshot(&db, "src", "forever");
    let listed = db.admin.list_snapshots(None).expect("list");
    assert_eq!(
        listed.iter().map(|s| s.ttl_secs).collect::<Vec<_>>(),
        [None, Some(1)]
    );
    // The cleaner removes the manifest (the snapshot is no longer listed), then its folder.
    assert!(wait_for(Duration::from_secs(10), || {
        db.admin.list_snapshots(None).expect("list").len() == 1
            && !dir.path().join("snapshots/short").exists()
    }));
    let left = db.admin.list_snapshots(None).expect("list");
    assert_eq!(left[0].name, "forever");
    assert!(!dir.path().join("snapshots/short").exists());
    let gone = db
        .admin
        .clone_snapshot("short", &name("late"))
        .expect_err("expired");
    assert_eq!(gone.kind, ErrorKind::NotFound);
    assert_eq!(
        gone.exception,
        "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException"
    );
}

#[test]
fn names_are_checked_and_taken_names_unknown_snapshots_and_existing_tables_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(dir.path(), quiet_config());
    create(&db, "src", &[]);
    snapshot(&db, "src", "s1");
    let taken = db
        .admin
        .snapshot(&name("src"), "s1", &SnapshotOptions::default())
        .expect_err("taken");
    assert_eq!(
        taken.exception,
        "org.apache.hadoop.hbase.snapshot.SnapshotExistsException"
    );
    assert_eq!(
        taken.message,
        "Snapshot 's1' already stored on the filesystem."
    );
    let bad = db
        .admin
        .snapshot(&name("src"), "../x", &SnapshotOptions::default())
        .expect_err("illegal name");
    assert!(bad.message.contains("Illegal snapshot name"), "{bad}");
    let missing = db.admin.delete_snapshot("nope").expect_err("unknown");
    assert_eq!(
        missing.message,
        "Snapshot 'nope' doesn't exist on the filesystem"
    );
    let exists = db
        .admin
        .clone_snapshot("s1", &name("src"))
        .expect_err("table exists");
    assert_eq!(exists.kind, ErrorKind::AlreadyExists);
    let no_table = db
        .admin
        .snapshot(&name("nothere"), "s2", &SnapshotOptions::default())
        .expect_err("no table");
    assert_eq!(no_table.kind, ErrorKind::NotFound);
    let listed = db.admin.list_snapshots(Some("s.*")).expect("regex");
    assert_eq!(listed.len(), 1);
    assert!(db
        .admin
        .list_snapshots(Some("x.*"))
        .expect("regex")
        .is_empty());
}

#[test]
fn skip_flush_leaves_the_memstore_out_and_a_disabled_table_snapshots_offline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(dir.path(), quiet_config());
    create(&db, "src", &[]);
    let table = db.table(&name("src"));
    put(table.as_ref(), "flushed", "1");
    db.admin.flush(&name("src")).expect("flush");
    put(table.as_ref(), "in-memory", "2");
    db.admin
        .snapshot(
            &name("src"),
            "skip",
            &SnapshotOptions {
                skip_flush: true,
                ..SnapshotOptions::default()
            },
        )
        .expect("skip flush");
    db.admin.clone_snapshot("skip", &name("c1")).expect("clone");
    let c1 = rows(db.table(&name("c1")).as_ref());
    assert_eq!(c1.keys().collect::<Vec<_>>(), ["flushed"]);

    db.admin.disable_table(&name("src")).expect("disable");
    snapshot(&db, "src", "offline");
    db.admin
        .clone_snapshot("offline", &name("c2"))
        .expect("clone");
    let c2 = db.table(&name("c2"));
    assert_eq!(rows(c2.as_ref()).len(), 2, "disabling flushed both rows");
    assert!(c2
        .get(&Get::new("in-memory"))
        .expect("get")
        .value(b"f", b"q")
        .is_some());
}
