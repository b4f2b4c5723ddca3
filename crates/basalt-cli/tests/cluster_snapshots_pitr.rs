//! Snapshots through a cluster's master with real processes (etcd, masters, two region
//! servers, a shared store folder): a table with regions on both servers is snapshotted,
//! cloned, split and merged back, and restored rolled forward to a time between two known
//! writes and to a time after the merge (the daughters' edits read too); and a master
//! killed (abort at a crash point) in the middle of a point-in-time restore, whose
//! standby finishes it: the table serves the snapshot plus the edits up to the time,
//! never half of it. The table stays disabled throughout a restore and after it (HBase's
//! `RestoreSnapshotProcedure`), whichever master finishes it.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, SplitAlgorithm, TableDescriptor};
use bytes::Bytes;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{check_rows, fill_range, regions, row, spread, table_name, with_logs};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

/// Waits (on the clock itself) until the wall clock has passed `ms`.
fn after(ms: i64) {
    while now_ms() <= ms {
        std::hint::spin_loop();
    }
}

/// `t`: 4 regions, keeping its logs for an hour.
fn create(conn: &RemoteConnection) {
    let mut d = TableDescriptor::new(
        table_name("t"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    );
    d.metadata
        .insert(TableDescriptor::WAL_RETENTION_SECS.into(), "3600".into());
    let split = PreSplit::Count {
        regions: 4,
        algorithm: SplitAlgorithm::HexString,
    };
    conn.admin().create_table(&d, &split).expect("create");
}

/// Rows `0..present` read back, and rows `present..end` do not exist.
fn exactly(conn: &RemoteConnection, name: &str, present: u64, end: u64) {
    check_rows(conn, name, present);
    let table = conn.table(&table_name(name)).expect("table");
    for i in present..end {
        let got = table.get(&Get::new(row(i))).expect("get");
        assert!(got.is_empty(), "{name}: row {i} should not be there");
    }
}

/// Rows `rows` (as `fill_range` writes them) with cells the client stamped `ts`.
fn stamped(conn: &RemoteConnection, rows: std::ops::Range<u64>, ts: i64) {
    let table = conn.table(&table_name("t")).expect("table");
    for i in rows {
        let put = Put::new(row(i)).add_at("f", "q", ts, format!("v{i}"));
        table.put(&put).expect("put");
    }
}

/// Writes rows 0..40, snapshots `s`, writes rows 40..60 and rows 100..104 stamped in
/// 1970, notes the time, writes rows 60..80 and rows 104..108 stamped just before it.
/// Returns the time.
fn history(conn: &RemoteConnection) -> i64 {
    fill_range(conn, "t", 0..40);
    conn.admin()
        .snapshot(&table_name("t"), "s", &Default::default())
        .expect("snapshot");
    fill_range(conn, "t", 40..60);
    stamped(conn, 100..104, 5);
    let between = now_ms();
    after(between);
    fill_range(conn, "t", 60..80);
    stamped(conn, 104..108, between - 1);
    between
}

/// What a restore to `history`'s time holds: rows 0..60 and the rows stamped in 1970 (they
/// were logged before the time), not the rest, whatever their cells' timestamps say.
fn restored_to_the_time(conn: &RemoteConnection) {
    exactly(conn, "t", 60, 80);
    let table = conn.table(&table_name("t")).expect("table");
    for i in 100..108 {
        let got = table.get(&Get::new(row(i))).expect("get");
        match i < 104 {
            true => assert_eq!(
                got.value_bytes(b"f", b"q"),
                Some(Bytes::from(format!("v{i}"))),
                "row {i}, stamped in 1970, logged before the time"
            ),
            false => assert!(got.is_empty(), "row {i}, logged after the time"),
        }
    }
}

/// What a watcher saw: how often it asked whether `t` was enabled, and how often it was.
struct Seen {
    polls: u32,
    enabled: u32,
}

/// A thread asking the master whether `t` is enabled until told to stop.
struct Watcher {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Seen>,
}

fn watch_enabled(masters: &str) -> Watcher {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let conn = RemoteConnection::connect(masters).expect("connect");
    let stopping = stop.clone();
    let thread = std::thread::spawn(move || {
        let mut seen = Seen {
            polls: 0,
            enabled: 0,
        };
        let admin = conn.admin();
        loop {
            let done = stopping.load(std::sync::atomic::Ordering::Acquire);
            if admin.is_table_enabled(&table_name("t")).expect("state") {
                seen.enabled += 1;
            }
            seen.polls += 1;
            if done {
                return seen;
            }
        }
    });
    Watcher { stop, thread }
}

impl Watcher {
    fn finish(self) -> Seen {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        self.thread.join().expect("watcher")
    }
}

/// Splits the region of `t` holding `60000000` there, writes rows 80..90,
/// merges the daughters back (once compacted), writes rows 90..95; returns the time after.
fn split_and_merge_back(conn: &RemoteConnection) -> i64 {
    let admin = conn.admin();
    let t = table_name("t");
    admin.split(&t, Some(b"60000000")).expect("split");
    fill_range(conn, "t", 80..90);
    let daughters: Vec<String> = regions(conn, "t")
        .into_iter()
        .filter(|r| r.end_key.as_ref() == b"60000000" || r.start_key.as_ref() == b"60000000")
        .map(|r| r.encoded_name)
        .collect();
    assert_eq!(daughters.len(), 2, "{daughters:?}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Err(e) = admin.merge_regions(&daughters[0], &daughters[1]) {
        assert!(Instant::now() < deadline, "merge: {e}");
        admin.compact(&t, true).expect("compact");
        std::thread::sleep(Duration::from_millis(100));
    }
    fill_range(conn, "t", 90..95);
    let late = now_ms();
    after(late);
    late
}

#[test]
fn a_two_server_table_is_snapshotted_cloned_and_restored_to_a_point_in_time() {
    let cluster = Cluster::start(1, 2);
    with_logs(&cluster, || {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        create(&conn);
        let deadline = Instant::now() + Duration::from_secs(30);
        while spread(&conn, "t").len() < 2 {
            assert!(
                Instant::now() < deadline,
                "regions on both servers: {:?}",
                spread(&conn, "t")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let between = history(&conn);

        let admin = conn.admin();
        admin
            .clone_snapshot("s", &table_name("copy"))
            .expect("clone");
        exactly(&conn, "copy", 40, 80);
        let late = split_and_merge_back(&conn);

        admin.disable_table(&table_name("t")).expect("disable");
        let watching = watch_enabled(&cluster.masters_arg());
        admin
            .restore_snapshot_to("s", between)
            .expect("restore to a point in time");
        let seen = watching.finish();
        assert!(seen.polls > 0, "the watcher asked the master");
        assert_eq!(
            seen.enabled, 0,
            "the table stayed disabled during the restore"
        );
        assert!(
            !admin.is_table_enabled(&table_name("t")).expect("state"),
            "the restore leaves the table disabled"
        );
        admin.enable_table(&table_name("t")).expect("enable");
        restored_to_the_time(&conn);

        // To after the split and the merge: the daughters' and the merged region's edits
        // (under their own names in the servers' logs) land in the snapshot's regions.
        admin.disable_table(&table_name("t")).expect("disable");
        admin
            .restore_snapshot_to("s", late)
            .expect("restore across a split");
        admin.enable_table(&table_name("t")).expect("enable");
        exactly(&conn, "t", 95, 100);
        assert_eq!(regions(&conn, "t").len(), 4, "the snapshot's boundaries");

        // Without a time: the snapshot alone.
        admin.disable_table(&table_name("t")).expect("disable");
        admin.restore_snapshot("s").expect("restore");
        admin.enable_table(&table_name("t")).expect("enable");
        exactly(&conn, "t", 40, 80);
        exactly(&conn, "copy", 40, 80);
    });
}

#[test]
fn a_master_killed_mid_restore_leaves_the_restore_finished_by_its_standby() {
    let mut cluster = Cluster::start(0, 0);
    cluster.start_master_with_env_and_args(
        &[("BASALT_TEST_MASTER_CRASH_AT", "restore.regions_closed")],
        &["--lease-ttl", "3"],
    );
    cluster.start_server("127.0.0.2");
    cluster.start_server("127.0.0.3");
    let conn = RemoteConnection::connect(&cluster.masters[0].addr).expect("connect");
    create(&conn);
    let between = history(&conn);
    conn.admin()
        .disable_table(&table_name("t"))
        .expect("disable");
    cluster.start_master_with_env_and_args(&[], &["--lease-ttl", "3"]);
    let doomed = cluster.masters[0].addr.clone();
    std::thread::spawn(move || {
        if let Ok(conn) = RemoteConnection::connect(&doomed) {
            let _ = conn.admin().restore_snapshot_to("s", between);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while cluster.masters[0].child.try_wait().expect("wait").is_none() {
        assert!(
            Instant::now() < deadline,
            "the master never reached its crash point"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let log = |i: usize| std::fs::read_to_string(&cluster.masters[i].log).unwrap_or_default();
    assert!(log(0).contains("aborting here"), "{}", log(0));
    while !log(1).contains("RestoreSnapshotProcedure rolled forward") {
        assert!(
            Instant::now() < deadline,
            "the standby never finished the restore:\n{}",
            log(1)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    with_logs(&cluster, || {
        let conn = RemoteConnection::connect(&cluster.masters[1].addr).expect("connect");
        let admin = conn.admin();
        assert!(
            !admin.is_table_enabled(&table_name("t")).expect("state"),
            "the standby's restore leaves the table disabled"
        );
        admin.enable_table(&table_name("t")).expect("enable");
        // The restored regions, written before the procedure began, hold the snapshot and
        // the edits up to the time: all of it or (rolled back) the old table, never half.
        restored_to_the_time(&conn);
    });
}
