//! Cluster mode with real processes: 3 etcd members, 2 masters, 3 region servers on
//! 127.0.0.2–4, a shared folder as the store, and the Rust client connecting to the
//! masters.
//!
//! Pre-split tables spread evenly; moves, the balancer, a joining server, a graceful stop,
//! a split and a merge each happen under a running writer and reader with no client error,
//! and every acknowledged row is read back exactly once.

use crate::support;

use basalt_api::{Connection, PreSplit, Table};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, Scan, SplitAlgorithm, TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use support::cluster::Cluster;

fn table_name(name: &str) -> TableName {
    TableName::parse(name).expect("a table name")
}

fn create(conn: &RemoteConnection, name: &str, regions: u32) {
    let descriptor = TableDescriptor::new(
        table_name(name),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    );
    conn.admin()
        .create_table(
            &descriptor,
            &PreSplit::Count {
                regions,
                algorithm: SplitAlgorithm::HexString,
            },
        )
        .expect("create the table");
}

/// Regions per server name.
fn spread(conn: &RemoteConnection, name: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for region in conn
        .admin()
        .list_regions(&table_name(name))
        .expect("list regions")
    {
        *counts.entry(region.server).or_insert(0) += 1;
    }
    counts
}

fn row(i: u64) -> Bytes {
    // Hex-spread keys, so rows land in every region of a HexString pre-split.
    let hash = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32;
    Bytes::from(format!("{hash:08x}-{i:06}"))
}

fn put(i: u64) -> Put {
    Put::new(row(i)).add(
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        Bytes::from(format!("v{i}")),
    )
}

/// Every row of the table, by key, with its value.
fn scan_all(table: &Arc<dyn Table>) -> BTreeMap<Bytes, Bytes> {
    let mut rows = BTreeMap::new();
    for result in table.scan(&Scan::new()).expect("scan") {
        let result = result.expect("scan row");
        let key = result.row_bytes().expect("a row key");
        let value = result.value_bytes(b"f", b"q").expect("a value");
        assert!(
            rows.insert(key.clone(), value).is_none(),
            "row {key:?} returned twice"
        );
    }
    rows
}

