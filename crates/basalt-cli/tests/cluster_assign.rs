//! Region assignment commands against a real cluster (etcd, masters and region servers as
//! processes over a shared folder).
//!
//! An unassigned region stays closed — its rows answer HBase's `NoServerForRegionException`
//! after the client's retries, the balancer and a new master leave it alone — until
//! `assign`, after which a reader that was retrying gets every row. The balancer switch is
//! the master's: two shells see the same one, a new master keeps it, and while it is off a
//! joining region server gets nothing at the balancer period; switched on, `balancer`
//! gives it regions.

use crate::support;

use basalt_api::{Connection, RegionState};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{Get, Put, Scan};
use bytes::Bytes;
use std::time::{Duration, Instant};
use support::cluster::{terminate, Cluster};
use support::shell;
use support::tables::*;

#[test]
fn an_unassigned_region_answers_no_server_until_assign_and_a_retrying_reader_gets_every_row() {
    let cluster = Cluster::start(1, 2);
    let masters = cluster.masters_arg();
    with_logs(&cluster, || {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        create(&conn, "closing", 4);
        fill(&conn, "closing", 200);
        let victim = regions(&conn, "closing").remove(1);
        let inside: Vec<u64> = (0..200)
            .filter(|&i| {
                let key = row(i);
                key >= victim.start_key && (victim.end_key.is_empty() || key < victim.end_key)
            })
            .collect();
        let outside = (0..200)
            .find(|i| !inside.contains(i))
            .expect("a row elsewhere");
        assert!(!inside.is_empty());

        conn.admin()
            .unassign(&victim.encoded_name, false)
            .expect("unassign");
        let closed = regions(&conn, "closing")
            .into_iter()
            .find(|r| r.encoded_name == victim.encoded_name)
            .expect("still listed");
        assert_eq!(closed.state, RegionState::Closed);
        assert_eq!(closed.server, "", "a closed region is on no server");

        // A client with few retries gives up with HBase's exception; other regions serve.
        let impatient = RemoteConnection::connect_with(
            &masters,
            ClientConfig {
                retries_max: 2,
                ..ClientConfig::default()
            },
        )
        .expect("connect");
        let table = impatient.table(&table_name("closing")).expect("table");
        let err = table
            .get(&Get::new(row(inside[0])))
            .expect_err("the region is closed");
        assert!(
            err.exception.ends_with("NoServerForRegionException"),
            "{err}"
        );
        // A batch into the closed region shares one retry budget: it does not wait the
        // client's retries once per row (with these pauses, 3 s per row before).
        let patient_pauses = RemoteConnection::connect_with(
            &masters,
            ClientConfig {
                retries_max: 2,
                backoff_base: Duration::from_secs(1),
                ..ClientConfig::default()
            },
        )
        .expect("connect");
        let puts: Vec<Put> = inside
            .iter()
            .map(|&i| {
                Put::new(row(i)).add(
                    Bytes::from_static(b"f"),
                    Bytes::from_static(b"q"),
                    Bytes::from_static(b"never"),
                )
            })
            .collect();
        let started = Instant::now();
        let err = patient_pauses
            .table(&table_name("closing"))
            .expect("table")
            .put_many(&puts)
            .expect_err("the region is closed");
        assert!(
            err.exception.ends_with("NoServerForRegionException"),
            "{err}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{} rows waited {:?}: one budget for the batch, not one per row",
            puts.len(),
            started.elapsed()
        );
        assert!(table
            .get(&Get::new(row(outside)))
            .expect("other regions serve")
            .value(b"f", b"q")
            .is_some());

        // The balancer does not reopen it.
        assert!(
            conn.admin().balance().expect("balancer"),
            "the balancer ran"
        );
        assert!(regions(&conn, "closing")
            .iter()
            .any(|r| r.encoded_name == victim.encoded_name && r.state == RegionState::Closed));

        // A reader with the default retries waits through the closed time.
        let reader_masters = masters.clone();
        let wanted = inside.clone();
        let started = Instant::now();
        let reader = std::thread::spawn(move || {
            let conn = RemoteConnection::connect(&reader_masters).expect("connect");
            let table = conn.table(&table_name("closing")).expect("table");
            wanted
                .iter()
                .map(|&i| {
                    let got = table.get(&Get::new(row(i))).expect("the reader retries");
                    got.value_bytes(b"f", b"q")
                })
                .collect::<Vec<_>>()
        });
        std::thread::sleep(Duration::from_millis(1500));
        conn.admin().assign(&victim.region_name).expect("assign");
        let values = reader.join().expect("the reader");
        assert!(
            started.elapsed() >= Duration::from_millis(1500),
            "the reader waited for the region"
        );
        let expected: Vec<Option<Bytes>> = inside
            .iter()
            .map(|i| Some(Bytes::from(format!("v{i}"))))
            .collect();
        assert_eq!(values, expected);
        assert!(regions(&conn, "closing")
            .iter()
            .all(|r| r.state == RegionState::Open && !r.server.is_empty()));
        let scanned = conn
            .table(&table_name("closing"))
            .expect("table")
            .scan(&Scan::new())
            .expect("scan")
            .count();
        assert_eq!(scanned, 200);
    });
}

