//! Writes the format fixture: a small data folder holding every on-disk format the current
//! code writes, for `tests/format_fixture.rs` to open with every later version.
//!
//! ```text
//! cargo run -p basalt-db --example write_format_fixture -- <new folder>
//! ```
//!
//! writes `<folder>/root` (the data folder) and `<folder>/expected.txt` (what this code
//! reads from it). Three processes write the data folder, so that it holds what a crash
//! leaves as well as what a clean close does:
//!
//! | phase | process | what it adds | ends |
//! |-------|---------|--------------|------|
//! | 1 | this one | namespaces; tables with every family option, codec, bloom and encoding; every cell type; flushes; a bulk load; a completed split; an altered, a dropped and a disabled table | clean close: meta and data in store files |
//! | 2 | a child | writes left only in the log; a merge of two pre-split regions | aborts after the merge's catalog commit |
//! | 3 | a child | more log-only writes; a split of a pre-split region | aborts after the split's catalog commit (daughters hold references) |
//!
//! Then empty folders are removed (git keeps none), and a copy of the folder is opened by
//! this code and dumped (`tests/format_fixture/dump.rs`) into `expected.txt`. Every
//! timestamp is explicit except those of increments and appends (the server's clock, fixed
//! once written); cells of families with a TTL are either long expired (timestamps near
//! 1970) or far in the future, so what is expired never changes with the date.

#[path = "../tests/format_fixture/dump.rs"]
mod dump;

use basalt_api::{Admin, Connection, PreSplit, Table};
use basalt_db::bulk_load::BulkLoadOptions;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{
    Append, BloomType, Compression, DataBlockEncoding, Delete, DeleteSpec, Durability,
    FamilyDescriptor, Increment, KeepDeletedCells, Mutation, NamespaceDescriptor, Put,
    RowMutations, TableDescriptor, TableName, LATEST_TIMESTAMP,
};
use bytes::Bytes;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// 2023-11-14: the timestamp of cells in families without a TTL.
const T: i64 = 1_700_000_000_000;
/// 1970: long expired under any TTL.
const ANCIENT: i64 = 1_000;
/// 2100-01-01: alive under any TTL for the life of this fixture.
const FUTURE: i64 = 4_102_444_800_000;

const PHASE_VAR: &str = "BASALT_FIXTURE_PHASE";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, out] = args.as_slice() else {
        eprintln!("usage: write_format_fixture <new folder>");
        std::process::exit(2);
    };
    let out = PathBuf::from(out);
    let root = out.join("root");
    match std::env::var(PHASE_VAR).as_deref() {
        Ok("2") => phase_2(&root),
        Ok("3") => phase_3(&root),
        _ => {
            assert!(!out.exists(), "{} exists already", out.display());
            std::fs::create_dir_all(&root).expect("create the folder");
            phase_1(&root);
            crash_in_child(&out, "2", "merge.after_commit");
            crash_in_child(&out, "3", "split.after_commit");
            remove_empty_folders(&root);
            write_expected(&out, &root);
        }
    }
}

