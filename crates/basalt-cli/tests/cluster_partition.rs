//! A region server cut off from etcd while clients and masters still reach it
//! (cluster-design.md §5.8, case 3), with real processes and a real partition: the server
//! runs in its own network namespace, with one veth pair to etcd and one to everyone else,
//! and the etcd pair's link goes down.
//!
//! - It stops serving at its lease's local deadline, before etcd expires the lease: a read
//!   sent straight to it is refused from then on.
//! - The master recovers its regions only once etcd expired the lease (its key gone).
//! - No moment has two owners: every read the cut-off server answered came before the
//!   first one its successor answered.
//! - Every acknowledged write reads back, and writes go on once the regions reopened.
//! - The cut-off server stops on its lapsed lease (it does not resume: see
//!   `basalt-regionserver`'s `run.rs`) and, once the link is back, stays dead: the cluster
//!   lists it among the dead servers, not the live ones.
//!
//! Without root or `ip` (iproute2) the test says why and returns.

use crate::support;

use basalt_api::{Connection, RegionState};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{Get, Put};
use bytes::Bytes;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::netns::Netns;
use support::tables;

/// A client that answers the first failure (no retries, short timeouts): a probe.
fn probe_client(addr: &str) -> RemoteConnection {
    let config = ClientConfig {
        retries_max: 0,
        call_timeout: Duration::from_secs(2),
        connect_timeout: Duration::from_secs(2),
        ..ClientConfig::default()
    };
    RemoteConnection::connect_with(addr, config).expect("connect a probe")
}

/// Whether etcd still holds the registration of `server`.
fn registered(cluster: &Cluster, server: &str) -> bool {
    let out = Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .args([
            &format!("--endpoints={}", cluster.etcd.endpoints().join(",")),
            "--command-timeout=2s",
            "get",
            "--prefix",
            "--keys-only",
            "/basalt/servers/",
        ])
        .output()
        .expect("run etcdctl");
    assert!(out.status.success(), "etcdctl: {out:?}");
    String::from_utf8_lossy(&out.stdout).contains(server)
}

/// What the test saw, each at the time it saw it.
#[derive(Default, Debug)]
struct Seen {
    /// Reads the cut-off server answered / refused, sent straight to it.
    old_served: Vec<Instant>,
    old_refused: Vec<Instant>,
    /// Reads the other server answered, sent straight to it.
    new_served: Vec<Instant>,
    /// The cut-off server's key was in etcd / the master had moved its regions.
    key_present: Vec<Instant>,
    moved: Vec<Instant>,
    /// When the cut-off server's process was first seen exited, and how.
    exited: Option<(Instant, std::process::ExitStatus)>,
}

