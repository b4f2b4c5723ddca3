//! Data written today is readable tomorrow: the v1 fixture (`tests/fixtures/v1`, a data
//! folder written by the code of an earlier commit, see its README) opens with this code
//!
//! - and reads exactly as the code that wrote it read it (`expected.txt`, line by line:
//!   namespaces, table states and schemas, region boundaries and names, every version of
//!   every cell, delete markers, the disabled table's cells);
//! - and shows what was written, checked by hand here too, so that the expectation is not
//!   only "what some version read": every delete kind's effect, versions, TTLs, counters;
//! - then takes writes, flushes, major compactions and the janitor, and reopens with the
//!   same data.
//!
//! A fourth test checks the fixture itself still holds every file kind it claims (each
//! codec, encoding, bloom, a two-level index, references of each range, crashed log
//! segments), reading the bytes as `docs/format.md` draws them.

#[path = "format_fixture/dump.rs"]
mod dump;

use basalt_api::{Connection, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::fs::LocalFs;
use basalt_storage::region::manifest::Manifest;
use basalt_storage::store::reference::RefRange;
use basalt_types::{Delete, Get, Put, Scan, TableName};
use bytes::Bytes;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// 2023-11-14 and 2100-01-01, the timestamps the generator used.
const T: i64 = 1_700_000_000_000;
const FUTURE: i64 = 4_102_444_800_000;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1")
}

/// A writable copy of the fixture's data folder (the fixture itself is never opened).
fn copy_of_fixture() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("create");
        for entry in std::fs::read_dir(from).expect("list") {
            let entry = entry.expect("entry");
            let target = to.join(entry.file_name());
            if entry.path().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).expect("copy");
            }
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    copy(&fixture().join("root"), dir.path());
    dir
}

fn open(root: &Path) -> (Arc<Database>, EmbeddedConnection) {
    let config = DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    };
    let db = Database::open(root, config).expect("the fixture opens");
    let conn = EmbeddedConnection::new(db.clone());
    (db, conn)
}

fn name(text: &str) -> TableName {
    TableName::parse(text).expect("valid name")
}

fn expected() -> String {
    std::fs::read_to_string(fixture().join("expected.txt")).expect("expected.txt")
}

/// Panics at the first line that differs, showing both.
fn assert_same_lines(actual: &str, expected: &str) {
    let (a, e): (Vec<&str>, Vec<&str>) = (actual.lines().collect(), expected.lines().collect());
    for (i, (a, e)) in a.iter().zip(&e).enumerate() {
        assert_eq!(a, e, "line {} differs", i + 1);
    }
    assert_eq!(a.len(), e.len(), "the dumps have different lengths");
}

#[test]
fn the_fixture_reads_exactly_as_the_code_that_wrote_it() {
    let dir = copy_of_fixture();
    let (db, conn) = open(dir.path());
    let mut actual = dump::dump(&conn);
    actual.push_str(&dump::dump_disabled_cells(&conn));
    assert_same_lines(&actual, &expected());
    db.close().expect("close");
}

/// Versions of `row / family:qualifier` as `(timestamp, value)`, newest first.
fn versions(table: &dyn Table, row: &str, family: &str, qualifier: &str) -> Vec<(i64, String)> {
    let get = Get::new(row.to_string())
        .column(family.to_string(), qualifier.to_string())
        .versions(100);
    let result = table.get(&get).expect("get");
    result
        .cells
        .iter()
        .map(|c| {
            (
                c.timestamp(),
                String::from_utf8_lossy(c.value()).into_owned(),
            )
        })
        .collect()
}

fn vs(list: &[(i64, &str)]) -> Vec<(i64, String)> {
    list.iter().map(|(t, v)| (*t, v.to_string())).collect()
}

