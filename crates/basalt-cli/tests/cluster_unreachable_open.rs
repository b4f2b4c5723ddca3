//! An open sent to a region server that was just killed (its lease not yet expired, so
//! the master still counts it live) never reaches it. The region is not FAILED_OPEN —
//! clients take that as final and it would wait for an operator — but stays OPENING there
//! and is sent again; once the dead server's lease expires, its crash recovery reopens
//! the region on a live server with every acknowledged write. (Chaos seed 3 once ended
//! with a region FAILED_OPEN on "connection refused" to a server killed 4 s earlier.)

use crate::support;

use basalt_api::{Connection, PreSplit, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::Put;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{descriptor, get_retrying, table_name};

#[test]
fn an_open_on_a_just_killed_server_is_sent_again_and_the_region_serves_elsewhere() {
    let mut cluster = Cluster::start(1, 2);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        let name = table_name("moving");
        conn.admin()
            .create_table(&descriptor("moving"), &PreSplit::None)
            .expect("create");
        let table = conn.table(&name).expect("table");
        for i in 0..50 {
            table
                .put(&Put::new(format!("row{i:02}")).add("f", "q", format!("v{i}")))
                .expect("put");
        }
        let region = conn.admin().list_regions(&name).expect("regions").remove(0);
        let victim = cluster
            .servers
            .iter()
            .position(|s| s.name != region.server)
            .expect("the other server");
        let victim_name = cluster.servers[victim].name.clone();
        let mut dead = cluster.servers.remove(victim);
        dead.child.kill().expect("kill -9");
        let _ = dead.child.wait();
        // At once, before its lease expires (the master still counts it live), from another
        // thread: the client retries the move while the open cannot get through.
        let mover = {
            let masters = masters.clone();
            let (region, victim) = (region.encoded_name.clone(), victim_name.clone());
            std::thread::spawn(move || {
                let conn = RemoteConnection::connect(&masters).expect("connect");
                conn.admin().move_region(&region, Some(&victim))
            })
        };
        // Meanwhile the region is never FAILED_OPEN, and reads get retriable answers.
        let window = Instant::now() + Duration::from_secs(4);
        while Instant::now() < window {
            let state = conn.admin().list_regions(&name).expect("regions")[0].state;
            assert_ne!(
                state,
                RegionState::FailedOpen,
                "an unreachable server is not a failed open"
            );
            if let Err(e) = conn.admin().cluster_health().map(|h| h.failed_regions) {
                panic!("health: {e}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let moved = mover.join().expect("mover");
        eprintln!("the move to the killed server answered {moved:?}");
        for i in 0..50 {
            let row = format!("row{i:02}");
            let got = get_retrying(table.as_ref(), &row, Duration::from_secs(40), |e| {
                assert_ne!(e.kind, basalt_api::ErrorKind::DataCorruption, "{row}: {e}");
            });
            assert_eq!(
                got.value(b"f", b"q").map(|v| v.to_vec()),
                Some(format!("v{i}").into_bytes())
            );
        }
        let after = conn.admin().list_regions(&name).expect("regions");
        assert_eq!(after[0].server, region.server, "back on the live server");
        assert_eq!(after[0].state, RegionState::Open);
        assert!(
            conn.admin()
                .cluster_health()
                .expect("health")
                .failed_regions
                .is_empty(),
            "nothing is left failed"
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