#[test]
fn a_region_server_cut_off_from_etcd_stops_serving_before_its_lease_expires() {
    let netns = match Netns::create() {
        Ok(netns) => netns,
        Err(why) => {
            eprintln!("skipped: no network namespace for the partition here: {why}");
            return;
        }
    };
    // Declared after the namespace, so dropped (its processes killed) before it.
    let mut cluster = Cluster::start_beside(&netns, 1, 1);
    let cut = cluster.start_server_in(&netns);
    let (cut_name, cut_addr) = (cut.name.clone(), cut.addr.clone());
    let other_addr = cluster.servers[0].addr.clone();
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        tables::create(&conn, "cut", 4);
        let regions = tables::regions(&conn, "cut");
        let on_cut: Vec<String> = regions
            .iter()
            .filter(|r| r.server == cut_name)
            .map(|r| r.encoded_name.clone())
            .collect();
        assert!(
            !on_cut.is_empty() && on_cut.len() < regions.len(),
            "regions on both servers: {regions:?}"
        );
        tables::fill(&conn, "cut", 200);
        // A row of a region on the cut-off server: the probes read it.
        let probe_row = (0..200)
            .map(tables::row)
            .find(|row| {
                regions.iter().any(|r| {
                    r.server == cut_name
                        && r.start_key.as_ref() <= row.as_ref()
                        && (r.end_key.is_empty() || row.as_ref() < r.end_key.as_ref())
                })
            })
            .expect("a row on the cut-off server");
        let name = tables::table_name("cut");
        let old_probe = probe_client(&cut_addr).table(&name).expect("old table");
        let new_probe = probe_client(&other_addr).table(&name).expect("new table");
        assert!(
            old_probe.get(&Get::new(probe_row.clone())).is_ok(),
            "the cut-off server serves its region before the cut"
        );

        let stop = AtomicBool::new(false);
        let acked = Mutex::new((0..200).collect::<Vec<u64>>());
        let seen = Mutex::new(Seen::default());
        let cut = cluster
            .servers
            .iter()
            .position(|s| s.name == cut_name)
            .expect("the cut-off server");
        let (cut_at, healed_at) = std::thread::scope(|scope| {
            // A writer through the cluster client, recording what was acknowledged.
            scope.spawn(|| {
                let table = conn.table(&name).expect("table");
                let mut i = 200;
                while !stop.load(Ordering::Relaxed) {
                    let put = Put::new(tables::row(i)).add(
                        Bytes::from_static(b"f"),
                        Bytes::from_static(b"q"),
                        Bytes::from(format!("v{i}")),
                    );
                    if table.put(&put).is_ok() {
                        acked.lock().expect("acked").push(i);
                    }
                    i += 1;
                }
            });
            let cut_at = Instant::now();
            netns.set_link(&netns.etcd, false);
            eprintln!("cut {cut_name} off from etcd");
            // Watch until the region was served elsewhere for a while.
            let deadline = cut_at + Duration::from_secs(40);
            loop {
                let now = Instant::now();
                assert!(
                    now < deadline,
                    "no recovery within 40 s: {s:?}",
                    s = seen.lock()
                );
                let key = registered(&cluster, &cut_name);
                let key_at = Instant::now();
                let moved = tables::regions(&conn, "cut")
                    .iter()
                    .any(|r| on_cut.contains(&r.encoded_name) && r.server != cut_name);
                let moved_at = Instant::now();
                let old = old_probe.get(&Get::new(probe_row.clone())).is_ok();
                let old_at = Instant::now();
                let new = new_probe.get(&Get::new(probe_row.clone())).is_ok();
                let new_at = Instant::now();
                let exited = cluster.servers[cut].child.try_wait().expect("wait");
                let mut s = seen.lock().expect("seen");
                if let (None, Some(status)) = (s.exited, exited) {
                    s.exited = Some((Instant::now(), status));
                }
                if key {
                    s.key_present.push(key_at);
                }
                if moved {
                    s.moved.push(moved_at);
                }
                match old {
                    true => s.old_served.push(old_at),
                    false => s.old_refused.push(old_at),
                }
                if new {
                    s.new_served.push(new_at);
                }
                // Served elsewhere for a while, and the cut-off server stopped (it stops
                // on a lapsed lease; were it to wait for the link instead, the loop ends
                // at its deadline and the link heals).
                let done = s
                    .new_served
                    .first()
                    .is_some_and(|t| t.elapsed() > Duration::from_secs(2))
                    && (s.exited.is_some() || now > cut_at + Duration::from_secs(20));
                drop(s);
                if done {
                    break;
                }
                std::thread::sleep(Duration::from_millis(30));
            }
            let healed_at = Instant::now();
            netns.set_link(&netns.etcd, true);
            eprintln!("healed the link");
            std::thread::sleep(Duration::from_secs(1));
            stop.store(true, Ordering::Relaxed);
            (cut_at, healed_at)
        });
        let seen = seen.into_inner().expect("seen");
        let since = |t: &Instant| t.duration_since(cut_at);
        let first_refused = seen
            .old_refused
            .first()
            .expect("the cut-off server refused");
        let expired = seen
            .key_present
            .last()
            .map(since)
            .expect("the key was there at the cut");
        eprintln!(
            "after the cut: last read served by the cut-off server {:?}, first refused {:?}; \
             key last seen in etcd {expired:?}; regions first seen moved {:?}; \
             first read served by the other server {:?}",
            seen.old_served.last().map(since),
            since(first_refused),
            seen.moved.first().map(since),
            seen.new_served.first().map(since),
        );
        // It stopped serving at its local deadline, before etcd expired its lease …
        assert!(
            seen.key_present.iter().any(|t| t > first_refused),
            "it was refusing while its key was still in etcd: {seen:?}"
        );
        assert!(
            seen.old_served.iter().all(|t| t < first_refused),
            "once refusing it never served again: {seen:?}"
        );
        // … not long before: its deadline is the TTL (5 s) less a margin (1 s) after the
        // last keep-alive (one every TTL / 3) before the cut.
        assert!(
            since(first_refused) > Duration::from_millis(2_000),
            "it stopped {:?} after the cut, before its deadline",
            since(first_refused)
        );
        // The master moved its regions only once the key was gone.
        let first_moved = seen.moved.first().expect("the regions moved");
        assert!(
            seen.key_present.iter().all(|t| t < first_moved),
            "regions moved while the lease was live: {seen:?}"
        );
        // Never two owners: whatever the old one served came before the new one served.
        let first_new = seen.new_served.first().expect("served elsewhere");
        assert!(
            seen.old_served.iter().all(|t| t < first_new),
            "both servers served the region: {seen:?}"
        );
        assert!(first_refused < first_new);

        // The cut-off server stopped on its lapsed lease (at the latest once the link was
        // back and it learned the lease was gone), and stays stopped.
        let stop_deadline = Instant::now() + Duration::from_secs(30);
        let (exited_at, status) = loop {
            if let Some(exited) = seen.exited {
                break exited;
            }
            if let Some(status) = cluster.servers[cut].child.try_wait().expect("wait") {
                break (Instant::now(), status);
            }
            assert!(
                Instant::now() < stop_deadline,
                "the cut-off server never stopped"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        eprintln!(
            "the cut-off server was seen exited {:?} after the cut (the link healed {:?} after it)",
            since(&exited_at),
            since(&healed_at)
        );
        assert!(!status.success(), "it stops as a failure: {status:?}");
        let log = std::fs::read_to_string(&cluster.servers[cut].log).expect("log");
        assert!(
            log.contains("the lease's deadline passed without a keep-alive")
                && log.contains("the lease is gone or lapsed"),
            "{log}"
        );
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        assert!(
            status.dead_servers.contains(&cut_name)
                && status.servers.iter().all(|s| s.name != cut_name),
            "{status:?}"
        );
        assert!(
            !registered(&cluster, &cut_name),
            "it did not register again"
        );
        // Every region open on the other server, every acknowledged write there.
        let after = tables::regions(&conn, "cut");
        assert!(
            after
                .iter()
                .all(|r| r.server != cut_name && r.state == RegionState::Open),
            "{after:?}"
        );
        let acked = acked.into_inner().expect("acked");
        assert!(acked.len() > 200, "writes went on during and after the cut");
        let fresh = RemoteConnection::connect(&masters).expect("connect");
        let table = fresh.table(&name).expect("table");
        for i in &acked {
            let got = table.get(&Get::new(tables::row(*i))).expect("get");
            assert_eq!(
                got.value_bytes(b"f", b"q"),
                Some(Bytes::from(format!("v{i}"))),
                "acknowledged row {i}"
            );
        }
        eprintln!("{} acknowledged writes read back", acked.len());
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
