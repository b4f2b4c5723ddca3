//! Bulk loads written by several writer threads: the same rows as one writer writes, a
//! writer's failure (a full disk under one region's family) commits nothing of the load
//! and leaves no staged file while earlier loads stay, and a parallelism of 0 is refused.

use crate::basics;
use crate::bulk_load::staged_files;

use basalt_api::{ErrorKind, PreSplit};
use basalt_db::bulk_load::{BulkLoadOptions, PARALLELISM_MAX};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::fs::{FaultyFs, LocalFs};
use basalt_types::{Put, Scan};
use basics::*;
use bytes::Bytes;
use std::sync::Arc;

const FAMILIES: [&str; 3] = ["a", "b", "c"];

fn row(i: u32) -> String {
    format!("row{i:05}")
}

/// Row `i`: a cell in each family, values of varied length, one timestamp per load.
fn put(i: u32, timestamp: i64, tag: &str) -> Put {
    let mut put = Put::new(row(i));
    for (n, family) in FAMILIES.iter().enumerate() {
        let value = format!("{tag}-{family}-{i}-").repeat(1 + (i as usize + n) % 7);
        put = put.add_at(*family, "q", timestamp, value);
    }
    put
}

/// Four regions (split at rows 500, 1000, 1500), families a, b and c.
fn create(conn: &EmbeddedConnection, table: &str) {
    admin(conn)
        .create_table(
            &descriptor(table, &FAMILIES),
            &PreSplit::Keys(vec![row(500).into(), row(1000).into(), row(1500).into()]),
        )
        .expect("create");
}

fn options(parallelism: usize) -> BulkLoadOptions {
    BulkLoadOptions {
        // Small files: every lane rolls several times.
        file_size_max_bytes: 8 * 1024,
        parallelism,
        ..BulkLoadOptions::default()
    }
}

/// Compactions would merge (in the background) the files these tests count.
fn no_compactions() -> DbConfig {
    let mut config = DbConfig::default();
    config.storage.compaction_min_files = 1000;
    config
}

type CellKey = (Bytes, Bytes, Bytes, i64, Bytes);

fn all_cells(conn: &EmbeddedConnection, name: &str) -> Vec<CellKey> {
    scan_rows(table(conn, name).as_ref(), &Scan::new())
        .into_iter()
        .flat_map(|r| r.cells)
        .map(|c| {
            (
                c.row_bytes(),
                c.family_bytes(),
                c.qualifier_bytes(),
                c.timestamp(),
                c.value_bytes(),
            )
        })
        .collect()
}

fn store_files(conn: &EmbeddedConnection, name: &str) -> Vec<usize> {
    let regions = admin(conn)
        .list_regions(&basics::name(name))
        .expect("regions");
    regions.iter().map(|r| r.store_files).collect()
}

#[test]
fn four_writers_load_exactly_the_rows_one_writer_loads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path(), no_compactions()).expect("database opens");
    let conn = EmbeddedConnection::new(db.clone());
    let mut counts = Vec::new();
    for (table, parallelism) in [("one", 1), ("four", 4)] {
        create(&conn, table);
        let mut loader = db
            .bulk_loader(&name(table), options(parallelism))
            .expect("loader");
        for i in 0..2000 {
            loader.add(put(i, 7, "v")).expect("row added");
        }
        counts.push(loader.commit().expect("commit"));
    }
    let one = all_cells(&conn, "one");
    assert_eq!(one.len(), 6000, "2000 rows of 3 cells");
    assert_eq!(
        all_cells(&conn, "four"),
        one,
        "the same cells, in the same order"
    );
    assert_eq!(counts[0].regions_committed, 4);
    assert!(counts[0].files > 12, "files rolled: {:?}", counts[0]);
    assert_eq!(
        counts[1], counts[0],
        "the same rows, cells, bytes and files"
    );
    assert_eq!(store_files(&conn, "four"), store_files(&conn, "one"));
    assert_eq!(staged_files(dir.path()), 0);
}

#[test]
fn a_writer_failing_commits_nothing_of_its_load_and_names_the_region_and_family() {
    let dir = tempfile::tempdir().expect("temp dir");
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    let faults = faulty.faults();
    let db = Database::open_on(faulty, dir.path(), no_compactions()).expect("opens");
    let conn = EmbeddedConnection::new(db.clone());
    create(&conn, "t");
    let mut loader = db.bulk_loader(&name("t"), options(4)).expect("loader");
    for i in 0..2000 {
        loader.add(put(i, 1, "first")).expect("row added");
    }
    loader.commit().expect("the first load commits");
    let before = all_cells(&conn, "t");
    let files_before = store_files(&conn, "t");

    // The disk under one region's family `b` is full; every other lane writes on.
    let table_dir = dir.path().join("data/default/t");
    let region = std::fs::read_dir(&table_dir)
        .expect("table folder")
        .flatten()
        .find(|e| e.path().join("b").is_dir())
        .expect("a region folder")
        .file_name()
        .to_string_lossy()
        .into_owned();
    faults.fill_disk_under(&table_dir.join(&region).join("b"), 0);
    let mut loader = db.bulk_loader(&name("t"), options(4)).expect("loader");
    let refused = (0..2000)
        .map(|i| loader.add(put(i, 2, "second")))
        .find_map(Result::err);
    let at_commit = loader
        .commit()
        .expect_err("a failed writer fails the commit");
    let err = refused.unwrap_or(at_commit);
    faults.free_space();

    assert_eq!(err.kind, ErrorKind::Unavailable, "{err:?}");
    for part in [region.as_str(), "family 'b'", "No space left"] {
        assert!(err.message.contains(part), "{part} in: {}", err.message);
    }
    assert_eq!(
        all_cells(&conn, "t"),
        before,
        "no region took the second load"
    );
    assert_eq!(store_files(&conn, "t"), files_before);
    assert_eq!(staged_files(dir.path()), 0, "every staged file deleted");
}

#[test]
fn a_parallelism_of_zero_or_above_the_limit_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    create(&conn, "t");
    for parallelism in [0, PARALLELISM_MAX + 1] {
        let err = db
            .bulk_loader(&name("t"), options(parallelism))
            .expect_err("refused");
        assert_eq!(err.kind, ErrorKind::InvalidRequest);
        assert!(
            err.message
                .contains(&format!("parallelism must be 1 to {PARALLELISM_MAX}"))
                && err.message.contains(&format!("not {parallelism}")),
            "{}",
            err.message
        );
    }
    let mut loader = db.bulk_loader(&name("t"), options(1)).expect("one writer");
    loader.add(put(1, 1, "v")).expect("row");
    loader.commit().expect("commit");
    assert_eq!(all_cells(&conn, "t").len(), 3);
}
