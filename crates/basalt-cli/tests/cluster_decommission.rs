//! Decommissioning region servers and clearing dead ones, against a real cluster (etcd,
//! masters and region servers as processes over a shared folder).
//!
//! A decommissioned server gives its regions to the others (offload) and gets none of a
//! new table; the mark survives a master failover; recommissioned, the balancer gives it
//! regions again. A server killed with -9 is listed dead until `clear_deadservers`, once
//! its regions reopened elsewhere.

use crate::support;

use basalt_api::{Connection, RegionState};
use basalt_client::RemoteConnection;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use support::cluster::{terminate, Cluster};
use support::shell;
use support::tables::*;

#[test]
fn a_decommissioned_server_gives_up_its_regions_gets_none_and_keeps_its_mark_across_a_failover() {
    let mut cluster = Cluster::start(1, 2);
    let a = cluster.servers[0].name.clone();
    let b = cluster.servers[1].name.clone();
    let a_address = cluster.servers[0].addr.clone();
    let first_master = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&first_master).expect("connect");
        create(&conn, "spread", 6);
        fill(&conn, "spread", 200);
        let before = spread(&conn, "spread");
        assert_eq!(before.len(), 2, "regions on both servers: {before:?}");

        // Unknown servers, and every live server, are refused with the reason.
        let unknown = conn
            .admin()
            .decommission_region_servers(&["127.0.0.9,1,1".to_string()], true)
            .expect_err("no such server");
        assert!(unknown.message.contains("127.0.0.9,1,1"), "{unknown}");
        let every = conn
            .admin()
            .decommission_region_servers(&[a.clone(), b.clone()], true)
            .expect_err("nothing would take the regions");
        assert!(
            every.message.contains("no other live region server"),
            "{every}"
        );
        assert!(conn
            .admin()
            .list_decommissioned_region_servers()
            .expect("list")
            .is_empty());

        // A is decommissioned, named by host:port: its regions move to B, rows intact.
        let marked = conn
            .admin()
            .decommission_region_servers(std::slice::from_ref(&a_address), true)
            .expect("decommission");
        assert_eq!(marked, vec![a.clone()]);
        assert_eq!(
            spread(&conn, "spread"),
            BTreeMap::from([(b.clone(), 6)]),
            "every region moved to B"
        );
        check_rows(&conn, "spread", 200);
        create(&conn, "later", 4);
        assert_eq!(spread(&conn, "later"), BTreeMap::from([(b.clone(), 4)]));
        // The balancer leaves A empty.
        assert!(conn.admin().balance().expect("balancer"));
        assert!(!spread(&conn, "spread").contains_key(&a));

        let printed = shell(&first_master, "list_decommissioned_regionservers\n");
        assert!(
            printed.contains(&format!("DECOMMISSIONED REGION SERVERS\n{a}\n1 row(s)\n")),
            "{printed}"
        );

        // A second master takes over: it reads the mark.
        cluster.start_master();
        let mut active = cluster.masters.remove(0);
        assert!(terminate(&mut active.child).success());
        let masters = cluster.masters_arg();
        let conn = RemoteConnection::connect(&masters).expect("connect to the new master");
        assert_eq!(
            conn.admin()
                .list_decommissioned_region_servers()
                .expect("list"),
            vec![a.clone()]
        );
        create(&conn, "after_failover", 4);
        assert_eq!(
            spread(&conn, "after_failover"),
            BTreeMap::from([(b.clone(), 4)])
        );

        // Recommissioned through the shell, A gets regions from the balancer again.
        let printed = shell(
            &masters,
            &format!("recommission_regionserver '{a}'\nlist_decommissioned_regionservers\n"),
        );
        assert!(
            printed.contains("DECOMMISSIONED REGION SERVERS\n0 row(s)\n"),
            "{printed}"
        );
        assert!(conn.admin().balance().expect("balancer"));
        let counts = spread(&conn, "spread");
        assert!(counts.get(&a).copied().unwrap_or(0) >= 2, "{counts:?}");
        check_rows(&conn, "spread", 200);

        // Decommissioned through the shell without offloading, A keeps what it holds.
        let printed = shell(
            &masters,
            &format!(
                "decommission_regionservers ['{a_address}']\nlist_decommissioned_regionservers\n\
                 decommission_regionservers 'no-such-host'\n"
            ),
        );
        assert!(
            printed.contains(&format!("DECOMMISSIONED REGION SERVERS\n{a}\n1 row(s)\n")),
            "{printed}"
        );
        assert!(printed.contains("no-such-host"), "{printed}");
        assert_eq!(spread(&conn, "spread"), counts, "nothing moved");
        create(&conn, "while_marked", 2);
        assert_eq!(
            spread(&conn, "while_marked"),
            BTreeMap::from([(b.clone(), 2)])
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

#[test]
fn clear_deadservers_forgets_a_killed_server_once_its_regions_reopened() {
    let mut cluster = Cluster::start(1, 2);
    let masters = cluster.masters_arg();
    let survivor = cluster.servers[0].name.clone();
    let victim = cluster.servers[1].name.clone();
    with_logs(&cluster, || {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        create(&conn, "crash", 4);
        fill(&conn, "crash", 100);
        assert_eq!(spread(&conn, "crash").len(), 2);
    });
    let mut killed = cluster.servers.remove(1);
    killed.child.kill().expect("kill -9");
    let _ = killed.child.wait();
    with_logs(&cluster, || {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let status = conn
                .admin()
                .cluster_status()
                .expect("status")
                .expect("a cluster");
            let reopened = regions(&conn, "crash")
                .iter()
                .all(|r| r.state == RegionState::Open && r.server == survivor);
            if status.dead_servers.contains(&victim) && reopened {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the killed server's regions never reopened: {status:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        check_rows(&conn, "crash", 100);

        let printed = shell(&masters, "clear_deadservers 'no-such-host,1,1'\n");
        assert!(
            printed.contains(
                "Some dead server clear failed\nSERVERNAME\nno-such-host,1,1 (it is not a dead region server)\n1 row(s)\n"
            ),
            "{printed}"
        );
        let printed = shell(&masters, "clear_deadservers\nlist_deadservers\n");
        assert!(
            printed.contains(&format!("Cleared {victim}\ntrue\n")),
            "{printed}"
        );
        assert!(printed.contains("SERVERNAME\n0 row(s)\n"), "{printed}");
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        assert!(status.dead_servers.is_empty(), "{status:?}");
    });
}
