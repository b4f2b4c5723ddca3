//! A data folder across formats, through the real binary. `basalt standalone` serves its
//! folder as a master and a region server in one process, with the catalog in
//! `coordinator/` (folder format 2). A folder an earlier Basalt (or the embedded
//! `Database`) wrote keeps its catalog in `hbase:meta` (format 1): the first start imports
//! it in place — its log replayed, every row served, `hbase:meta`'s files left as they
//! were — and a start cut short during the import imports again, its half-written
//! coordinator set aside. The embedded `Database` then refuses the folder, naming the way
//! to open it, rather than take it for a folder without a catalog.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::path::{Path, PathBuf};
use support::{start, stop};

fn name() -> TableName {
    TableName::parse("legacy").expect("name")
}

fn value(i: u32) -> String {
    format!("value-{i}")
}

/// A format-1 folder: a table split at `row050`, rows 0..50 flushed, 50..100 only in the
/// log (the database is dropped without closing, as after a crash).
fn write_format_1(dir: &Path) {
    let db = Database::open(dir, DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db.clone());
    let descriptor = TableDescriptor::new(name(), vec![FamilyDescriptor::new("f").expect("f")]);
    conn.admin()
        .create_table(&descriptor, &PreSplit::Keys(vec!["row050".into()]))
        .expect("create");
    let table = conn.table(&name()).expect("table");
    let put = |i: u32| Put::new(format!("row{i:03}")).add("f", "q", value(i));
    table
        .put_many(&(0..50).map(put).collect::<Vec<_>>())
        .expect("puts");
    conn.admin().flush(&name()).expect("flush");
    table
        .put_many(&(50..100).map(put).collect::<Vec<_>>())
        .expect("puts in the log only");
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push((path.clone(), std::fs::read(&path).expect("read")));
        }
    }
    found.sort();
    found
}

fn assert_every_row_served(addr: &str) {
    let conn = RemoteConnection::connect(addr).expect("connect");
    let table = conn.table(&name()).expect("table");
    let gets: Vec<Get> = (0..100).map(|i| Get::new(format!("row{i:03}"))).collect();
    let rows = table.get_many(&gets).expect("gets");
    for (i, row) in (0..100).zip(&rows) {
        let got = row.value(b"f", b"q").map(|v| v.to_vec());
        assert_eq!(got, Some(value(i).into_bytes()), "row{i:03}");
    }
    assert_eq!(
        conn.admin().list_regions(&name()).expect("regions").len(),
        2
    );
}

#[test]
fn a_format_1_folder_is_imported_in_place_at_its_first_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_format_1(dir.path());
    let before = files(dir.path());
    assert!(
        before
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains("/wal/")),
        "rows only in the log"
    );

    let server = start(dir.path());
    assert_every_row_served(&server.addr);
    stop(server);
    let version = std::fs::read_to_string(dir.path().join("VERSION")).expect("VERSION");
    assert_eq!(version, "basalt data folder format 2\n");
    assert!(dir.path().join("coordinator").is_dir());
    // Nothing the earlier format wrote is moved or deleted but the log, replayed and
    // flushed by the import and then retired as any clean close retires it.
    let after = files(dir.path());
    for (path, _) in before
        .iter()
        .filter(|(p, _)| !p.to_string_lossy().contains("/wal/"))
    {
        assert!(
            after.iter().any(|(p, _)| p == path),
            "{} kept",
            path.display()
        );
    }

    // Served again from its own catalog, not imported twice.
    let server = start(dir.path());
    assert_every_row_served(&server.addr);
    stop(server);

    let refused = Database::open(dir.path(), DbConfig::default()).expect_err("format 2");
    assert!(
        refused.message.contains("format 2")
            && refused.message.contains("coordinator")
            && refused.message.contains("basalt standalone"),
        "{refused}"
    );
}

#[test]
fn an_import_cut_short_is_set_aside_and_run_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_format_1(dir.path());
    // What an import killed before it wrote VERSION 2 leaves: a coordinator folder
    // beside a format-1 catalog (here an empty one, as if killed at once).
    let half = dir.path().join("coordinator");
    std::fs::create_dir(&half).expect("coordinator folder");
    std::fs::write(half.join("half-written"), b"x").expect("a file in it");

    let server = start(dir.path());
    assert_every_row_served(&server.addr);
    stop(server);
    let aside: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("coordinator.aside-"))
        })
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        std::fs::read(aside[0].join("half-written")).expect("kept"),
        b"x"
    );
}