#[test]
fn the_fixture_shows_what_was_written() {
    let dir = copy_of_fixture();
    let (db, conn) = open(dir.path());
    let admin = conn.admin();
    let tables: Vec<String> = admin
        .list_tables(None)
        .expect("list")
        .iter()
        .map(|t| t.to_string())
        .collect();
    let want = [
        "bulk",
        "cells",
        "grown",
        "fx:off",
        "fx:options",
        "fx:presplit",
        "fx:versions",
    ];
    assert_eq!(tables, want);
    assert!(!admin.is_table_enabled(&name("fx:off")).expect("state"));
    let bounds = |t: &str| -> Vec<String> {
        let regions = admin.list_regions(&name(t)).expect("regions");
        regions
            .iter()
            .map(|r| String::from_utf8_lossy(&r.start_key).into_owned())
            .collect()
    };
    assert_eq!(
        bounds("fx:presplit"),
        ["", "g", "j", "n"],
        "merged n-t-end, split g-n at j"
    );
    assert_eq!(bounds("grown"), ["", "20"]);
    assert_eq!(bounds("bulk"), ["", "m"]);

    let cells = conn.table(&name("cells")).expect("table");
    let c = cells.as_ref();
    assert_eq!(
        versions(c, "delete", "f", "a"),
        vs(&[(T + 3, "delete a3"), (T + 1, "delete a1")])
    );
    assert_eq!(versions(c, "delcol", "f", "a"), vs(&[(T + 3, "delcol a3")]));
    assert_eq!(versions(c, "delfam", "f", "a"), vs(&[(T + 3, "delfam a3")]));
    assert_eq!(
        versions(c, "delfam", "g", "x"),
        vs(&[(T + 1, "x")]),
        "other family kept"
    );
    assert_eq!(
        versions(c, "delfamver", "f", "a"),
        vs(&[(T + 2, "delfamver a2"), (T + 1, "delfamver a1")])
    );
    assert_eq!(versions(c, "delfamver", "f", "b"), vs(&[]));
    assert!(
        cells.get(&Get::new("delrow")).expect("get").is_empty(),
        "the row delete"
    );
    assert_eq!(
        versions(c, "newest", "f", "a"),
        vs(&[(T + 2, "newest a2"), (T + 1, "newest a1")])
    );
    assert_eq!(
        versions(c, "put", "f", "b"),
        vs(&[]),
        "a DeleteColumn only in the log"
    );
    assert_eq!(versions(c, "put", "f", "a").len(), 3);
    assert_eq!(versions(c, "mutated", "f", "a"), vs(&[]));
    assert_eq!(versions(c, "mutated", "f", "b"), vs(&[(T, "kept")]));
    let counter = cells.get(&Get::new("counter")).expect("get");
    assert_eq!(
        counter.value(b"f", b"n").map(|v| v.to_vec()),
        Some(13i64.to_be_bytes().to_vec())
    );
    let appended = cells.get(&Get::new("appended")).expect("get");
    assert_eq!(
        appended.value(b"f", b"s").map(|v| v.to_vec()),
        Some(b"abcdefghi".to_vec())
    );
    let binary = cells
        .get(&Get::new(Bytes::from_static(b"bin\x00\xff")))
        .expect("get");
    assert_eq!(
        binary.value(b"f", b"\x01q").map(|v| v.to_vec()),
        Some(b"\x00\x80\xff".to_vec())
    );
    assert_eq!(binary.value(b"f", b"empty").map(|v| v.len()), Some(0));

    let versioned = conn.table(&name("fx:versions")).expect("table");
    let v = versioned.as_ref();
    assert_eq!(
        versions(v, "a", "v", "q"),
        vs(&[(1002, "old 1002")]),
        "MIN_VERSIONS keeps one expired"
    );
    let live = vs(&[
        (FUTURE + 6, "live 6, log only"),
        (FUTURE + 5, "live 5"),
        (FUTURE + 4, "live 4"),
    ]);
    assert_eq!(versions(v, "b", "v", "q"), live, "VERSIONS => 3");
    assert_eq!(versions(v, "c", "k", "q"), vs(&[(T + 3, "kept 3")]));
    let raw = dump::scan_rows(v, &Scan::new().raw(true).versions(100).start("c").stop("d"));
    assert_eq!(
        raw[0].cells.len(),
        4,
        "KEEP_DELETED_CELLS keeps the marker and what it hides"
    );
    for (row, family) in [("e", "t"), ("g", "t")] {
        assert_eq!(versions(v, row, family, "q"), vs(&[]), "{row} expired");
    }
    assert_eq!(versions(v, "f", "t", "q"), vs(&[(FUTURE, "live")]));
    assert_eq!(
        versions(v, "d", "kt", "r"),
        vs(&[(FUTURE + 1, "live again")])
    );

    let bulk = conn.table(&name("bulk")).expect("table");
    assert_eq!(dump::scan_rows(bulk.as_ref(), &Scan::new()).len(), 26);
    assert_eq!(
        versions(bulk.as_ref(), "b", "b", "x"),
        vs(&[(T + 1, "after the load")])
    );
    let options = conn.table(&name("fx:options")).expect("table");
    let zstd = dump::scan_rows(options.as_ref(), &Scan::new().family("zstd"));
    assert_eq!(zstd.len(), 400);
    let row = options.get(&Get::new("row0001")).expect("get");
    assert_eq!(
        row.value(b"added", b"a").map(|v| v.to_vec()),
        Some(b"after alter".to_vec())
    );
    assert!(
        row.cells.iter().all(|c| c.family() != b"gone"),
        "a deleted family"
    );
    db.close().expect("close");
}

/// `(table, cell line)` of every cell a reader sees in a dump.
fn cell_lines(dump: &str) -> BTreeSet<(String, String)> {
    let mut table = String::new();
    let mut lines = BTreeSet::new();
    for line in dump.lines() {
        if let Some(rest) = line.strip_prefix("table ") {
            table = rest.split(' ').next().unwrap_or_default().to_string();
        } else if let Some(cell) = line.strip_prefix("  cell ") {
            lines.insert((table.clone(), cell.to_string()));
        }
    }
    lines
}

