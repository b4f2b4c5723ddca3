//! `basalt hbck rebuild-meta` as an operator runs it: a cluster (etcd, a master, two
//! region servers) with a namespace, a pre-split table and a table split during the test,
//! rows flushed and rows only in the logs; everything killed with SIGKILL and etcd's data
//! gone (a fresh etcd); the catalog rebuilt from the store alone; the cluster started
//! again serves every namespace, table and row. The rebuild refuses to run over a catalog
//! without --force, and over a running master even with it.

use crate::support;

use basalt_api::{Connection, PreSplit, RegionState};
use basalt_client::RemoteConnection;
use basalt_coord::testing::EtcdCluster;
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor};
use bytes::Bytes;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{self, table_name, with_logs};

fn rebuild(cluster: &Cluster, extra: &[&str]) -> (bool, String) {
    let coordinator = cluster.coordinator();
    let store = cluster.store_url();
    let mut args = vec![
        "hbck",
        "rebuild-meta",
        "--coordinator",
        &coordinator,
        "--store",
        &store,
        "--coordinator-timeout",
        "20",
    ];
    args.extend_from_slice(extra);
    let out = support::basalt(&args, "");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Waits until every region of `name` is open, and there are `count` of them.
fn wait_open(conn: &RemoteConnection, name: &str, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let regions = conn.admin().list_regions(&table_name(name));
        if let Ok(regions) = &regions {
            if regions.len() == count && regions.iter().all(|r| r.state == RegionState::Open) {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{name} never opened: {regions:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn kill_everything(cluster: &mut Cluster) {
    for proc in cluster.servers.iter_mut().chain(cluster.masters.iter_mut()) {
        proc.child.kill().expect("SIGKILL");
        proc.child.wait().expect("reaped");
    }
    cluster.servers.clear();
    cluster.masters.clear();
}

#[test]
fn a_cluster_whose_etcd_lost_its_data_comes_back_whole_from_the_store() {
    let mut cluster = Cluster::start(1, 2);
    let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
    let admin = conn.admin();
    let mut sales = NamespaceDescriptor::new("sales").expect("valid");
    sales.properties.insert("owner".into(), "ann".into());
    with_logs(&cluster, || {
        admin.create_namespace(&sales).expect("create namespace");
        tables::create(&conn, "sales:orders", 4);
        let plain = TableDescriptor::new(
            table_name("plain"),
            vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
        );
        admin
            .create_table(&plain, &PreSplit::None)
            .expect("create plain");
        // Flushed rows, then a split of `plain`, then rows only in the logs.
        tables::fill_range(&conn, "sales:orders", 0..200);
        tables::fill_range(&conn, "plain", 0..100);
        admin.flush(&table_name("sales:orders")).expect("flush");
        admin.flush(&table_name("plain")).expect("flush");
        admin
            .split(&table_name("plain"), Some(b"8"))
            .expect("split");
        wait_open(&conn, "plain", 2);
        tables::fill_range(&conn, "sales:orders", 200..300);
        tables::fill_range(&conn, "plain", 100..150);
        // A table disabled before the loss comes back disabled (its folder says so).
        admin
            .create_table(&tables::descriptor("parked"), &PreSplit::None)
            .expect("create parked");
        tables::fill_range(&conn, "parked", 0..20);
        admin.disable_table(&table_name("parked")).expect("disable");
    });
    drop(conn);

    kill_everything(&mut cluster);
    // etcd's data is gone: a fresh, empty etcd in its place.
    cluster.etcd = EtcdCluster::start().expect("a fresh etcd");

    let (ok, printed) = rebuild(&cluster, &[]);
    println!("{printed}");
    assert!(ok, "{printed}");
    assert!(printed.contains("Tables: 3"), "{printed}");
    assert!(
        printed.contains("sales:orders: 4 live regions"),
        "{printed}"
    );
    assert!(
        printed.contains("plain: 2 live regions, 1 retired"),
        "{printed}"
    );
    assert!(printed.contains("Logs to replay: 2"), "{printed}");
    assert!(printed.contains("Status: OK"), "{printed}");

    // Over the catalog it just wrote: refused without --force, nothing changed.
    let (ok, printed) = rebuild(&cluster, &[]);
    assert!(!ok, "{printed}");
    assert!(
        printed.contains("already holds a catalog (3 tables, 8 regions)"),
        "{printed}"
    );
    assert!(printed.contains("--force"), "{printed}");

    cluster.start_master();
    cluster.start_server("127.0.0.2");
    cluster.start_server("127.0.0.3");
    // A running master is never overridden, --force or not.
    let (ok, printed) = rebuild(&cluster, &["--force"]);
    assert!(!ok, "{printed}");
    assert!(printed.contains("master(s) are running"), "{printed}");

    let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
    with_logs(&cluster, || {
        let admin = conn.admin();
        wait_open(&conn, "sales:orders", 4);
        wait_open(&conn, "plain", 2);
        let ns = admin.describe_namespace("sales").expect("namespace back");
        assert_eq!(ns.properties.get("owner").map(String::as_str), Some("ann"));
        let mut names: Vec<String> = admin
            .list_tables(None)
            .expect("tables")
            .iter()
            .map(ToString::to_string)
            .collect();
        names.sort();
        assert_eq!(names, ["parked", "plain", "sales:orders"]);
        let parked = table_name("parked");
        assert!(
            !admin.is_table_enabled(&parked).expect("state"),
            "disabled before the loss, disabled after the rebuild"
        );
        admin.enable_table(&parked).expect("enable");
        wait_open(&conn, "parked", 1);
        tables::check_rows(&conn, "parked", 20);
        tables::check_rows(&conn, "sales:orders", 300);
        tables::check_rows(&conn, "plain", 150);
        // And it takes writes again.
        tables::fill_range(&conn, "plain", 150..160);
        tables::check_rows(&conn, "plain", 160);
    });
}
