//! Crash tests: a child process takes snapshots of a table it writes to and dies — at a
//! failpoint just before the manifest or just before the commit rename, or killed with
//! SIGKILL at a random moment. After each death the database reopens: no half snapshot is
//! listed, every snapshot the child saw taken is listed, each listed one clones into
//! exactly a prefix of the rows written (one region, one writer), and no row of the table
//! is lost.
//!
//! The test binary is its own child: with `BASALT_SNAPSHOT_KILL_CHILD` set it runs the
//! writer.

use crate::support;

use basalt_api::{SnapshotOptions, Table};
use basalt_db::DbConfig;
use basalt_types::{Durability, Put, Scan, TableName};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::*;

const CHILD: &str = "BASALT_SNAPSHOT_KILL_CHILD";

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn name() -> TableName {
    TableName::parse("written").expect("valid name")
}

fn key(i: u64) -> String {
    format!("row{i:08}")
}

/// The child: writes rows in order and snapshots every 50 rows, printing what it did,
/// until it dies.
fn child(dir: &Path) {
    let db = open(dir, config());
    if !db.admin.table_exists(&name()).expect("exists?") {
        db.admin
            .create_table(&descriptor("written", &["f"]), &Default::default())
            .expect("create");
    }
    let table = db.table(&name());
    let start = count(table.as_ref());
    let mut out = std::io::stdout();
    writeln!(out, "ready").expect("stdout");
    for i in start.. {
        table
            .put(
                &Put::new(key(i))
                    .add("f", "q", vec![b'x'; 256])
                    .durability(Durability::SyncWal),
            )
            .expect("put");
        writeln!(out, "ack {i}").expect("stdout");
        if i % 50 == 49 {
            let s = format!("s{i}");
            db.admin
                .snapshot(&name(), &s, &SnapshotOptions::default())
                .expect("snapshot");
            writeln!(out, "taken {s}").expect("stdout");
        }
        out.flush().expect("stdout");
    }
}

fn count(table: &dyn Table) -> u64 {
    table.scan(&Scan::new()).expect("scan").count() as u64
}

/// Runs the child until it dies by itself (a failpoint) or is killed after `kill_after`.
/// Returns the rows it acknowledged and the snapshots it saw taken.
fn run_child(dir: &Path, failpoint: Option<&str>, kill_after: Duration) -> (u64, Vec<String>) {
    let exe = std::env::current_exe().expect("test binary");
    let mut command = Command::new(exe);
    command
        .args([
            "--exact",
            "snapshot_kill9::child_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(failpoint) = failpoint {
        command.env("BASALT_FAILPOINT", failpoint);
    }
    let mut child = command.spawn().expect("spawn child");
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut acked = 0;
        let mut taken = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(i) = line.strip_prefix("ack ") {
                acked = i.parse::<u64>().expect("ack number") + 1;
            } else if let Some(s) = line.strip_prefix("taken ") {
                taken.push(s.to_string());
            }
        }
        (acked, taken)
    });
    if wait_child(&mut child, kill_after).is_some() {
        assert!(failpoint.is_some(), "the child stopped by itself");
    }
    reader.join().expect("reader")
}

/// Reopens: checks the snapshots and the rows.
fn verify(dir: &Path, acked: u64, taken: &[String]) {
    let db = open(dir, config());
    let table = db.table(&name());
    let rows = count(table.as_ref());
    assert!(rows >= acked, "{rows} rows, {acked} acknowledged");
    let listed: BTreeSet<String> = db
        .admin
        .list_snapshots(None)
        .expect("list")
        .into_iter()
        .map(|s| s.name)
        .collect();
    for s in taken {
        assert!(
            listed.contains(s),
            "snapshot {s} was taken but is not listed"
        );
    }
    for (n, s) in listed.iter().enumerate() {
        let clone = TableName::parse(&format!("check{n}")).expect("name");
        db.admin.clone_snapshot(s, &clone).expect("clone");
        let copy = db.table(&clone);
        let keys = scan_keys(copy.as_ref(), false).expect("scan clone");
        let expected: Vec<Vec<u8>> = (0..keys.len() as u64)
            .map(|i| key(i).into_bytes())
            .collect();
        assert_eq!(keys, expected, "snapshot {s} holds a prefix of the rows");
        let at: u64 = s[1..].parse().expect("snapshot number");
        assert!(keys.len() as u64 > at, "snapshot {s} holds row {at}");
        db.admin.disable_table(&clone).expect("disable clone");
        db.admin.delete_table(&clone).expect("drop clone");
    }
    db.db.close().expect("close");
}

#[test]
fn child_entry() {
    if let Ok(dir) = std::env::var(CHILD) {
        child(Path::new(&dir));
    }
}

#[test]
fn a_crash_before_the_manifest_or_the_commit_lists_no_half_snapshot() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    for failpoint in ["snapshot.before_manifest", "snapshot.before_commit"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (acked, taken) = run_child(dir.path(), Some(failpoint), Duration::from_secs(120));
        assert!(taken.is_empty(), "{failpoint}: {taken:?}");
        assert!(
            acked >= 50,
            "{failpoint}: the child died at its first snapshot"
        );
        verify(dir.path(), acked, &taken);
        // The name can be taken again: the leftover goes to the quarantine, not away.
        let db = open(dir.path(), config());
        db.admin
            .snapshot(&name(), "s49", &SnapshotOptions::default())
            .expect("snapshot again");
        let health = db.db.health().expect("health");
        assert_eq!(health.quarantined.len(), 1, "{failpoint}: {health:?}");
        assert!(
            health.quarantined[0].path.contains("snapshots/.tmp/s49"),
            "{failpoint}: {:?}",
            health.quarantined[0]
        );
        db.db.close().expect("close");
        drop(db);
        verify(dir.path(), acked, &["s49".to_string()]);
    }
}

#[test]
fn a_kill_at_a_random_moment_keeps_every_taken_snapshot_and_no_half_one() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let mut all_taken = Vec::new();
    let mut acked_total = 0;
    for cycle in 0..3u64 {
        let delay = Duration::from_millis(700 + cycle * 350);
        let (acked, taken) = run_child(dir.path(), None, delay);
        acked_total = acked_total.max(acked);
        all_taken.extend(taken);
        verify(dir.path(), acked_total, &all_taken);
    }
    assert!(!all_taken.is_empty(), "no snapshot was taken in three runs");
}
