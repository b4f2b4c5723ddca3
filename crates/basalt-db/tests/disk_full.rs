//! The database on a full disk (injected `ENOSPC` through `FaultyFs`): puts fail with an
//! `IOException` saying the disk is full and succeed again once space returns, with no
//! restart; a close on a full disk succeeds and the next open replays what could not be
//! flushed; an open on a full disk serves reads and refuses writes until space returns.
//! Every acknowledged value is checked after each reopen.

use crate::support;

use basalt_api::{Connection, ErrorKind, PreSplit, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::fs::{Faults, FaultyFs, FileSystem, LocalFs};
use basalt_types::{Get, Put, TableName};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use support::*;

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn faulty() -> (Arc<Faults>, Arc<dyn FileSystem>) {
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    (faulty.faults(), faulty)
}

fn name() -> TableName {
    TableName::parse("t").expect("valid")
}

fn put(table: &dyn Table, key: &str) -> basalt_api::Result<()> {
    table.put(&Put::new(key.to_string()).add("cf", "q", format!("v-{key}")))
}

fn put_acked(table: &dyn Table, prefix: &str, acked: &mut BTreeMap<String, String>) {
    for i in 0..50 {
        let key = format!("{prefix}{i:03}");
        put(table, &key).expect("acknowledged");
        acked.insert(key.clone(), format!("v-{key}"));
    }
}

fn assert_refused(result: basalt_api::Result<()>) {
    let err = result.expect_err("refused on a full disk");
    assert_eq!(err.kind, ErrorKind::Unavailable, "{err:?}");
    assert_eq!(err.exception, "java.io.IOException");
    assert!(
        err.message.starts_with("disk full: ") && err.message.contains("No space left"),
        "{}",
        err.message
    );
}

/// Every acknowledged value, read back.
fn assert_all_readable(table: &dyn Table, acked: &BTreeMap<String, String>) {
    for (key, value) in acked {
        let row = table.get(&Get::new(key.clone())).expect("get");
        assert_eq!(row.value(b"cf", b"q"), Some(value.as_bytes()), "{key}");
    }
}

fn open_on(fs: Arc<dyn FileSystem>, dir: &Path) -> (Arc<Database>, Arc<dyn Table>) {
    let db = Database::open_on(fs, dir, config()).expect("opens");
    let table = EmbeddedConnection::new(db.clone())
        .table(&name())
        .expect("table");
    (db, table)
}

#[test]
fn puts_fail_while_the_disk_is_full_and_succeed_again_without_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (faults, fs) = faulty();
    let mut acked = BTreeMap::new();
    {
        let db = open(dir.path(), config());
        db.admin
            .create_table(&descriptor("t", &["cf"]), &PreSplit::None)
            .expect("create");
        db.db.close().expect("close");
    }
    let (db, table) = open_on(fs, dir.path());
    put_acked(table.as_ref(), "before", &mut acked);
    faults.fill_disk_after(100);
    for i in 0..5 {
        assert_refused(put(table.as_ref(), &format!("refused{i}")));
    }
    assert_all_readable(table.as_ref(), &acked);
    faults.free_space();
    put_acked(table.as_ref(), "after", &mut acked);

    // Full again at the stop: the close succeeds, the log keeps what was not flushed.
    faults.fill_disk_after(0);
    db.close().expect("a close on a full disk loses nothing");
    drop((db, table));
    assert_eq!(partial_files(dir.path()), Vec::<std::path::PathBuf>::new());

    // And the next open, still on a full disk, serves every value.
    let (db, table) = open_on(Arc::new(FaultyFs::new(Arc::new(LocalFs))), dir.path());
    assert_all_readable(table.as_ref(), &acked);
    assert!(table.get(&Get::new("refused0")).expect("get").is_empty());
    db.close().expect("close");
}

#[test]
fn an_open_on_a_full_disk_serves_reads_and_takes_writes_once_space_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut acked = BTreeMap::new();
    {
        let db = open(dir.path(), config());
        db.admin
            .create_table(&descriptor("t", &["cf"]), &PreSplit::None)
            .expect("create");
        put_acked(db.table(&name()).as_ref(), "flushed", &mut acked);
        db.admin.flush(&name()).expect("flush");
        put_acked(db.table(&name()).as_ref(), "logged", &mut acked);
        // Dropped without a close: the last puts are only in the log.
    }
    let (faults, fs) = faulty();
    faults.fill_disk_after(0);
    let (db, table) = open_on(fs, dir.path());
    assert_all_readable(table.as_ref(), &acked);
    assert_refused(put(table.as_ref(), "refused"));
    faults.free_space();
    put_acked(table.as_ref(), "resumed", &mut acked);
    db.close().expect("close");
    drop((db, table));

    let db = open(dir.path(), config());
    assert_all_readable(db.table(&name()).as_ref(), &acked);
    db.db.close().expect("close");
}

/// Files a failed write may have left: anything in a `.tmp` folder, any `*.tmp` file.
fn partial_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "tmp")
                || path.components().any(|c| c.as_os_str() == ".tmp")
            {
                found.push(path);
            }
        }
    }
    found
}
