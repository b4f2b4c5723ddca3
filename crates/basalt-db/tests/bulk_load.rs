//! Bulk loads into tables: routed to pre-split regions, invisible until the commit, read
//! back by gets and scans both ways, refused when unsorted, rolled at a size bound, and
//! durable across a restart and a kill -9 (while an uncommitted load leaves nothing).

use crate::basics;

use basalt_api::{ErrorKind, PreSplit};
use basalt_db::bulk_load::BulkLoadOptions;
use basalt_db::{Database, DbConfig};
use basalt_types::{Get, Put, Scan};
use basics::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn row(i: u32) -> String {
    format!("row{i:05}")
}

fn put(i: u32) -> Put {
    Put::new(row(i))
        .add("a", "x", format!("a{i}"))
        .add("b", "y", format!("b{i}"))
}

fn presplit(conn: &basalt_db::EmbeddedConnection) {
    admin(conn)
        .create_table(
            &descriptor("t", &["a", "b"]),
            &PreSplit::Keys(vec![row(300).into(), row(600).into()]),
        )
        .expect("create");
}

fn load(db: &std::sync::Arc<Database>, rows: std::ops::Range<u32>) {
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    for i in rows {
        loader.add(put(i)).expect("row added");
    }
    loader.commit().expect("commit");
}

/// Files in staging (`.tmp`) folders under the data folder.
pub fn staged_files(root: &Path) -> usize {
    fn walk(dir: &Path, inside_staging: bool, count: &mut usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, inside_staging || entry.file_name() == ".tmp", count);
            } else if inside_staging {
                *count += 1;
            }
        }
    }
    let mut count = 0;
    walk(&root.join("data"), false, &mut count);
    count
}

#[test]
fn a_presplit_table_is_loaded_region_by_region_and_reads_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    presplit(&conn);
    let t = table(&conn, "t");
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    let progress = loader.progress();
    for i in 0..1000 {
        loader.add(put(i)).expect("row added");
    }
    assert!(
        scan_rows(t.as_ref(), &Scan::new()).is_empty(),
        "not before the commit"
    );
    let counts = progress.counts();
    assert_eq!((counts.rows, counts.cells), (1000, 2000));
    let counts = loader.commit().expect("commit");
    assert_eq!((counts.files, counts.regions_committed), (6, 3));
    assert_eq!(progress.counts(), counts);

    let got = t.get(&Get::new(row(450))).expect("get");
    assert_eq!(got.value(b"a", b"x"), Some(&b"a450"[..]));
    assert_eq!(got.value(b"b", b"y"), Some(&b"b450"[..]));
    let forward = row_keys(&scan_rows(t.as_ref(), &Scan::new()));
    assert_eq!(forward.len(), 1000);
    assert_eq!(
        (forward[0].as_str(), forward[999].as_str()),
        ("row00000", "row00999")
    );
    let mut reversed = row_keys(&scan_rows(t.as_ref(), &Scan::new().reversed(true)));
    reversed.reverse();
    assert_eq!(reversed, forward);
    let regions = admin(&conn).list_regions(&name("t")).expect("regions");
    assert_eq!(
        regions.iter().map(|r| r.store_files).collect::<Vec<_>>(),
        [2, 2, 2]
    );
    assert!(
        regions.iter().all(|r| r.memstore_bytes == 0),
        "no memstore used"
    );
    assert_eq!(staged_files(dir.path()), 0);
}

