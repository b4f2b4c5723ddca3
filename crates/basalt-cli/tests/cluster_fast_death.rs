//! A region server killed outright is recovered at once, not when its lease expires
//! (`basalt_master::liveness`): the active master connects to every server's port, and
//! one that refuses twice in a row has no process behind it. The leases here last 60 s,
//! so regions serving again within 40 s of a kill -9 can only be the probe's doing (the
//! master's log names the refused port). A server paused by SIGSTOP — its kernel still
//! accepts connections — is not taken for dead and serves on once resumed; and with the
//! probe off, a second incarnation registering at a killed server's `host:port` proves the
//! first one gone (design §5.8 case 13).

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use std::time::Duration;
use support::cluster::{signal, Cluster};
use support::tables::{create, fill, get_retrying, regions, row, table_name};

const ROWS: u64 = 300;
/// Well under the 60 s leases: only an early recovery reads every row back in time.
const WITHIN: Duration = Duration::from_secs(40);

/// Every row of [`fill`] reads back, retrying while regions recover.
fn every_row_reads_back(conn: &RemoteConnection, name: &str) {
    let table = conn.table(&table_name(name)).expect("table");
    for i in 0..ROWS {
        let key = String::from_utf8(row(i).to_vec()).expect("hex row");
        let got = get_retrying(table.as_ref(), &key, WITHIN, |_| {});
        assert_eq!(
            got.value(b"f", b"q").map(|v| v.to_vec()),
            Some(format!("v{i}").into_bytes()),
            "{key}"
        );
    }
}

/// Lines of the master's log saying `server`'s process is gone.
fn declared_gone(cluster: &Cluster, server: &str) -> Vec<String> {
    let log = std::fs::read_to_string(&cluster.masters[0].log).unwrap_or_default();
    log.lines()
        .filter(|l| l.contains("process is gone") && l.contains(server))
        .map(str::to_string)
        .collect()
}

/// Kills the server holding the table's first region; its name and address.
fn kill_first_regions_server(
    cluster: &mut Cluster,
    conn: &RemoteConnection,
    name: &str,
) -> (String, String) {
    let victim = regions(conn, name)[0].server.clone();
    let index = cluster
        .servers
        .iter()
        .position(|s| s.name == victim)
        .expect("a server of the cluster");
    let mut dead = cluster.servers.remove(index);
    dead.child.kill().expect("kill -9");
    let _ = dead.child.wait();
    (victim, dead.addr)
}

#[test]
fn a_killed_servers_regions_serve_again_long_before_its_lease_expires() {
    let mut cluster = Cluster::start_with_args(1, 3, &["--lease-ttl", "60"]);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        create(&conn, "fast_death", 6);
        fill(&conn, "fast_death", ROWS);
        let held = regions(&conn, "fast_death");
        let victim = held[0].server.clone();
        let paused = held
            .iter()
            .map(|r| r.server.clone())
            .find(|s| *s != victim)
            .expect("a second server holds a region");

        // Paused for six probe intervals: accepted by its kernel, so not dead.
        let sleeper = cluster
            .servers
            .iter()
            .find(|s| s.name == paused)
            .expect("the paused server");
        signal(&sleeper.child, "STOP");
        std::thread::sleep(Duration::from_secs(3));
        signal(&sleeper.child, "CONT");

        let (killed, _) = kill_first_regions_server(&mut cluster, &conn, "fast_death");
        assert_eq!(killed, victim);
        every_row_reads_back(&conn, "fast_death");
        let gone = declared_gone(&cluster, &victim);
        assert!(
            gone.iter()
                .any(|l| l.contains("refused 2 connections in a row")),
            "the master names the refused port: {gone:?}"
        );
        assert!(
            declared_gone(&cluster, &paused).is_empty(),
            "a paused server is not dead"
        );
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("active");
        assert!(
            status.servers.iter().any(|s| s.name == paused),
            "the paused server serves on: {status:?}"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

#[test]
fn a_new_incarnation_at_a_killed_servers_address_ends_the_old_one_at_once() {
    let config = tempfile::NamedTempFile::new().expect("config file");
    std::fs::write(config.path(), "[master]\nprobe_interval_ms = 0\n").expect("written");
    let path = config.path().display().to_string();
    let mut cluster = Cluster::start_with_args(1, 2, &["--lease-ttl", "60", "--config", &path]);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        create(&conn, "incarnation", 4);
        fill(&conn, "incarnation", ROWS);
        let (victim, addr) = kill_first_regions_server(&mut cluster, &conn, "incarnation");
        let successor = cluster.start_server_at(&addr).name.clone();
        assert_ne!(successor, victim, "a new start code");
        every_row_reads_back(&conn, "incarnation");
        let gone = declared_gone(&cluster, &victim);
        assert!(
            gone.iter()
                .any(|l| l.contains("registered at the same address")),
            "the master names the new incarnation: {gone:?}"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