#[test]
fn a_new_master_keeps_an_unassigned_region_closed_and_the_balancer_switch() {
    let mut cluster = Cluster::start(2, 2);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        create(&conn, "kept", 2);
        let victim = regions(&conn, "kept").remove(0);
        conn.admin()
            .close_region(&victim.region_name, None)
            .expect("close_region");
        assert!(
            conn.admin().balance_switch(false).expect("switch"),
            "the balancer was on"
        );
        // Whichever master is active stops; the other takes over.
        let mut active = cluster.masters.remove(0);
        assert!(terminate(&mut active.child).success());
        assert!(
            !conn.admin().balancer_enabled().expect("balancer_enabled"),
            "the new master reads the switch"
        );
        let after = regions(&conn, "kept");
        let closed = after
            .iter()
            .find(|r| r.encoded_name == victim.encoded_name)
            .expect("listed");
        assert_eq!(closed.state, RegionState::Closed, "{after:?}");
        conn.admin().assign(&victim.encoded_name).expect("assign");
        assert!(regions(&conn, "kept")
            .iter()
            .all(|r| r.state == RegionState::Open));
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

#[test]
fn with_the_balancer_off_a_joining_server_gets_no_regions_until_switched_on_and_run() {
    let mut cluster = Cluster::start(0, 0);
    cluster.start_master_balancing_every(1);
    cluster.start_server("127.0.0.2");
    cluster.start_server("127.0.0.3");
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        create(&conn, "idle", 8);
        assert_eq!(spread(&conn, "idle").len(), 2);

        let printed = shell(&masters, "balance_switch false\n");
        assert!(
            printed.contains("Previous balancer state : true"),
            "{printed}"
        );
        let printed = shell(&masters, "balancer_enabled\nbalancer\n");
        assert!(
            printed.contains("false"),
            "another shell sees the master's switch: {printed}"
        );
        assert!(
            !printed.contains("true"),
            "balancer does not run: {printed}"
        );

        let joined = cluster.start_server("127.0.0.4").name.clone();
        // Three balancer periods pass: the new server stays empty.
        std::thread::sleep(Duration::from_secs(3));
        let counts = spread(&conn, "idle");
        assert!(!counts.contains_key(&joined), "{counts:?}");

        let printed = shell(&masters, "balance_switch true\nbalancer\n");
        assert!(
            printed.contains("Previous balancer state : false"),
            "{printed}"
        );
        assert!(printed.contains("\ntrue\n"), "balancer ran: {printed}");
        let counts = spread(&conn, "idle");
        assert!(
            counts.get(&joined).copied().unwrap_or(0) >= 2,
            "the joining server got regions: {counts:?}"
        );
        assert_eq!(counts.values().sum::<usize>(), 8, "{counts:?}");
        // list_regions names each region's server (host,port,startcode) under SERVER_NAME.
        let printed = shell(&masters, "list_regions 'idle'\nlist_liveservers\n");
        assert!(printed.contains("SERVER_NAME"), "{printed}");
        let rows: Vec<&str> = printed
            .lines()
            .filter(|l| l.contains(",idle,") || l.contains(" idle,"))
            .collect();
        assert_eq!(rows.len(), 8, "{printed}");
        for server in counts.keys() {
            let listed = rows
                .iter()
                .filter(|l| l.trim_start().starts_with(server.as_str()))
                .count();
            assert_eq!(listed, counts[server], "{server} in {printed}");
        }
        assert!(
            printed.contains("3 row(s)"),
            "three live servers: {printed}"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
