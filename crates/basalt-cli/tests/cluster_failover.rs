//! Master failover and set-up refusals, with real processes.
//!
//! - The active master stops (SIGTERM: it resigns); a standby takes over, and a client that
//!   was given both addresses carries on: DDL goes to the new master, data never stopped.
//! - What goes wrong at set-up gets a clear answer: etcd unreachable (named, retried, given
//!   up on), a store that is not a folder or not writable, a non-loopback address without
//!   `--insecure`, a region server whose clock is too far from the master's.

mod support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::cluster::{terminate, Cluster};

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
        assert_eq!(got.value(b"f", b"q").map(|v| v.as_ref()), Some(&b"a"[..]));
        let listed = conn.admin().list_tables(None).expect("list");
        assert_eq!(listed.len(), 2, "{listed:?}");
    }));
    if let Err(panic) = outcome {
        eprintln!("{}", cluster.logs());
        std::panic::resume_unwind(panic);
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

#[test]
fn a_killed_region_server_leaves_its_regions_crashed_never_reopened_without_their_log() {
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
        for row in ["a", "z"] {
            let put = Put::new(Bytes::copy_from_slice(row.as_bytes())).add(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                Bytes::from_static(b"unflushed"),
            );
            table.put(&put).expect("put");
        }
        // kill -9 the server holding the first region: its edit is only in its log.
        let victim = regions[0].server.clone();
        let index = cluster
            .servers
            .iter()
            .position(|s| s.name == victim)
            .expect("victim");
        let mut dead = cluster.servers.remove(index);
        dead.child.kill().expect("kill -9");
        let _ = dead.child.wait();
        let deadline = Instant::now() + Duration::from_secs(20);
        let health = loop {
            let health = conn.admin().cluster_health().expect("health");
            if !health.failed_regions.is_empty() || Instant::now() > deadline {
                break health;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(health.failed_regions.len(), 1, "{health:?}");
        assert!(
            health.failed_regions[0].cause.contains("died"),
            "{health:?}"
        );
        // The balancer does not reopen it elsewhere without its edits.
        assert!(conn.admin().balance().expect("balancer"));
        let after = conn.admin().list_regions(&name).expect("regions");
        let crashed = after
            .iter()
            .find(|r| r.encoded_name == regions[0].encoded_name)
            .expect("listed");
        assert_eq!(
            crashed.state,
            basalt_api::RegionState::Closed,
            "{crashed:?}"
        );
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        assert_eq!(status.dead_servers, vec![victim.clone()]);
        assert_eq!(status.servers.len(), 1);
        // The other region keeps serving.
        let got = table.get(&Get::new(Bytes::from_static(b"z"))).expect("get");
        assert_eq!(
            got.value(b"f", b"q").map(|v| v.as_ref()),
            Some(&b"unflushed"[..])
        );
    }));
    if let Err(panic) = outcome {
        eprintln!("{}", cluster.logs());
        std::panic::resume_unwind(panic);
    }
}
