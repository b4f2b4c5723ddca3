//! Two masters that each think they are active (cluster-design.md §5.8, case 8), with real
//! processes: the active master is paused (SIGSTOP) past its lease, the standby takes over
//! and changes the catalog, then the old one wakes with a create-table request waiting in
//! its socket.
//!
//! - The old master's catalog write does not land: its transaction fails on the leader-key
//!   guard (its election key went with its lease), the client gets an error (not a
//!   success), and the catalog in etcd is as the new master left it.
//! - The old master stands down: its lease is gone, so it stops (a failure exit naming
//!   the lost lease). Started again at its address it stands by, names the new master as
//!   the active one, and when that one stops it takes over with the new master's catalog.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{FamilyDescriptor, TableDescriptor, TableName};
use bytes::Bytes;
use std::process::Command;
use std::time::{Duration, Instant};
use support::cluster::{signal, terminate, Cluster};

fn descriptor(name: &str) -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse(name).expect("name"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    )
}

/// Short timeouts and no retries: a client that reports the first answer it gets.
fn impatient() -> ClientConfig {
    ClientConfig {
        retries_max: 0,
        connect_timeout: Duration::from_secs(1),
        call_timeout: Duration::from_secs(30),
        ..ClientConfig::default()
    }
}

/// The active master named by the master at `addr`, if it answers.
fn active_named_by(addr: &str) -> Option<String> {
    let config = ClientConfig {
        call_timeout: Duration::from_secs(2),
        ..impatient()
    };
    let conn = RemoteConnection::connect_with(addr, config).ok()?;
    Some(conn.admin().cluster_status().ok()??.active_master)
}

/// The catalog's table keys in etcd with their last-modified revisions.
fn catalog(cluster: &Cluster) -> Vec<(String, i64)> {
    let mut kvs = Vec::new();
    for prefix in [
        "/basalt/tables/",
        "/basalt/table-state/",
        "/basalt/regions/",
    ] {
        let out = Command::new("etcdctl")
            .env("ETCDCTL_API", "3")
            .args([
                &format!("--endpoints={}", cluster.etcd.endpoints().join(",")),
                "--command-timeout=2s",
                "get",
                "--prefix",
                prefix,
                "-w",
                "json",
            ])
            .output()
            .expect("run etcdctl");
        assert!(out.status.success(), "etcdctl: {out:?}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        for kv in json["kvs"].as_array().into_iter().flatten() {
            // Keys are base64 in etcdctl's JSON: the pair identifies a write all the same.
            let key = kv["key"].as_str().unwrap_or_default().to_string();
            kvs.push((key, kv["mod_revision"].as_i64().unwrap_or_default()));
        }
    }
    kvs
}

/// Waits (up to `limit`) for `done`.
fn wait_for(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_paused_master_woken_after_a_takeover_commits_nothing_and_stands_down() {
    let mut cluster = Cluster::start(2, 1);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let both = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let old_addr = both
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster")
            .active_master;
        let old = cluster
            .masters
            .iter()
            .position(|m| m.addr == old_addr)
            .expect("the active master is one of ours");
        let new_addr = cluster.masters[1 - old].addr.clone();
        both.admin()
            .create_table(&descriptor("before"), &PreSplit::None)
            .expect("create before");
        // A client of the old master alone, connected while it is active.
        let stale = RemoteConnection::connect_with(&old_addr, impatient()).expect("connect");

        signal(&cluster.masters[old].child, "STOP");
        let paused_at = Instant::now();
        wait_for(Duration::from_secs(30), "the standby takes over", || {
            active_named_by(&new_addr).as_deref() == Some(new_addr.as_str())
        });
        eprintln!(
            "the standby took over {:?} after the pause",
            paused_at.elapsed()
        );
        let fresh = RemoteConnection::connect(&new_addr).expect("connect");
        fresh
            .admin()
            .create_table(&descriptor("during"), &PreSplit::None)
            .expect("DDL through the new master");
        let before = catalog(&cluster);

        // A create waits in the old master's socket; then it wakes.
        let answer = std::thread::scope(|scope| {
            let request = scope.spawn(|| {
                stale
                    .admin()
                    .create_table(&descriptor("stale"), &PreSplit::None)
            });
            std::thread::sleep(Duration::from_millis(500));
            signal(&cluster.masters[old].child, "CONT");
            request.join().expect("the request")
        });
        eprintln!("the woken master answered: {answer:?}");
        assert!(answer.is_err(), "the old master acknowledged a write");
        let stale_name = TableName::parse("stale").expect("name");
        assert!(
            !fresh.admin().table_exists(&stale_name).expect("exists"),
            "the old master's table is in the catalog"
        );
        assert_eq!(
            catalog(&cluster),
            before,
            "the catalog changed after the old master woke"
        );

        // Its lease is gone: it stops, naming why.
        let mut stopped = None;
        wait_for(Duration::from_secs(30), "the old master stops", || {
            stopped = cluster.masters[old].child.try_wait().expect("wait");
            stopped.is_some()
        });
        let status = stopped.expect("stopped");
        assert!(!status.success(), "it stops as a failure: {status:?}");
        let log = std::fs::read_to_string(&cluster.masters[old].log).expect("log");
        for line in log
            .lines()
            .filter(|l| l.contains("standing down") || l.contains("lease"))
        {
            eprintln!("old master: {line}");
        }
        assert!(
            log.contains("standing down") && log.contains("the master's lease was lost"),
            "{log}"
        );
        assert_eq!(
            catalog(&cluster),
            before,
            "the catalog changed while the old master stopped"
        );

        // Started again at its address, it follows the new master …
        let stopped = cluster.masters.remove(old);
        cluster.restart_master_at(&stopped.addr);
        assert_eq!(
            active_named_by(&old_addr).as_deref(),
            Some(new_addr.as_str()),
            "the restarted master names the new one as active"
        );
        // … and takes over from it with its catalog.
        let new = cluster
            .masters
            .iter()
            .position(|m| m.addr == new_addr)
            .expect("the new master");
        let mut gone = cluster.masters.remove(new);
        assert!(terminate(&mut gone.child).success(), "the new master stops");
        let again = RemoteConnection::connect(&old_addr).expect("connect");
        let mut tables: Vec<String> = again
            .admin()
            .list_tables(None)
            .expect("list")
            .iter()
            .map(|t| t.to_string())
            .collect();
        tables.sort();
        assert_eq!(tables, vec!["before".to_string(), "during".to_string()]);
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
