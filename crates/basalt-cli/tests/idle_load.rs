//! A real `basalt standalone` holding 1,000 idle connections and 100 open scanners: its
//! memory stays within a budget, it keeps serving, and the idle scanners expire.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("VmRSS line");
    line.split_whitespace()
        .nth(1)
        .and_then(|kib| kib.parse().ok())
        .expect("VmRSS value")
}

#[test]
fn a_thousand_idle_connections_and_a_hundred_scanners_stay_within_budget_and_scanners_expire() {
    const LEASE_MS: u64 = 1000;
    const GROWTH_BUDGET_KIB: u64 = 64 * 1024;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("basalt.toml");
    std::fs::write(
        &config,
        format!("[server]\nscanner_lease_ms = {LEASE_MS}\n"),
    )
    .expect("config");
    let data = dir.path().join("data");
    let mut server =
        support::start_with(&data, &["--config", config.to_str().expect("utf-8 path")]);
    let pid = server.child.id();
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let name = TableName::parse("t").expect("valid");
    let family = FamilyDescriptor::new("f").expect("valid");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::None,
        )
        .expect("create");
    let table = conn.table(&name).expect("table");
    for i in 0..200 {
        table
            .put(&Put::new(format!("row{i:03}")).add("f", "q", vec![1u8; 100]))
            .expect("put");
    }
    let before = rss_kib(pid);

    let mut idle = Vec::with_capacity(1000);
    for _ in 0..1000 {
        let mut socket = TcpStream::connect(&server.addr).expect("connect");
        socket
            .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            .expect("preface");
        idle.push(socket);
    }
    let mut scanners = Vec::with_capacity(100);
    for _ in 0..100 {
        let mut scan = Scan::new();
        scan.caching = Some(1);
        let mut scanner = table.scan(&scan).expect("open scanner");
        scanner.next().expect("a row").expect("no error");
        scanners.push(scanner);
    }
    let after = rss_kib(pid);
    eprintln!("server RSS {before} KiB -> {after} KiB with 1000 idle connections and 100 scanners");
    assert!(
        after.saturating_sub(before) < GROWTH_BUDGET_KIB,
        "grew {} KiB",
        after - before
    );
    assert!(!table
        .get(&Get::new("row007"))
        .expect("still serving")
        .is_empty());

    // Nothing touches the scanners for longer than their lease: the server forgets them.
    std::thread::sleep(Duration::from_millis(LEASE_MS * 3));
    for scanner in &mut scanners {
        let err = scanner.next().expect("an answer").expect_err("expired");
        assert_eq!(err.short_name(), "UnknownScannerException", "{err}");
    }
    drop(idle);
    let _ = server.child.kill();
    let _ = server.child.wait();
}
