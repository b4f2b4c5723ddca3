//! A standby master names the active master to native HBase clients: with two masters
//! serving the native protocol (etcd, `--hbase-port 0`), the standby's registry
//! (`ClientMetaService`, HBase 2.5's) answers the active master's native address for the
//! active master and for `hbase:meta`'s location, and a meta read sent to the standby
//! itself answers `NotServingRegionException`, so the client looks meta up again.

use crate::support;

use basalt_hbase::client::{CallError, RpcClient};
use basalt_hbase::pb;
use bytes::Bytes;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use support::cluster::{Cluster, Proc};

fn native(master: &Proc) -> SocketAddr {
    master
        .printed
        .iter()
        .find_map(|l| l.strip_prefix("basalt hbase listening on "))
        .unwrap_or_else(|| panic!("the master prints its native address: {:?}", master.printed))
        .parse()
        .expect("an address")
}

/// The `(active master, meta location)` ports a master's registry names.
fn named(addr: SocketAddr) -> (Option<u32>, Option<u32>) {
    let mut registry = RpcClient::connect(addr, "ClientMetaService").expect("connect");
    let active: pb::GetActiveMasterResponse = registry
        .ask("GetActiveMaster", &pb::CellBlockMeta::default())
        .expect("GetActiveMaster");
    let meta: pb::GetMetaRegionLocationsResponse = registry
        .ask("GetMetaRegionLocations", &pb::CellBlockMeta::default())
        .expect("GetMetaRegionLocations");
    (
        active.server_name.and_then(|s| s.port),
        meta.meta_locations
            .first()
            .and_then(|l| l.server_name.as_ref())
            .and_then(|s| s.port),
    )
}

#[test]
fn a_standby_master_names_the_active_master_to_native_clients() {
    let mut cluster = Cluster::start(0, 0);
    cluster.master_args = ["--hbase-port", "0", "--zookeeper-port", "0"]
        .map(String::from)
        .to_vec();
    cluster.start_master();
    cluster.start_master();
    let (first, second) = (native(&cluster.masters[0]), native(&cluster.masters[1]));
    let deadline = Instant::now() + Duration::from_secs(30);
    // One of them is active; both name it, for the master and for meta.
    let (active, standby) = loop {
        let (a, b) = (named(first), named(second));
        let ports = [u32::from(first.port()), u32::from(second.port())];
        if let (true, Some(active)) = (a == b && a.0 == a.1, a.0) {
            assert!(ports.contains(&active), "{active} is one of {ports:?}");
            break match active == u32::from(first.port()) {
                true => (first, second),
                false => (second, first),
            };
        }
        assert!(
            Instant::now() < deadline,
            "both masters name one active master: {a:?} {b:?}\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_ne!(active, standby);

    let meta_scan = pb::ScanRequest {
        region: Some(pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: Bytes::from_static(b"hbase:meta,,1"),
        }),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(10),
        close_scanner: Some(true),
        ..Default::default()
    };
    let mut on_standby = RpcClient::connect(standby, "ClientService").expect("connect");
    match on_standby.call("Scan", &meta_scan) {
        Err(CallError::Remote(e)) => assert_eq!(
            e.class, "org.apache.hadoop.hbase.NotServingRegionException",
            "{e}"
        ),
        other => panic!("a standby's meta read is refused: {other:?}"),
    }
    let mut on_active = RpcClient::connect(active, "ClientService").expect("connect");
    let read: pb::ScanResponse = on_active.ask("Scan", &meta_scan).expect("meta reads");
    assert!(read.more_results.is_some());
}
