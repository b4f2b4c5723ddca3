//! A client that connects while no master is active yet — the active one just resigned
//! (SIGTERM) and the standby has not finished taking over — waits for the standby instead
//! of failing with "no active master" (HBase's clients retry `MasterNotRunningException`
//! the same way). A failover test once failed on exactly this, on a busy machine.

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use std::time::Instant;
use support::cluster::Cluster;

#[test]
fn connecting_during_a_master_failover_waits_for_the_standby() {
    let mut cluster = Cluster::start(2, 1);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let masters = cluster.masters_arg();
        let first = RemoteConnection::connect(&masters).expect("connect");
        let active = first
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster")
            .active_master;
        let index = cluster
            .masters
            .iter()
            .position(|m| active.ends_with(&m.addr) || m.addr.ends_with(&active))
            .unwrap_or_else(|| panic!("the active master {active} among {masters}"));
        let mut resigned = cluster.masters.remove(index);
        assert!(support::cluster::terminate(&mut resigned.child).success());
        // The standby is campaigning, loading the catalog, reconciling: not active yet.
        let started = Instant::now();
        let conn = RemoteConnection::connect(&masters).expect("connects once the standby leads");
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        assert_ne!(status.active_master, active, "the standby took over");
        eprintln!("connected after {:?}", started.elapsed());
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
