//! Master failover and set-up refusals, with real processes.
//!
//! - The active master stops (SIGTERM: it resigns); a standby takes over, and a client that
//!   was given both addresses carries on: DDL goes to the new master, data never stopped.
//! - What goes wrong at set-up gets a clear answer: etcd unreachable (named, retried, given
//!   up on), a store that is not a folder or not writable, a non-loopback address without
//!   `--insecure`, a region server whose clock is too far from the master's.
//! - A region server killed with SIGKILL: once its lease expires its regions reopen on the
//!   live servers, each replaying its edits from the dead server's log and flushing them
//!   first — every acknowledged write reads back, and again after the next server dies;
//!   each dead log moves to `oldWALs/` once every region it held reopened.
//! - A region server killed and started again at once on the same host and port, before
//!   the old lease expired: a new incarnation (another startcode) joins at once, the old
//!   one is dead when its lease expires, and its regions reopen with every write.
//! - A region server paused (SIGSTOP) past its lease: its regions reopen elsewhere; when
//!   it wakes with requests waiting in its sockets it answers none of them (its lease's
//!   deadline passed), the clients find the new server, and every acknowledged write
//!   reads back. It then learns its lease is gone and exits.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::cluster::{signal, terminate, Cluster};

fn descriptor(name: &str) -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse(name).expect("name"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    )
}

