//! `status 'detailed'` flags hot spots: sequential keys into a pre-split table make the
//! last region hot (monotonic keys); keys spread over the same table flag nothing.

use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_shell::{FixedClock, Shell, ShellOptions};
use basalt_types::{Put, TableName};
use std::sync::Arc;

fn shell(dir: &tempfile::TempDir) -> (Shell, Arc<EmbeddedConnection>) {
    let db = Database::open(dir.path(), DbConfig::default()).expect("database opens");
    let conn = Arc::new(EmbeddedConnection::new(db));
    let options = ShellOptions {
        clock: Arc::new(FixedClock),
        ..ShellOptions::default()
    };
    (Shell::new(conn.clone(), options), conn)
}

fn load(conn: &EmbeddedConnection, rows: impl Iterator<Item = String>) {
    let table = conn
        .table(&TableName::parse("hs").expect("valid"))
        .expect("table");
    for row in rows {
        let put = Put::new(row.into_bytes()).add(b"f", b"q", b"v");
        table.put(&put).expect("put");
    }
}

#[test]
fn sequential_keys_flag_the_last_region_as_monotonic() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, conn) = shell(&dir);
    sh.run_line("create 'hs', 'f', SPLITS => ['1', '2', '3']")
        .expect("create");
    load(&conn, (0..300u64).map(|i| format!("{}", 3_000_000 + i)));
    let out = sh.run_line("status 'detailed'").expect("status").text;
    assert!(
        out.contains("hot spots (writes since each region opened):"),
        "{out}"
    );
    assert!(
        out.contains("    hs [monotonic] hot region ")
            && out.contains("(start '3') takes 100% of writes"),
        "{out}"
    );
    assert!(
        out.contains("remedies: salting, hashing, reversing"),
        "{out}"
    );
}

#[test]
fn keys_spread_over_the_regions_flag_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sh, conn) = shell(&dir);
    sh.run_line("create 'hs', 'f', SPLITS => ['1', '2', '3']")
        .expect("create");
    load(&conn, (0..300u64).map(|i| format!("{}-{i:05}", i % 4)));
    let out = sh.run_line("status 'detailed'").expect("status").text;
    assert!(!out.contains("hot spots"), "{out}");
}