#[test]
fn unsorted_or_bad_rows_are_refused_and_the_load_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    presplit(&conn);
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    loader.add(put(5)).expect("row 5");
    let err = loader.add(put(4)).expect_err("row 4 after row 5");
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    assert!(err.message.contains("not sorted"), "{}", err.message);
    assert!(loader.add(put(5)).is_err(), "the same row twice");
    let twice = Put::new(row(6))
        .add_at("a", "x", 1, "1")
        .add_at("a", "x", 1, "2");
    let err = loader.add(twice).expect_err("a cell twice");
    assert!(err.message.contains("twice"), "{}", err.message);
    let err = loader
        .add(Put::new(row(7)).add("nope", "x", "1"))
        .expect_err("unknown family");
    assert!(err.exception.contains("NoSuchColumnFamily"), "{err:?}");
    // Cells of a row in any order: the loader sorts them.
    loader
        .add(
            Put::new(row(8))
                .add("b", "y", "b8")
                .add("a", "z", "z8")
                .add("a", "x", "a8"),
        )
        .expect("row 8");
    loader.commit().expect("commit");
    let t = table(&conn, "t");
    assert_eq!(
        row_keys(&scan_rows(t.as_ref(), &Scan::new())),
        [row(5), row(8)]
    );
    assert_eq!(t.get(&Get::new(row(8))).expect("get").cells.len(), 3);
}

#[test]
fn files_roll_at_the_size_bound_and_their_count_is_limited() {
    let dir = tempfile::tempdir().expect("temp dir");
    // No compaction: its output is staged in the same `.tmp` folders this test counts, and
    // the first load's four files would start one while the second load runs.
    let mut config = DbConfig::default();
    config.storage.compaction_min_files = 1000;
    let db = Database::open(dir.path(), config).expect("database opens");
    let conn = basalt_db::EmbeddedConnection::new(db.clone());
    admin(&conn)
        .create_table(&descriptor("t", &["a"]), &PreSplit::None)
        .expect("create");
    let options = BulkLoadOptions {
        file_size_max_bytes: 16 * 1024,
        files_per_region_family_max: 4,
        ..BulkLoadOptions::default()
    };
    let big = |i: u32| Put::new(row(i)).add("a", "x", vec![b'v'; 1000]);
    let mut loader = db.bulk_loader(&name("t"), options.clone()).expect("loader");
    for i in 0..50 {
        loader.add(big(i)).expect("row");
    }
    let counts = loader.commit().expect("commit");
    assert_eq!(
        counts.files, 4,
        "16 rows of about 1 KB per 16 KiB file, rolled between rows"
    );
    let t = table(&conn, "t");
    assert_eq!(scan_rows(t.as_ref(), &Scan::new()).len(), 50);

    let mut loader = db.bulk_loader(&name("t"), options).expect("loader");
    // The files are written by writer threads: the refusal comes with a later row or
    // with the commit, and either way the load cannot commit.
    let refused = (100..200).map(|i| loader.add(big(i))).find_map(Result::err);
    let at_commit = loader
        .commit()
        .expect_err("a fifth file is refused: the load cannot commit");
    let err = refused.unwrap_or(at_commit);
    assert!(
        err.message.contains("perRegion.perFamily"),
        "{}",
        err.message
    );
    assert_eq!(scan_rows(t.as_ref(), &Scan::new()).len(), 50);
    assert_eq!(staged_files(dir.path()), 0);
}

#[test]
fn a_dropped_loader_leaves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    presplit(&conn);
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    for i in 0..700 {
        loader.add(put(i)).expect("row");
    }
    // Writer threads finish the first regions' files: wait until one has.
    let progress = loader.progress();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while progress.counts().files == 0 {
        assert!(std::time::Instant::now() < deadline, "no file finished");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(staged_files(dir.path()) > 0);
    drop(loader);
    assert_eq!(staged_files(dir.path()), 0);
    assert!(scan_rows(table(&conn, "t").as_ref(), &Scan::new()).is_empty());
}

