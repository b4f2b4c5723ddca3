//! hbase-driver (PyPI, a native HBase 2.x client nobody here wrote), unchanged, against a
//! real cluster: etcd, a master serving HBase's native protocol (`--hbase-port 0
//! --zookeeper-port 0`: MasterService, `hbase:meta`, the ZooKeeper responder) and two
//! region servers serving their own regions (`--hbase-port 0`).
//!
//! The client finds the master through ZooKeeper, reads `hbase:meta` there, and talks to
//! each region's server directly. The standalone suite (`tests/hbase_driver/`: DDL,
//! put/get/delete, batches, increments, check-and-put, scans, filters) runs as it is; the
//! cluster's own (`tests/hbase_driver_cluster/`) checks that a table's regions are served
//! by different region servers, that a scan crosses them, and that a region moved to the
//! other server (with `basalt shell`'s `move`) is refused by its old server with
//! `NotServingRegionException`, and found on its new one once the client reads meta again.

use crate::support;

use support::cluster::Cluster;

#[test]
fn hbase_driver_drives_a_cluster_of_two_region_servers() {
    let mut cluster = Cluster::start(0, 0);
    cluster.master_args = ["--hbase-port", "0", "--zookeeper-port", "0"]
        .map(String::from)
        .to_vec();
    cluster.server_args = ["--hbase-port", "0"].map(String::from).to_vec();
    cluster.start_master();
    cluster.start_server("127.0.0.2");
    cluster.start_server("127.0.0.3");
    let master = &cluster.masters[0];
    let zk = master
        .printed
        .iter()
        .find_map(|l| l.strip_prefix("basalt zookeeper listening on "))
        .unwrap_or_else(|| {
            panic!(
                "the master prints its ZooKeeper address: {:?}",
                master.printed
            )
        })
        .to_string();
    let servers = cluster
        .servers
        .iter()
        .map(|s| s.name.clone())
        .collect::<Vec<_>>()
        .join(" ");
    let (master_addr, basalt) = (master.addr.clone(), env!("CARGO_BIN_EXE_basalt"));
    let outcome = std::panic::catch_unwind(|| {
        support::gateways::hbase_driver_in(
            &["tests/hbase_driver", "tests/hbase_driver_cluster"],
            &[
                ("BASALT_ZK", zk.as_str()),
                ("BASALT_MASTER", master_addr.as_str()),
                ("BASALT_SERVERS", servers.as_str()),
                ("BASALT_BIN", basalt),
            ],
        )
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
