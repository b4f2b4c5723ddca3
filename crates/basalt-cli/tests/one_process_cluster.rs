//! A whole cluster in one process: `basalt master --coordinator local:///DIR
//! --with-regionserver` runs the master, a region server and a durable in-process
//! coordinator over a local folder — the shape standalone is converging to. Driven as a
//! user would: the real binary, the Rust client, SIGTERM, a restart.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use support::cluster::terminate;

/// Starts the one-process cluster on `dir`; the process and the master's address, once
/// both the master and its region server said they serve.
fn start(dir: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["master", "--with-regionserver", "--coordinator"])
        .arg(urls(dir).0)
        .arg("--store")
        .arg(urls(dir).1)
        .args(["--port", "0", "--regionserver-port", "0", "--web-port", "0"])
        .args(["--lease-ttl", "5", "--log", "warn"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn basalt master");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut master = None;
    let mut server = false;
    while master.is_none() || !server {
        let line = lines
            .next()
            .expect("the process printed its ready lines")
            .expect("utf8");
        if let Some(addr) = line.strip_prefix("basalt master listening on ") {
            master = Some(addr.to_string());
        }
        server |= line.starts_with("basalt regionserver ");
    }
    (child, master.expect("master address"))
}

fn name() -> TableName {
    TableName::parse("onebox").expect("name")
}

fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{i:04}"))
}

/// The coordinator and store URLs of a one-process cluster kept in `dir`.
fn urls(dir: &Path) -> (String, String) {
    (
        format!("local://{}", dir.join("coordinator").display()),
        format!("file://{}", dir.join("store").display()),
    )
}

/// The test table, pre-split in 3 regions.
fn create(admin: &dyn basalt_api::Admin) {
    let descriptor = TableDescriptor::new(
        name(),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    );
    admin
        .create_table(&descriptor, &PreSplit::Keys(vec![row(100), row(200)]))
        .expect("create");
}

/// Rows `range`, each `v<i>`.
fn puts(range: std::ops::Range<u32>) -> Vec<Put> {
    range
        .map(|i| {
            Put::new(row(i)).add(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                Bytes::from(format!("v{i}")),
            )
        })
        .collect()
}

#[test]
fn a_cluster_in_one_process_serves_and_keeps_its_catalog_and_rows_across_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let (mut process, master) = start(dir.path());
    let conn = RemoteConnection::connect(&master).expect("connect");
    create(conn.admin().as_ref());
    let table = conn.table(&name()).expect("table");
    table.put_many(&puts(0..300)).expect("puts");
    let regions = conn.admin().list_regions(&name()).expect("regions");
    assert_eq!(regions.len(), 3);
    assert!(regions.iter().all(|r| !r.server.is_empty()), "{regions:?}");
    drop(table);
    drop(conn);

    // A second process on the same folder is refused: the coordinator is locked.
    let second = support::basalt(
        &[
            "master",
            "--with-regionserver",
            "--coordinator",
            &urls(dir.path()).0,
            "--store",
            &urls(dir.path()).1,
            "--port",
            "0",
            "--regionserver-port",
            "0",
            "--web-port",
            "0",
        ],
        "",
    );
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("coordinator"), "{said}");

    assert!(terminate(&mut process).success(), "a clean stop");

    // Restarted: the catalog comes from the coordinator's folder, the rows from the store.
    let (mut process, master) = start(dir.path());
    let conn = RemoteConnection::connect(&master).expect("connect");
    let table = conn.table(&name()).expect("table");
    assert_eq!(
        table
            .get(&Get::new(row(150)))
            .expect("get")
            .value_bytes(b"f", b"q"),
        Some(Bytes::from_static(b"v150"))
    );
    let rows = table.scan(&Scan::new()).expect("scan").count();
    assert_eq!(rows, 300);
    assert_eq!(
        conn.admin().list_regions(&name()).expect("regions").len(),
        3
    );
    drop(table);
    drop(conn);
    assert!(terminate(&mut process).success(), "a clean stop");
}

#[test]
fn a_local_coordinator_without_a_region_server_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let (local, store) = urls(dir.path());
    let master = support::basalt(
        &[
            "master",
            "--coordinator",
            &local,
            "--store",
            &store,
            "--port",
            "0",
            "--web-port",
            "0",
        ],
        "",
    );
    assert!(!master.status.success());
    let said = String::from_utf8_lossy(&master.stderr);
    assert!(said.contains("--with-regionserver"), "{said}");
    let server = support::basalt(
        &[
            "regionserver",
            "--coordinator",
            &local,
            "--store",
            &store,
            "--port",
            "0",
        ],
        "",
    );
    assert!(!server.status.success());
    let said = String::from_utf8_lossy(&server.stderr);
    assert!(said.contains("local coordinator"), "{said}");
}

