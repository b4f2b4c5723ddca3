//! Issue 14's data-destruction scenario: tables with flushed store files, the process dies
//! while the table definitions are still only in the write-ahead log, and the log is cut
//! (to 0 bytes, or to 20: inside its header). The catalog comes back without the tables;
//! the region folders it no longer names must go to the quarantine — every store file
//! kept, byte for byte — be reported, and leave only when purged explicitly.

use crate::support;

use basalt_api::PreSplit;
use basalt_db::DbConfig;
use basalt_types::{Put, TableName};
use std::path::{Path, PathBuf};
use support::damage::inventory;
use support::*;

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

/// Two tables (one pre-split) with flushed rows; the database dropped without a close,
/// so `hbase:meta` holds the definitions in its memstore and the log only.
fn tables_then_crash(dir: &Path) {
    let db = open(dir, config());
    for (name, split) in [
        ("t1", PreSplit::None),
        ("t2", PreSplit::Keys(vec!["m".into()])),
    ] {
        let t = descriptor(name, &["f"]);
        db.admin.create_table(&t, &split).expect("create");
        let table = db.table(&t.name);
        for row in ["a", "k", "q", "z"] {
            table
                .put(&Put::new(row).add("f", "q", format!("{name}-{row}")))
                .expect("put");
        }
        db.admin.flush(&t.name).expect("flush");
    }
    drop(db);
}

fn log_segments(dir: &Path) -> Vec<PathBuf> {
    let mut segments: Vec<PathBuf> = std::fs::read_dir(dir.join("wal"))
        .expect("log folder")
        .map(|e| e.expect("entry").path())
        .collect();
    segments.sort();
    segments
}

fn cut_the_log_and_restart(len: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    tables_then_crash(dir.path());
    let before = inventory(dir.path());
    assert_eq!(before.len(), 3, "one store file per region: {before:?}");
    let segments = log_segments(dir.path());
    assert_eq!(segments.len(), 1, "the definitions are in the only segment");
    std::fs::File::options()
        .write(true)
        .open(&segments[0])
        .expect("open segment")
        .set_len(len)
        .expect("cut");

    let db = open(dir.path(), config());
    assert_eq!(
        db.admin.list_tables(None).expect("list"),
        Vec::<TableName>::new()
    );
    assert_eq!(
        inventory(dir.path()),
        before,
        "a store file was deleted or changed"
    );
    for table in ["t1", "t2"] {
        // The table's own `.tableinfo` stays: it is what a catalog rebuild would read.
        let left: Vec<_> = std::fs::read_dir(dir.path().join("data/default").join(table))
            .expect("table folder")
            .map(|e| e.expect("entry").file_name())
            .filter(|name| !name.to_string_lossy().starts_with('.'))
            .collect();
        assert!(
            left.is_empty(),
            "{table}'s region folders are still in place"
        );
    }
    let health = db.db.health().expect("health");
    assert_eq!(health.quarantined.len(), 3, "{health:?}");
    for item in &health.quarantined {
        assert!(
            item.path.starts_with("quarantine/data/default/t"),
            "{item:?}"
        );
        assert_eq!(item.path, format!("quarantine/{}", item.original));
        assert!(
            item.reason.contains("hbase:meta names no region"),
            "{item:?}"
        );
        assert!(item.bytes > 0, "{item:?}");
    }
    db.db.close().expect("close");
    drop(db);

    // A restart keeps them: nothing goes by age or by inference.
    let db = open(dir.path(), config());
    assert_eq!(db.db.health().expect("health").quarantined.len(), 3);
    assert_eq!(inventory(dir.path()), before);
    db.db.close().expect("close");
    drop(db);

    let purged = basalt_db::quarantine::purge(dir.path()).expect("purge");
    assert_eq!(purged.len(), 3);
    assert!(inventory(dir.path()).is_empty(), "the purge removes them");
    assert!(!dir.path().join("quarantine").exists());
}

#[test]
fn a_log_cut_to_zero_bytes_deletes_no_store_file() {
    cut_the_log_and_restart(0);
}

#[test]
fn a_log_cut_inside_its_header_deletes_no_store_file() {
    cut_the_log_and_restart(20);
}