#[test]
fn a_region_split_during_the_load_fails_the_commit_with_nothing_committed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    presplit(&conn);
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    for i in 0..500 {
        loader.add(put(i)).expect("row");
    }
    admin(&conn)
        .split(&name("t"), Some(row(100).as_bytes()))
        .expect("split");
    for i in 500..900 {
        loader.add(put(i)).expect("row");
    }
    let err = loader.commit().expect_err("a region split meanwhile");
    assert_eq!(err.kind, ErrorKind::RetryElsewhere);
    assert!(
        err.message.contains("nothing was committed"),
        "{}",
        err.message
    );
    let t = table(&conn, "t");
    assert!(scan_rows(t.as_ref(), &Scan::new()).is_empty());
    assert_eq!(staged_files(dir.path()), 0);
    load(&db, 0..900);
    assert_eq!(scan_rows(t.as_ref(), &Scan::new()).len(), 900);
}

#[test]
fn loads_into_disabled_or_system_tables_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    presplit(&conn);
    let meta = db.bulk_loader(&name("hbase:meta"), BulkLoadOptions::default());
    assert!(meta.is_err());
    admin(&conn).disable_table(&name("t")).expect("disable");
    let err = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect_err("disabled");
    assert!(err.exception.contains("TableNotEnabled"), "{err:?}");
}

#[test]
fn loaded_cells_order_between_earlier_and_later_puts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    presplit(&conn);
    let t = table(&conn, "t");
    t.put(&Put::new(row(1)).add_at("a", "x", 5, "before"))
        .expect("put");
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    loader
        .add(Put::new(row(1)).add_at("a", "x", 5, "loaded"))
        .expect("row");
    loader
        .add(Put::new(row(2)).add_at("a", "x", 5, "loaded"))
        .expect("row");
    loader.commit().expect("commit");
    let value = |r: u32| {
        t.get(&Get::new(row(r)))
            .expect("get")
            .value(b"a", b"x")
            .map(|v| String::from_utf8_lossy(v).into_owned())
    };
    assert_eq!(value(1).as_deref(), Some("loaded"));
    t.put(&Put::new(row(2)).add_at("a", "x", 5, "after"))
        .expect("put");
    assert_eq!(value(2).as_deref(), Some("after"));
}

#[test]
fn committed_data_survives_a_clean_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let (db, conn) = open(dir.path());
        presplit(&conn);
        load(&db, 0..900);
        db.close().expect("close");
    }
    let (_db, conn) = open(dir.path());
    let t = table(&conn, "t");
    assert_eq!(scan_rows(t.as_ref(), &Scan::new()).len(), 900);
    admin(&conn).compact(&name("t"), true).expect("compact");
    assert_eq!(scan_rows(t.as_ref(), &Scan::new()).len(), 900);
}

/// The child: commits rows 0..900, starts a second load of 900..1000 that it never
/// commits, says so, and waits to be killed.
#[test]
fn kill_child() {
    let Ok(dir) = std::env::var("BASALT_BULK_KILL_CHILD") else {
        return;
    };
    let db = Database::open(Path::new(&dir), DbConfig::default()).expect("database opens");
    let conn = basalt_db::EmbeddedConnection::new(db.clone());
    presplit(&conn);
    load(&db, 0..900);
    let mut loader = db
        .bulk_loader(&name("t"), BulkLoadOptions::default())
        .expect("loader");
    for i in 900..1000 {
        loader.add(put(i)).expect("row");
    }
    println!("committed");
    std::thread::sleep(Duration::from_secs(600));
}

#[test]
fn a_kill_keeps_the_committed_load_and_drops_the_uncommitted_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test binary");
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "bulk_load::kill_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("BASALT_BULK_KILL_CHILD", dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("child starts");
    let stdout = child.stdout.take().expect("piped");
    let committed = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|line| line.contains("committed"));
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert!(committed, "the child committed its first load");
    let (_db, conn) = open(dir.path());
    let t = table(&conn, "t");
    let rows = row_keys(&scan_rows(t.as_ref(), &Scan::new()));
    assert_eq!(rows.len(), 900);
    assert_eq!(rows.last().map(String::as_str), Some("row00899"));
    assert_eq!(staged_files(dir.path()), 0, "staged files removed at open");
}