#[test]
fn a_table_of_twelve_regions_spreads_four_four_four_and_serves_reads_and_writes() {
    let cluster = Cluster::start(2, 3);
    let outcome = std::panic::catch_unwind(|| {
        let conn =
            RemoteConnection::connect(&cluster.masters_arg()).expect("connect to the masters");
        create(&conn, "spread", 12);
        let counts = spread(&conn, "spread");
        assert_eq!(counts.len(), 3, "{counts:?}");
        assert!(counts.values().all(|&n| n == 4), "{counts:?}");
        for server in counts.keys() {
            assert!(
                server.starts_with("127.0.0."),
                "server names are host,port,startcode: {server}"
            );
            assert_eq!(server.split(',').count(), 3, "{server}");
        }
        let table = conn.table(&table_name("spread")).expect("table");
        let puts: Vec<Put> = (0..600).map(put).collect();
        table.put_many(&puts).expect("put_many across servers");
        for i in 600..700 {
            table.put(&put(i)).expect("put");
        }
        for i in (0..700).step_by(7) {
            let got = table.get(&Get::new(row(i))).expect("get");
            assert_eq!(got.value(b"f", b"q"), Some(format!("v{i}").as_bytes()));
        }
        let rows = scan_all(&table);
        assert_eq!(rows.len(), 700);
        let mut reversed = Scan::new();
        reversed.reversed = true;
        let back: Vec<Bytes> = table
            .scan(&reversed)
            .expect("reversed scan")
            .map(|r| r.expect("row").row_bytes().expect("key"))
            .collect();
        let forward: Vec<Bytes> = rows.keys().cloned().collect();
        assert_eq!(
            back,
            forward.into_iter().rev().collect::<Vec<_>>(),
            "a reversed scan walks every region backwards"
        );
        let gets: Vec<Get> = (0..50).map(|i| Get::new(row(i))).collect();
        let got = table.get_many(&gets).expect("get_many across servers");
        assert!(got.iter().all(|r| r.value(b"f", b"q").is_some()));
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

/// A writer putting rows in order and a reader getting acknowledged ones, until stopped.
struct Load {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<u64>>>,
    errors: Arc<Mutex<Vec<String>>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn start(masters: &str, table: &str) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(Mutex::new(Vec::new()));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let conn = RemoteConnection::connect(masters).expect("connect");
        let writer_table = conn.table(&table_name(table)).expect("table");
        let reader_table = writer_table.clone();
        let (s, a, e) = (stop.clone(), acked.clone(), errors.clone());
        let writer = std::thread::spawn(move || {
            let mut i = 0;
            while !s.load(Ordering::Acquire) {
                match writer_table.put(&put(i)) {
                    Ok(()) => a.lock().expect("acked").push(i),
                    Err(err) => e.lock().expect("errors").push(format!("put {i}: {err}")),
                }
                i += 1;
            }
        });
        let (s, a, e) = (stop.clone(), acked.clone(), errors.clone());
        let reader = std::thread::spawn(move || {
            let mut n: u64 = 0;
            while !s.load(Ordering::Acquire) {
                let pick = {
                    let acked = a.lock().expect("acked");
                    if acked.is_empty() {
                        None
                    } else {
                        n = n
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        Some(acked[(n >> 33) as usize % acked.len()])
                    }
                };
                let Some(i) = pick else {
                    std::thread::yield_now();
                    continue;
                };
                match reader_table.get(&Get::new(row(i))) {
                    Ok(got) if got.value(b"f", b"q") == Some(format!("v{i}").as_bytes()) => {}
                    Ok(got) => e
                        .lock()
                        .expect("errors")
                        .push(format!("get {i}: wrong answer {got:?}")),
                    Err(err) => e.lock().expect("errors").push(format!("get {i}: {err}")),
                }
            }
        });
        Self {
            stop,
            acked,
            errors,
            threads: vec![writer, reader],
        }
    }

    /// Waits until `more` rows were acknowledged after now.
    fn wait_rows(&self, more: usize) {
        let target = self.acked.lock().expect("acked").len() + more;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while self.acked.lock().expect("acked").len() < target {
            assert!(std::time::Instant::now() < deadline, "the writer stalled");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    fn finish(self) -> (Vec<u64>, Vec<String>) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads {
            t.join().expect("load thread");
        }
        let acked = self.acked.lock().expect("acked").clone();
        let errors = self.errors.lock().expect("errors").clone();
        (acked, errors)
    }
}

#[test]
fn moves_balancing_a_joining_server_a_graceful_stop_a_split_and_a_merge_cost_no_row() {
    let mut cluster = Cluster::start(2, 3);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect to the masters");
        create(&conn, "busy", 6);
        let admin = conn.admin();
        let load = Load::start(&masters, "busy");
        load.wait_rows(200);

        // move: one region to another server.
        let regions = admin.list_regions(&table_name("busy")).expect("regions");
        let first = regions[0].clone();
        let other = regions
            .iter()
            .find(|r| r.server != first.server)
            .expect("another server")
            .server
            .clone();
        admin
            .move_region(&first.encoded_name, Some(&other))
            .expect("move");
        let moved = admin.list_regions(&table_name("busy")).expect("regions");
        assert_eq!(
            moved
                .iter()
                .find(|r| r.encoded_name == first.encoded_name)
                .expect("still there")
                .server,
            other
        );
        load.wait_rows(200);

        // balancer: everything onto one server, then balanced back.
        for r in admin.list_regions(&table_name("busy")).expect("regions") {
            admin
                .move_region(&r.encoded_name, Some(&other))
                .expect("pile up");
        }
        assert_eq!(spread(&conn, "busy").len(), 1);
        assert!(admin.balance().expect("balancer"), "the balancer ran");
        let counts = spread(&conn, "busy");
        assert_eq!(counts.len(), 3, "balanced over every server: {counts:?}");
        load.wait_rows(200);

        // a fourth server joins and gets regions at the next balancer run.
        let joined = cluster.start_server("127.0.0.5").name.clone();
        assert!(admin.balance().expect("balancer"));
        let counts = spread(&conn, "busy");
        assert!(
            counts.get(&joined).copied().unwrap_or(0) >= 1,
            "the new server got regions: {counts:?}"
        );
        load.wait_rows(200);

        // a graceful stop moves the server's regions away first.
        let leaving = cluster.servers[0].name.clone();
        let status = cluster.stop_server(0);
        assert!(
            status.success(),
            "the region server stopped cleanly: {status}"
        );
        let counts = spread(&conn, "busy");
        assert!(
            !counts.contains_key(&leaving),
            "no region stays on a stopped server: {counts:?}"
        );
        load.wait_rows(200);

        // status: the servers' requests per second under the load (HBase's
        // requestsPerSecond, over whole 5 s windows).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let status = admin.cluster_status().expect("status").expect("a cluster");
            let rps: u64 = status.servers.iter().map(|s| s.requests_per_second).sum();
            if rps > 0 {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no requests per second under load: {status:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(500));
        }

        // split one region, then merge the daughters back.
        let before = admin
            .list_regions(&table_name("busy"))
            .expect("regions")
            .len();
        admin
            .split(&table_name("busy"), Some(b"8"))
            .expect("split at 8");
        let after = admin.list_regions(&table_name("busy")).expect("regions");
        assert_eq!(after.len(), before + 1, "one region became two");
        load.wait_rows(200);
        let low = after
            .iter()
            .find(|r| r.end_key.as_ref() == b"8")
            .expect("the lower daughter")
            .encoded_name
            .clone();
        let high = after
            .iter()
            .find(|r| r.start_key.as_ref() == b"8")
            .expect("the upper daughter")
            .encoded_name
            .clone();
        // As HBase, a region still referring to its parent's files merges only once a
        // compaction has rewritten them.
        admin
            .compact(&table_name("busy"), true)
            .expect("major compaction");
        admin.merge_regions(&low, &high).expect("merge");
        assert_eq!(
            admin
                .list_regions(&table_name("busy"))
                .expect("regions")
                .len(),
            before
        );
        load.wait_rows(200);

        let (acked, errors) = load.finish();
        assert!(
            errors.is_empty(),
            "clients saw errors: {:?}",
            &errors[..errors.len().min(10)]
        );
        let table = conn.table(&table_name("busy")).expect("table");
        let rows = scan_all(&table);
        for i in &acked {
            assert_eq!(
                rows.get(&row(*i)).map(|v| v.as_ref()),
                Some(format!("v{i}").as_bytes()),
                "acknowledged row {i}"
            );
        }
        assert!(acked.len() >= 1400, "{} rows written", acked.len());
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

#[test]
fn a_region_past_its_size_splits_by_itself_and_keeps_every_row() {
    let cluster = Cluster::start(1, 2);
    let outcome = std::panic::catch_unwind(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let mut descriptor = TableDescriptor::new(
            table_name("growing"),
            vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
        );
        descriptor.max_file_size_bytes = 256 << 10;
        descriptor.memstore_flush_size_bytes = 64 << 10;
        conn.admin()
            .create_table(&descriptor, &PreSplit::None)
            .expect("create");
        let table = conn.table(&table_name("growing")).expect("table");
        let value = Bytes::from(vec![b'x'; 200]);
        let puts: Vec<Put> = (0..4000u64)
            .map(|i| {
                Put::new(row(i)).add(
                    Bytes::from_static(b"f"),
                    Bytes::from_static(b"q"),
                    value.clone(),
                )
            })
            .collect();
        table.put_many(&puts).expect("puts");
        conn.admin().flush(&table_name("growing")).expect("flush");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut regions = 1;
        while regions < 2 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(200));
            regions = conn
                .admin()
                .list_regions(&table_name("growing"))
                .expect("regions")
                .len();
        }
        assert!(
            regions >= 2,
            "the master split the region by itself ({regions} regions)"
        );
        let rows = table
            .scan(&Scan::new())
            .expect("scan")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows");
        assert_eq!(rows.len(), 4000);

        // Once compactions rewrote the daughters' references, the catalog janitor removes
        // the parent: its record and its folder on the store.
        conn.admin()
            .compact(&table_name("growing"), true)
            .expect("major compaction");
        let folder = cluster.store.path().join("data/default/growing");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let _ = conn.admin().run_catalog_janitor().expect("janitor");
            let serving = conn
                .admin()
                .list_regions(&table_name("growing"))
                .expect("regions")
                .len();
            let folders = std::fs::read_dir(&folder)
                .expect("table folder")
                .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_dir()))
                .count();
            if folders == serving {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{folders} folders for {serving} regions"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        let rows = table
            .scan(&Scan::new())
            .expect("scan")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows");
        assert_eq!(rows.len(), 4000, "every row survives the parent's removal");
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