#[test]
fn a_standalone_folder_migrates_into_a_cluster_in_one_process() {
    let folder = tempfile::tempdir().expect("standalone folder");
    {
        let db =
            basalt_db::Database::open(folder.path(), basalt_db::DbConfig::default()).expect("open");
        let conn = basalt_db::EmbeddedConnection::new(db.clone());
        create(conn.admin().as_ref());
        let table = conn.table(&name()).expect("table");
        table.put_many(&puts(0..150)).expect("puts");
        conn.admin().flush(&name()).expect("flush");
        table
            .put_many(&puts(150..300))
            .expect("more puts, in the log only");
        // Not closed, as after a crash: migrate replays the log first.
    }
    let dir = tempfile::tempdir().expect("cluster folder");
    let migrated = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["migrate", "--data-dir"])
        .arg(folder.path())
        .arg("--coordinator")
        .arg(format!(
            "local://{}",
            dir.path().join("coordinator").display()
        ))
        .arg("--store")
        .arg(urls(dir.path()).1)
        .args(["--log", "warn"])
        .output()
        .expect("run migrate");
    let printed = String::from_utf8_lossy(&migrated.stdout);
    assert!(
        migrated.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    assert!(
        printed.contains("migrated 1 tables (3 regions"),
        "{printed}"
    );

    let (mut process, master) = start(dir.path());
    let conn = RemoteConnection::connect(&master).expect("connect");
    let table = conn.table(&name()).expect("the migrated table");
    assert_eq!(table.scan(&Scan::new()).expect("scan").count(), 300);
    assert_eq!(
        table
            .get(&Get::new(row(299)))
            .expect("get")
            .value_bytes(b"f", b"q"),
        Some(Bytes::from_static(b"v299"))
    );
    drop(table);
    drop(conn);

    // While it runs, its coordinator is locked: a second migration is refused.
    let again = support::basalt(
        &[
            "migrate",
            "--data-dir",
            &folder.path().display().to_string(),
            "--coordinator",
            &urls(dir.path()).0,
            "--store",
            &urls(dir.path()).1,
        ],
        "",
    );
    assert!(!again.status.success());
    assert!(terminate(&mut process).success(), "a clean stop");
}

/// Puts rows `range` as `v<i>`.
fn write(master: &str, range: std::ops::Range<u32>) {
    let conn = RemoteConnection::connect(master).expect("connect");
    let table = conn.table(&name()).expect("table");
    table.put_many(&puts(range)).expect("puts acknowledged");
}

/// Every row's value, in order.
fn read_all(master: &str) -> Vec<(Bytes, Bytes)> {
    let conn = RemoteConnection::connect(master).expect("connect");
    let table = conn.table(&name()).expect("table");
    table
        .scan(&Scan::new())
        .expect("scan")
        .map(|r| {
            let r = r.expect("row");
            let value = r.value_bytes(b"f", b"q").expect("value");
            (r.row_bytes().expect("row key"), value)
        })
        .collect()
}

#[test]
fn after_a_kill_9_the_next_start_replays_the_dead_incarnations_logs() {
    let dir = tempfile::tempdir().expect("dir");
    let (mut process, master) = start(dir.path());
    let conn = RemoteConnection::connect(&master).expect("connect");
    create(conn.admin().as_ref());
    drop(conn);
    write(&master, 0..300);
    process.kill().expect("kill -9");
    process.wait().expect("reaped");

    // The second incarnation reads the first's log: every acknowledged row is back.
    let (mut process, master) = start(dir.path());
    let rows = read_all(&master);
    assert_eq!(rows.len(), 300);
    write(&master, 300..400);
    process.kill().expect("kill -9 again");
    process.wait().expect("reaped");

    // The third reads both earlier logs (reading a log twice changes nothing).
    let (mut process, master) = start(dir.path());
    let rows = read_all(&master);
    let expected: Vec<(Bytes, Bytes)> = (0..400)
        .map(|i| (row(i), Bytes::from(format!("v{i}"))))
        .collect();
    assert_eq!(rows, expected);
    assert!(terminate(&mut process).success(), "a clean stop");
}