fn config() -> DbConfig {
    DbConfig {
        // No automatic splits or janitor passes: the phases decide.
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn open(root: &Path) -> (Arc<Database>, EmbeddedConnection) {
    let db = Database::open(root, config()).expect("database opens");
    let conn = EmbeddedConnection::new(db.clone());
    (db, conn)
}

fn name(text: &str) -> TableName {
    TableName::parse(text).expect("valid table name")
}

fn family(name: &str) -> FamilyDescriptor {
    FamilyDescriptor::new(name.to_string()).expect("valid family")
}

fn table(conn: &EmbeddedConnection, text: &str) -> Arc<dyn Table> {
    conn.table(&name(text)).expect("table exists")
}

fn put(row: &str, family: &str, qualifier: &str, ts: i64, value: &str) -> Put {
    Put::new(row.to_string())
        .add_at(family, qualifier, ts, value)
        .durability(Durability::SyncWal)
}

/// Runs this program again as phase `phase`, with `failpoint` armed; it must abort there.
fn crash_in_child(out: &Path, phase: &str, failpoint: &str) {
    let status = Command::new(std::env::current_exe().expect("own path"))
        .arg(out)
        .env(PHASE_VAR, phase)
        .env("BASALT_FAILPOINT", failpoint)
        .status()
        .expect("run the child");
    assert!(
        !status.success() && status.code().is_none(),
        "phase {phase} should abort at {failpoint}: {status}"
    );
}

fn phase_1(root: &Path) {
    let (db, conn) = open(root);
    let admin = conn.admin();
    let mut ns = NamespaceDescriptor::new("fx").expect("valid namespace");
    ns.properties
        .insert("owner".into(), "format-fixture".into());
    ns.properties
        .insert("hbase.namespace.quota.maxtables".into(), "20".into());
    admin.create_namespace(&ns).expect("namespace");
    options_table(&db, admin.as_ref(), &conn);
    versions_table(admin.as_ref(), &conn);
    cells_table(admin.as_ref(), &conn);
    presplit_table(admin.as_ref(), &conn);
    grown_table(admin.as_ref(), &conn);
    bulk_table(&db, admin.as_ref(), &conn);
    off_and_dropped_tables(admin.as_ref(), &conn);
    db.close().expect("clean close");
}

/// `fx:options`: a family per codec, bloom and encoding, with small blocks (one family's
/// file has a two-level block index); an altered schema (a family added, one removed).
fn options_table(db: &Arc<Database>, admin: &dyn Admin, conn: &EmbeddedConnection) {
    let mut gz = family("gz");
    gz.compression = Compression::Gz;
    gz.bloom_filter = BloomType::Row;
    gz.data_block_encoding = DataBlockEncoding::Prefix;
    gz.block_size_bytes = 1024;
    let mut snappy = family("snappy");
    snappy.compression = Compression::Snappy;
    snappy.bloom_filter = BloomType::RowCol;
    snappy.in_memory = true;
    let mut lz4 = family("lz4");
    lz4.compression = Compression::Lz4;
    lz4.bloom_filter = BloomType::None;
    lz4.data_block_encoding = DataBlockEncoding::Prefix;
    lz4.block_cache = false;
    let mut zstd = family("zstd");
    zstd.compression = Compression::Zstd;
    zstd.bloom_filter = BloomType::RowCol;
    zstd.data_block_encoding = DataBlockEncoding::Prefix;
    zstd.block_size_bytes = 1024;
    zstd.replication_scope = 1;
    zstd.configuration
        .insert("hbase.hstore.blockingStoreFiles".into(), "20".into());
    zstd.metadata
        .insert("note".into(), "many small blocks".into());
    let plain = family("plain");
    let gone = family("gone");
    // The encodings of HFile format version 2 (added after the v1 fixture was written),
    // so the next fixture holds files of both versions.
    let mut diff = family("diff");
    diff.data_block_encoding = DataBlockEncoding::Diff;
    let mut fast = family("fastdiff");
    fast.data_block_encoding = DataBlockEncoding::FastDiff;
    fast.compression = Compression::Snappy;
    let mut rowidx = family("rowidx");
    rowidx.data_block_encoding = DataBlockEncoding::RowIndexV1;
    let families = vec![gz, snappy, lz4, zstd, plain, gone, diff, fast, rowidx];
    let mut t = TableDescriptor::new(name("fx:options"), families);
    t.max_file_size_bytes = 1 << 30;
    t.memstore_flush_size_bytes = 64 << 20;
    t.durability = Durability::FsyncWal;
    t.configuration
        .insert("hbase.hregion.majorcompaction".into(), "0".into());
    t.metadata.insert("OWNER".into(), "format-fixture".into());
    admin.create_table(&t, &PreSplit::None).expect("create");
    // zstd: ~40 KB of cells in 1 KB blocks, so the block index needs a second level;
    // bulk loaded, which keeps them out of the log (and the fixture small).
    let mut loader = db
        .bulk_loader(&t.name, BulkLoadOptions::default())
        .expect("loader");
    for i in 0..400 {
        let value = format!("zstd value {i:04} ").repeat(6);
        let row = Put::new(format!("row{i:04}")).add_at("zstd", "q", T, value);
        loader.add(row).expect("bulk row");
    }
    loader.commit().expect("bulk commit");
    let table = table(conn, "fx:options");
    for i in 0..40 {
        let row = format!("row{i:04}");
        for (f, q) in [
            ("gz", "g"),
            ("snappy", "s"),
            ("lz4", "l"),
            ("plain", "p"),
            ("diff", "d"),
            ("fastdiff", "f"),
            ("rowidx", "r"),
        ] {
            let value = format!("{f} {i} ").repeat(2);
            table.put(&put(&row, f, q, T + i, &value)).expect("put");
        }
        table
            .put(&put(&row, "gone", "x", T, "removed later"))
            .expect("put");
    }
    admin.flush(&t.name).expect("flush");
    // A second file per family, with overwrites of the first.
    for i in (0..40).step_by(7) {
        let row = format!("row{i:04}");
        for f in ["gz", "snappy", "lz4", "plain", "diff", "fastdiff", "rowidx"] {
            table
                .put(&put(&row, f, "late", T + 100, "second file"))
                .expect("put");
        }
    }
    admin.flush(&t.name).expect("flush");
    admin
        .delete_family(&t.name, b"gone")
        .expect("delete family");
    let mut added = family("added");
    added.max_versions = 2;
    admin.add_family(&t.name, &added).expect("add family");
    table
        .put(&put("row0001", "added", "a", T, "after alter"))
        .expect("put");
}

/// `fx:versions`: VERSIONS, MIN_VERSIONS, TTL and KEEP_DELETED_CELLS.
fn versions_table(admin: &dyn Admin, conn: &EmbeddedConnection) {
    let mut v = family("v");
    v.max_versions = 3;
    v.min_versions = 1;
    v.ttl_secs = 3600;
    let mut k = family("k");
    k.max_versions = 5;
    k.keep_deleted_cells = KeepDeletedCells::True;
    let mut kt = family("kt");
    kt.max_versions = 2;
    kt.ttl_secs = 3600;
    kt.keep_deleted_cells = KeepDeletedCells::Ttl;
    let mut t = family("t");
    t.ttl_secs = 60;
    let d = TableDescriptor::new(name("fx:versions"), vec![v, k, kt, t]);
    admin.create_table(&d, &PreSplit::None).expect("create");
    let table = table(conn, "fx:versions");
    // v: expired versions (MIN_VERSIONS keeps the newest), five live versions (three kept).
    for ts in [ANCIENT + 1, ANCIENT + 2] {
        table
            .put(&put("a", "v", "q", ts, &format!("old {ts}")))
            .expect("put");
    }
    for n in 1..=5 {
        table
            .put(&put("b", "v", "q", FUTURE + n, &format!("live {n}")))
            .expect("put");
    }
    // k: deleted cells kept.
    for n in 1..=3 {
        table
            .put(&put("c", "k", "q", T + n, &format!("kept {n}")))
            .expect("put");
    }
    admin.flush(&d.name).expect("flush");
    let delete = Delete::new("c").at(T + 2).columns("k", "q");
    table.delete(&delete).expect("delete column");
    // kt: deleted cells kept until their TTL; expired ones and a live one.
    table
        .put(&put("d", "kt", "q", ANCIENT, "expired"))
        .expect("put");
    table
        .delete(&Delete::new("d").at(ANCIENT).version("kt", "q"))
        .expect("delete");
    table
        .put(&put("d", "kt", "r", FUTURE, "live"))
        .expect("put");
    table
        .delete(&Delete::new("d").at(FUTURE).version("kt", "r"))
        .expect("delete");
    table
        .put(&put("d", "kt", "r", FUTURE + 1, "live again"))
        .expect("put");
    // t: a family TTL, and cell TTLs.
    table
        .put(&put("e", "t", "q", ANCIENT, "expired"))
        .expect("put");
    table.put(&put("f", "t", "q", FUTURE, "live")).expect("put");
    let mut cell_ttl = put("g", "t", "q", ANCIENT, "cell ttl expired");
    cell_ttl.ttl_ms = Some(1_000);
    table.put(&cell_ttl).expect("put");
    let mut cell_ttl = put("h", "v", "q", FUTURE, "cell ttl live");
    cell_ttl.ttl_ms = Some(1_000);
    table.put(&cell_ttl).expect("put");
}

/// `cells`: every cell type and mutation, in and after a flush.
fn cells_table(admin: &dyn Admin, conn: &EmbeddedConnection) {
    let mut f = family("f");
    f.max_versions = 10;
    let mut d = TableDescriptor::new(name("cells"), vec![f, family("g")]);
    d.durability = Durability::SyncWal;
    admin.create_table(&d, &PreSplit::None).expect("create");
    let table = table(conn, "cells");
    for row in [
        "put",
        "delete",
        "delcol",
        "delfam",
        "delfamver",
        "delrow",
        "newest",
    ] {
        for n in 1..=3 {
            table
                .put(&put(row, "f", "a", T + n, &format!("{row} a{n}")))
                .expect("put");
        }
        table.put(&put(row, "f", "b", T + 3, "b")).expect("put");
        table.put(&put(row, "g", "x", T + 1, "x")).expect("put");
    }
    let binary = Put::new(Bytes::from_static(b"bin\x00\xff"))
        .add_at(
            "f",
            Bytes::from_static(b"\x01q"),
            T,
            Bytes::from_static(b"\x00\x80\xff"),
        )
        .add_at("f", "empty", T, Bytes::new());
    table.put(&binary).expect("put");
    admin.flush(&d.name).expect("flush");
    let deletes = [
        Delete::new("delete").at(T + 2).version("f", "a"),
        Delete::new("delcol").at(T + 2).columns("f", "a"),
        Delete::new("delfam").at(T + 2).family("f"),
        Delete::new("delfamver").spec(DeleteSpec::FamilyVersion {
            family: Bytes::from_static(b"f"),
            timestamp: T + 3,
        }),
        Delete::new("delrow").at(T + 5),
        Delete::new("newest").version("f", "a"),
    ];
    for delete in &deletes {
        table.delete(delete).expect("delete");
    }
    counters(table.as_ref());
    let mutations = RowMutations::new(
        "mutated",
        vec![
            Mutation::Put(put("mutated", "f", "a", T, "put in a row mutation")),
            Mutation::Delete(Delete::new("mutated").at(T).version("f", "a")),
            Mutation::Put(put("mutated", "f", "b", T, "kept")),
        ],
    )
    .expect("one row");
    table.mutate_row(&mutations).expect("mutate row");
}

/// Increments and appends (timestamps from the server's clock).
fn counters(table: &dyn Table) {
    for delta in [5, 7] {
        table
            .increment(&Increment::new("counter").add("f", "n", delta))
            .expect("increment");
    }
    for suffix in ["abc", "def"] {
        table
            .append(&Append::new("appended").add("f", "s", suffix))
            .expect("append");
    }
}

/// `fx:presplit`: four regions from split keys, each with flushed rows.
fn presplit_table(admin: &dyn Admin, conn: &EmbeddedConnection) {
    let d = TableDescriptor::new(name("fx:presplit"), vec![family("f")]);
    let keys = ["g", "n", "t"].map(Bytes::from).to_vec();
    admin
        .create_table(&d, &PreSplit::Keys(keys))
        .expect("create");
    let table = table(conn, "fx:presplit");
    for row in ["a", "c", "g", "h", "k", "m", "n", "p", "t", "w", "zz"] {
        table
            .put(&put(row, "f", "q", T, &format!("{row} 1")))
            .expect("put");
    }
}

/// `grown`: one region split in two by request (its daughters compact by themselves).
fn grown_table(admin: &dyn Admin, conn: &EmbeddedConnection) {
    let d = TableDescriptor::new(name("grown"), vec![family("f")]);
    admin.create_table(&d, &PreSplit::None).expect("create");
    let table = table(conn, "grown");
    for i in 0..40 {
        table
            .put(&put(&format!("{i:02}"), "f", "q", T, &format!("grown {i}")))
            .expect("put");
    }
    admin.flush(&d.name).expect("flush");
    admin.split(&d.name, Some(b"20")).expect("split");
}

/// `bulk`: a bulk load into two regions, and a put after it.
fn bulk_table(db: &Arc<Database>, admin: &dyn Admin, conn: &EmbeddedConnection) {
    let mut c = family("c");
    c.compression = Compression::Gz;
    let d = TableDescriptor::new(name("bulk"), vec![family("b"), c]);
    admin
        .create_table(&d, &PreSplit::Keys(vec![Bytes::from_static(b"m")]))
        .expect("create");
    let mut loader = db
        .bulk_loader(&d.name, BulkLoadOptions::default())
        .expect("loader");
    for letter in b'a'..=b'z' {
        let row = (letter as char).to_string();
        loader
            .add(
                Put::new(row.clone())
                    .add_at("b", "x", T, format!("bulk {row}"))
                    .add_at("c", "y", T, format!("bulk c {row}")),
            )
            .expect("bulk row");
    }
    loader.commit().expect("bulk commit");
    table(conn, "bulk")
        .put(&put("b", "b", "x", T + 1, "after the load"))
        .expect("put");
}

/// `fx:off` (disabled, two regions) and `fx:dropped` (created, filled, deleted).
fn off_and_dropped_tables(admin: &dyn Admin, conn: &EmbeddedConnection) {
    for text in ["fx:off", "fx:dropped"] {
        let d = TableDescriptor::new(name(text), vec![family("f")]);
        admin
            .create_table(&d, &PreSplit::Keys(vec![Bytes::from_static(b"m")]))
            .expect("create");
        let table = table(conn, text);
        for row in ["a", "m", "z"] {
            table
                .put(&put(row, "f", "q", T, &format!("{text} {row}")))
                .expect("put");
        }
        admin.disable_table(&d.name).expect("disable");
    }
    admin.delete_table(&name("fx:dropped")).expect("delete");
}

/// Log-only writes, a flushed pre-split table, then a merge that dies after its commit.
fn phase_2(root: &Path) {
    let (_db, conn) = open(root);
    let admin = conn.admin();
    let cells = table(&conn, "cells");
    cells
        .put(&put("wal-only", "f", "a", T, "phase 2"))
        .expect("put");
    cells
        .delete(&Delete::new("put").at(T + 3).columns("f", "b"))
        .expect("delete in the log");
    cells
        .increment(&Increment::new("counter").add("f", "n", 1))
        .expect("increment");
    let presplit = table(&conn, "fx:presplit");
    for row in ["b", "i", "o", "u"] {
        presplit
            .put(&put(row, "f", "q", T, &format!("{row} 2")))
            .expect("put");
    }
    admin.flush(&name("fx:presplit")).expect("flush");
    for row in ["d", "j", "q", "v"] {
        presplit
            .put(&put(row, "f", "q", T, &format!("{row} 2, log only")))
            .expect("put");
    }
    let regions = admin.list_regions(&name("fx:presplit")).expect("regions");
    let at = |start: &[u8]| {
        regions
            .iter()
            .find(|r| r.start_key.as_ref() == start)
            .expect("region")
            .encoded_name
            .clone()
    };
    // Aborts after the commit: the merged region opens with references at the next start.
    admin
        .merge_regions(&at(b"n"), &at(b"t"))
        .expect("merge never returns here");
    unreachable!("the failpoint aborts the merge");
}

/// More log-only writes, then a split that dies after its commit.
fn phase_3(root: &Path) {
    let (_db, conn) = open(root);
    let admin = conn.admin();
    let versions = table(&conn, "fx:versions");
    versions
        .put(&put("b", "v", "q", FUTURE + 6, "live 6, log only"))
        .expect("put");
    let cells = table(&conn, "cells");
    cells
        .put(&put("wal-only", "g", "x", T, "phase 3"))
        .expect("put");
    cells
        .append(&Append::new("appended").add("f", "s", "ghi"))
        .expect("append");
    let presplit = table(&conn, "fx:presplit");
    presplit
        .put(&put("x", "f", "q", T, "x 3, log only"))
        .expect("put");
    let latest = Put::new("y")
        .add("f", "q", "server time")
        .durability(Durability::SyncWal);
    assert_eq!(latest.cells[0].timestamp(), LATEST_TIMESTAMP);
    presplit.put(&latest).expect("put");
    presplit
        .put(&put("j", "f", "q", T + 1, "j 3"))
        .expect("put");
    // Aborts after the commit: the daughters hold references to the parent's files.
    admin
        .split(&name("fx:presplit"), Some(b"j"))
        .expect("split never returns here");
    unreachable!("the failpoint aborts the split");
}

/// Removes every empty folder below `dir` (git cannot hold them); true if `dir` is now empty.
fn remove_empty_folders(dir: &Path) -> bool {
    let mut empty = true;
    for entry in std::fs::read_dir(dir).expect("list") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if path.is_dir() && remove_empty_folders(&path) {
            std::fs::remove_dir(&path).expect("remove an empty folder");
        } else {
            empty = false;
        }
    }
    empty
}

/// Opens a copy of `root` and writes what this code reads from it to `expected.txt`.
fn write_expected(out: &Path, root: &Path) {
    let scratch = tempfile::tempdir().expect("temp dir");
    copy_tree(root, scratch.path());
    let (db, conn) = open(scratch.path());
    let mut text = dump::dump(&conn);
    text.push_str(&dump::dump_disabled_cells(&conn));
    db.close().expect("close");
    std::fs::write(out.join("expected.txt"), text).expect("write expected.txt");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