#[test]
fn the_fixture_takes_writes_flushes_compactions_and_a_reopen() {
    let dir = copy_of_fixture();
    let mut want = cell_lines(&expected());
    {
        let (db, conn) = open(dir.path());
        let admin = conn.admin();
        admin.enable_table(&name("fx:off")).expect("enable");
        for t in admin.list_tables(None).expect("list") {
            let table = conn.table(&t).expect("table");
            let descriptor = admin.describe_table(&t).expect("describe");
            for family in &descriptor.families {
                let put = Put::new("new-row").add_at(family.name.clone(), "n", FUTURE, "new");
                table.put(&put).expect("put");
                let f = String::from_utf8_lossy(&family.name);
                want.insert((t.to_string(), format!("new-row/{f}:n/{FUTURE}/Put = new")));
            }
        }
        let cells = conn.table(&name("cells")).expect("table");
        cells
            .delete(&Delete::new("put").at(T + 3).version("f", "a"))
            .expect("delete");
        assert!(want.remove(&("cells".into(), format!("put/f:a/{}/Put = put a3", T + 3))));
        for t in admin.list_tables(None).expect("list") {
            admin.flush(&t).expect("flush");
            admin.compact(&t, true).expect("major compaction");
        }
        let retired = admin.run_catalog_janitor().expect("janitor");
        assert_eq!(
            retired, 4,
            "grown's parent, the two merged regions, the split parent"
        );
        for t in admin.list_tables(None).expect("list") {
            let serving: BTreeSet<String> = admin
                .list_regions(&t)
                .expect("regions")
                .into_iter()
                .map(|r| r.encoded_name)
                .collect();
            let table_dir = dir
                .path()
                .join("data")
                .join(t.namespace())
                .join(t.qualifier());
            let folders: BTreeSet<String> = std::fs::read_dir(&table_dir)
                .expect("table folder")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|name| name != ".tableinfo")
                .collect();
            assert_eq!(folders, serving, "{t}: region folders after the janitor");
            for region in &serving {
                let copies = ["MANIFEST", "MANIFEST.2"]
                    .map(|n| std::fs::read(table_dir.join(region).join(n)).expect("manifest copy"));
                assert_eq!(copies[0], copies[1], "{t} {region}: two equal copies");
                assert_eq!(
                    copies[0][4..8],
                    3u32.to_be_bytes(),
                    "{t} {region}: version 3"
                );
            }
        }
        let version = std::fs::read_to_string(dir.path().join("VERSION")).expect("VERSION");
        assert_eq!(version, "basalt data folder format 1\n");
        assert_eq!(cell_lines(&dump::dump(&conn)), want, "before the reopen");
        db.close().expect("close");
    }
    let (db, conn) = open(dir.path());
    assert_eq!(cell_lines(&dump::dump(&conn)), want, "after the reopen");
    db.close().expect("close");
}

/// The trailer fields of every HFile below `dir` (docs/format.md, "Trailer").
fn trailers(dir: &Path, out: &mut Vec<[u8; 108]>) {
    for entry in std::fs::read_dir(dir).expect("list") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            trailers(&path, out);
        } else if path.extension().is_some_and(|e| e == "hfile") {
            let bytes = std::fs::read(&path).expect("read");
            out.push(bytes[bytes.len() - 108..].try_into().expect("108 bytes"));
        }
    }
}

#[test]
fn the_fixture_holds_every_file_kind() {
    let root = fixture().join("root");
    let mut found = Vec::new();
    trailers(&root.join("data"), &mut found);
    let codes = |at: usize| -> BTreeSet<u8> { found.iter().map(|t| t[at]).collect() };
    assert_eq!(codes(12), BTreeSet::from([0, 1, 2, 3, 4]), "every codec");
    assert_eq!(codes(13), BTreeSet::from([0, 1]), "both encodings");
    assert_eq!(codes(14), BTreeSet::from([0, 1, 2]), "every bloom");
    assert!(
        found.iter().any(|t| t[68..72] == 2u32.to_be_bytes()),
        "a two-level index"
    );
    assert!(found
        .iter()
        .all(|t| &t[..8] == b"BSLTHFIL" && t[8..12] == 1u32.to_be_bytes()));

    let presplit = root.join("data/fx/presplit");
    let mut ranges = BTreeSet::new();
    for region in std::fs::read_dir(&presplit).expect("list") {
        let manifest = Manifest::load(&LocalFs, &region.expect("entry").path()).expect("manifest");
        for entry in manifest.families.values().flat_map(|f| f.files.iter()) {
            if let Some(reference) = &entry.reference {
                ranges.insert(match reference.range {
                    RefRange::Whole => "whole",
                    RefRange::Bottom(_) => "bottom",
                    RefRange::Top(_) => "top",
                });
            }
        }
    }
    assert_eq!(ranges, BTreeSet::from(["bottom", "top", "whole"]));
    let segments = std::fs::read_dir(root.join("wal")).expect("wal").count();
    assert_eq!(segments, 3, "one segment per run");
    assert!(
        root.join("data/hbase/meta/1588230740/info").is_dir(),
        "meta in store files"
    );
}