#[test]
fn a_standby_master_takes_over_and_clients_carry_on() {
    let mut cluster = Cluster::start(2, 2);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        conn.admin()
            .create_table(
                &descriptor("before"),
                &PreSplit::Keys(vec![Bytes::from_static(b"m")]),
            )
            .expect("create");
        let table = conn
            .table(&TableName::parse("before").expect("name"))
            .expect("table");
        let put = |row: &str| {
            Put::new(Bytes::copy_from_slice(row.as_bytes())).add(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                Bytes::copy_from_slice(row.as_bytes()),
            )
        };
        table.put(&put("a")).expect("put");
        // Whichever master is active stops; the other is then the only one left.
        let stopped_at = Instant::now();
        let mut active = cluster.masters.remove(0);
        assert!(
            terminate(&mut active.child).success(),
            "the master stops cleanly"
        );
        table
            .put(&put("z"))
            .expect("data calls go on without the master");
        conn.admin()
            .create_table(&descriptor("after"), &PreSplit::None)
            .expect("DDL reaches the new active master");
        let took = stopped_at.elapsed();
        assert!(took < Duration::from_secs(30), "failover took {took:?}");
        let got = table.get(&Get::new(Bytes::from_static(b"a"))).expect("get");
        assert_eq!(got.value(b"f", b"q"), Some(&b"a"[..]));
        let listed = conn.admin().list_tables(None).expect("list");
        assert_eq!(listed.len(), 2, "{listed:?}");
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

/// Runs `basalt args…` to its end; its exit status and stderr.
fn run_to_end(args: &[&str], env: &[(&str, &str)]) -> (std::process::ExitStatus, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_basalt"));
    command
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("run basalt");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn set_up_mistakes_get_clear_answers() {
    let store = tempfile::tempdir().expect("dir");
    let store_url = format!("file://{}", store.path().display());
    // etcd unreachable: named, retried, given up on.
    let started = Instant::now();
    let (status, err) = run_to_end(
        &[
            "master",
            "--coordinator",
            "etcd://127.0.0.1:1",
            "--store",
            &store_url,
            "--coordinator-timeout",
            "2",
            "--port",
            "0",
        ],
        &[],
    );
    assert!(!status.success());
    assert!(
        err.contains("127.0.0.1:1") && err.contains("did not answer"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "gave up in time"
    );
    // A store URL that is not a folder URL, and one that cannot be written.
    let (status, err) = run_to_end(
        &[
            "regionserver",
            "--coordinator",
            "etcd://127.0.0.1:1",
            "--store",
            "ftp://x",
            "--port",
            "0",
        ],
        &[],
    );
    assert!(!status.success() && err.contains("ftp://x"), "{err}");
    let (status, err) = run_to_end(
        &[
            "regionserver",
            "--coordinator",
            "etcd://127.0.0.1:1",
            "--store",
            "file:///proc/basalt-store",
            "--port",
            "0",
        ],
        &[],
    );
    assert!(
        !status.success() && err.contains("/proc/basalt-store"),
        "{err}"
    );
    // A non-loopback bind without --insecure.
    let (status, err) = run_to_end(
        &[
            "master",
            "--coordinator",
            "etcd://127.0.0.1:1",
            "--store",
            &store_url,
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
        ],
        &[],
    );
    assert!(!status.success() && err.contains("--insecure"), "{err}");

    // A region server whose clock is 60 s off the master's is refused, naming the skew.
    let mut cluster = Cluster::start(1, 0);
    let (status, err) = run_to_end(
        &[
            "regionserver",
            "--coordinator",
            &cluster.coordinator(),
            "--store",
            &cluster.store_url(),
            "--bind",
            "127.0.0.2",
            "--port",
            "0",
            "--web-port",
            "0",
        ],
        &[("BASALT_TEST_CLOCK_OFFSET_MS", "60000")],
    );
    assert!(!status.success(), "{err}");
    assert!(
        err.contains("ClockOutOfSyncException") && err.contains("max allowed of 30000ms"),
        "{err}"
    );
    // An incompatible protocol version is refused with both versions named.
    let (status, err) = run_to_end(
        &[
            "regionserver",
            "--coordinator",
            &cluster.coordinator(),
            "--store",
            &cluster.store_url(),
            "--bind",
            "127.0.0.2",
            "--port",
            "0",
            "--web-port",
            "0",
        ],
        &[("BASALT_TEST_PROTOCOL", "99")],
    );
    assert!(!status.success(), "{err}");
    assert!(
        err.contains("protocol 99") && err.contains("speaks 1"),
        "{err}"
    );
    // And a normal one joins.
    cluster.start_server("127.0.0.2");
}

/// A put of `row` → `value` in family `f`.
fn put(row: &str, value: &str) -> Put {
    Put::new(Bytes::copy_from_slice(row.as_bytes())).add(
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        Bytes::copy_from_slice(value.as_bytes()),
    )
}

/// Every row of `rows` reads back `value(row)`, waiting (up to 30 s) for regions that are
/// being recovered.
fn read_back(table: &dyn basalt_api::Table, rows: &[String], value: impl Fn(&str) -> String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    for row in rows {
        let got = loop {
            match table.get(&Get::new(Bytes::copy_from_slice(row.as_bytes()))) {
                Ok(got) => break got,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => panic!("row {row} unreadable after 30 s: {e}"),
            }
        };
        assert_eq!(
            got.value(b"f", b"q")
                .map(|v| String::from_utf8_lossy(v).into_owned()),
            Some(value(row)),
            "row {row}"
        );
    }
}

/// The index in `cluster.servers` of the server named `name`.
fn server_index(cluster: &Cluster, name: &str) -> usize {
    cluster
        .servers
        .iter()
        .position(|s| s.name == name)
        .expect("a server of the cluster")
}

#[test]
fn a_killed_region_servers_regions_reopen_elsewhere_with_every_acknowledged_write() {
    let mut cluster = Cluster::start(1, 2);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        let name = TableName::parse("victim").expect("name");
        conn.admin()
            .create_table(
                &descriptor("victim"),
                &PreSplit::Keys(vec![Bytes::from_static(b"m")]),
            )
            .expect("create");
        let regions = conn.admin().list_regions(&name).expect("regions");
        assert_eq!(regions.len(), 2);
        assert_ne!(
            regions[0].server, regions[1].server,
            "one region per server"
        );
        let table = conn.table(&name).expect("table");
        // Acknowledged, never flushed: on both sides of the split, only in the logs.
        let rows: Vec<String> = (0..200)
            .map(|i| match i % 2 {
                0 => format!("a{i:03}"),
                _ => format!("z{i:03}"),
            })
            .collect();
        for row in &rows {
            table.put(&put(row, &format!("first-{row}"))).expect("put");
        }
        // kill -9 the server holding the first region: its edits are only in its log.
        let first = regions[0].server.clone();
        let mut dead = cluster.servers.remove(server_index(&cluster, &first));
        let killed_at = Instant::now();
        dead.child.kill().expect("kill -9");
        let _ = dead.child.wait();
        read_back(table.as_ref(), &rows, |row| format!("first-{row}"));
        let recovered_in = killed_at.elapsed();
        let after = conn.admin().list_regions(&name).expect("regions");
        assert!(
            after
                .iter()
                .all(|r| r.server == regions[1].server && r.state == basalt_api::RegionState::Open),
            "both regions open on the survivor: {after:?}"
        );
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        assert_eq!(status.dead_servers, vec![first.clone()]);
        assert!(
            conn.admin()
                .cluster_health()
                .expect("health")
                .failed_regions
                .is_empty(),
            "nothing is left failed"
        );
        eprintln!("the killed server's region served again after {recovered_in:?}");
        // Every region it held reopened with its edits flushed: its log is archived.
        let store = cluster.store.path().to_path_buf();
        // (The master moves it right after committing the last open: give it a moment.)
        let archived = |server: &str| {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let moved = !store.join("wal").join(server).exists()
                    && store.join("oldWALs").join(server).is_dir();
                if moved || Instant::now() > deadline {
                    return moved;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        };
        assert!(archived(&first), "the first server's log moved to oldWALs/");
        // It was sealed before any region replayed it: the record names its segment.
        let record = std::fs::read_to_string(store.join("oldWALs").join(&first).join("sealed"))
            .expect("the dead server's log carries its seal record");
        assert!(
            record
                .lines()
                .any(|l| l.starts_with("wal-") && l.ends_with(|c: char| c.is_ascii_digit())),
            "{record:?}"
        );
        // More writes on the survivor, then it dies too, beside a fresh server: the first
        // server's edits were flushed when they were recovered (its log is not read again),
        // the later ones come back from the survivor's own log.
        for row in rows.iter().step_by(3) {
            table.put(&put(row, &format!("second-{row}"))).expect("put");
        }
        let fresh = cluster.start_server("127.0.0.4").name.clone();
        let second = regions[1].server.clone();
        let mut dead = cluster.servers.remove(server_index(&cluster, &second));
        dead.child.kill().expect("kill -9");
        let _ = dead.child.wait();
        let rewritten: std::collections::BTreeSet<&String> = rows.iter().step_by(3).collect();
        read_back(table.as_ref(), &rows, |row| {
            match rewritten.contains(&row.to_string()) {
                true => format!("second-{row}"),
                false => format!("first-{row}"),
            }
        });
        let last = conn.admin().list_regions(&name).expect("regions");
        assert!(
            last.iter().all(|r| r.server == fresh),
            "both regions on the fresh server: {last:?}"
        );
        assert!(
            archived(&second),
            "the second server's log moved to oldWALs/"
        );
        assert!(
            store.join("wal").join(&fresh).is_dir(),
            "a live server's log stays"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

#[test]
fn a_region_server_paused_past_its_lease_acknowledges_nothing_when_it_wakes() {
    let began = Instant::now();
    let mut cluster = Cluster::start(1, 2);
    eprintln!("cluster up after {:?}", began.elapsed());
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let name = TableName::parse("zombie").expect("name");
        // The client that will talk to the sleeper: it knows where the region was.
        let stale = RemoteConnection::connect(&masters).expect("connect");
        stale
            .admin()
            .create_table(&descriptor("zombie"), &PreSplit::None)
            .expect("create");
        let table = stale.table(&name).expect("table");
        let before: Vec<String> = (0..20).map(|i| format!("before{i:02}")).collect();
        for row in &before {
            table.put(&put(row, row)).expect("put");
        }
        let regions = stale.admin().list_regions(&name).expect("regions");
        let sleeper = server_index(&cluster, &regions[0].server);
        signal(&cluster.servers[sleeper].child, "STOP");
        let paused_at = Instant::now();
        // Its lease expires; the region reopens on the other server with every write.
        let fresh = RemoteConnection::connect(&masters).expect("connect");
        let fresh_table = fresh.table(&name).expect("table");
        read_back(fresh_table.as_ref(), &before, |row| row.to_string());
        eprintln!("served elsewhere {:?} after the pause", paused_at.elapsed());
        // Requests wait in the sleeper's sockets (the stale client still routes there),
        // then it wakes: whatever it answers first, it must acknowledge none of them.
        let during: Vec<String> = (0..8).map(|i| format!("during{i:02}")).collect();
        let acked: Vec<String> = std::thread::scope(|scope| {
            let writers: Vec<_> = during
                .iter()
                .map(|row| {
                    let table = &table;
                    scope.spawn(move || table.put(&put(row, row)).map(|()| row.clone()))
                })
                .collect();
            std::thread::sleep(Duration::from_millis(500));
            signal(&cluster.servers[sleeper].child, "CONT");
            writers
                .into_iter()
                .filter_map(|w| w.join().expect("writer").ok())
                .collect()
        });
        eprintln!("writers done {:?} after the pause", paused_at.elapsed());
        assert!(!acked.is_empty(), "the clients found the new server");
        read_back(fresh_table.as_ref(), &acked, |row| row.to_string());
        read_back(fresh_table.as_ref(), &before, |row| row.to_string());
        // The sleeper hears that its lease is gone and stops.
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = cluster.servers[sleeper].child.try_wait().expect("wait") {
                break status;
            }
            assert!(Instant::now() < deadline, "the paused server never stopped");
            std::thread::sleep(Duration::from_millis(50));
        };
        eprintln!(
            "the sleeper stopped {:?} after the pause",
            paused_at.elapsed()
        );
        assert!(!status.success(), "it stops as a failure: {status:?}");
        let log = std::fs::read_to_string(&cluster.servers[sleeper].log).expect("log");
        // Whichever it meets first: its lease gone, or its log sealed by the recovery.
        assert!(
            log.contains("the lease is gone") || log.contains("the write-ahead log failed"),
            "{log}"
        );
        let sealed = cluster
            .store
            .path()
            .join("wal")
            .join(&regions[0].server)
            .join("sealed");
        let archived = cluster
            .store
            .path()
            .join("oldWALs")
            .join(&regions[0].server)
            .join("sealed");
        assert!(
            sealed.exists() || archived.exists(),
            "the sleeper's log was sealed before its region was recovered"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

#[test]
fn a_region_server_restarted_on_its_port_before_its_lease_expires_is_a_new_incarnation() {
    let mut cluster = Cluster::start(1, 1);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        let name = TableName::parse("again").expect("name");
        conn.admin()
            .create_table(&descriptor("again"), &PreSplit::None)
            .expect("create");
        let table = conn.table(&name).expect("table");
        let rows: Vec<String> = (0..50).map(|i| format!("row{i:02}")).collect();
        for row in &rows {
            table.put(&put(row, row)).expect("put");
        }
        let mut old = cluster.servers.remove(0);
        old.child.kill().expect("kill -9");
        let _ = old.child.wait();
        // Same host and port, at once: its old registration is still there.
        let new_name = cluster.start_server_at(&old.addr).name.clone();
        assert_ne!(new_name, old.name, "another startcode");
        assert_eq!(
            new_name.rsplit_once(',').map(|(hp, _)| hp),
            old.name.rsplit_once(',').map(|(hp, _)| hp),
            "same host and port"
        );
        read_back(table.as_ref(), &rows, |row| row.to_string());
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        assert_eq!(status.dead_servers, vec![old.name.clone()]);
        assert_eq!(
            status
                .servers
                .iter()
                .map(|s| s.name.clone())
                .collect::<Vec<_>>(),
            vec![new_name.clone()]
        );
        let regions = conn.admin().list_regions(&name).expect("regions");
        assert!(
            regions.iter().all(|r| r.server == new_name),
            "reopened on the new incarnation: {regions:?}"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
