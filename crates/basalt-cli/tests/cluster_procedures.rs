//! A master killed in the middle of a split or a merge (cluster-design §5.8 cases 7 and
//! 15), with real processes: the standby that takes over finds the procedure record and
//! finishes it, so the table never stays half-split.
//!
//! - Killed after the region server wrote the daughters, before the commit: the split is
//!   rolled back; the parent, which had stopped taking writes, takes them again.
//! - Killed after the commit: the split is rolled forward; the daughters serve, the
//!   parent is retired on its server.
//! - A merge killed after the merged region was written: rolled back likewise.
//!
//! In each, every row written before reads back afterwards, and new writes succeed.
//! The dying master aborts at the named point (`BASALT_TEST_MASTER_CRASH_AT`).

mod support;

use basalt_api::{Connection, PreSplit, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor};
use bytes::Bytes;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{regions, table_name};

const ROWS: usize = 60;

fn put(row: &str, value: &str) -> Put {
    Put::new(Bytes::copy_from_slice(row.as_bytes())).add(
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        Bytes::copy_from_slice(value.as_bytes()),
    )
}

fn row(i: usize) -> String {
    format!("row{i:03}")
}

/// A cluster whose first (active) master dies at `point`, with a standby and one server;
/// the table `t` holds `ROWS` rows, pre-split in two when `split_in_two`.
fn cluster_dying_at(point: &str, split_in_two: bool) -> (Cluster, String) {
    let mut cluster = Cluster::start(0, 0);
    let doomed = cluster
        .start_master_with_env(&[("BASALT_TEST_MASTER_CRASH_AT", point)])
        .addr
        .clone();
    cluster.start_master();
    cluster.start_server("127.0.0.2");
    let conn = RemoteConnection::connect(&doomed).expect("connect");
    let descriptor = TableDescriptor::new(
        table_name("t"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    );
    let split = match split_in_two {
        true => PreSplit::Keys(vec![Bytes::from(row(ROWS / 2))]),
        false => PreSplit::None,
    };
    conn.admin()
        .create_table(&descriptor, &split)
        .expect("create");
    let table = conn.table(&table_name("t")).expect("table");
    for i in 0..ROWS {
        table.put(&put(&row(i), "before")).expect("put");
    }
    (cluster, doomed)
}

/// Waits until the standby is active and every region of `t` is open, with `count`
/// regions; returns a connection to the standby.
fn settled(cluster: &Cluster, count: usize) -> RemoteConnection {
    let standby = cluster.masters[1].addr.clone();
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        if let Ok(conn) = RemoteConnection::connect(&standby) {
            if let Ok(now) = conn.admin().list_regions(&table_name("t")) {
                let open = now.iter().filter(|r| r.state == RegionState::Open).count();
                if open == count && now.len() == count {
                    return conn;
                }
            }
        }
        assert!(Instant::now() < deadline, "the table never settled");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every row reads back, and a new write to each succeeds and reads back.
fn rows_read_and_take_writes(conn: &RemoteConnection) {
    let table = conn.table(&table_name("t")).expect("table");
    for i in 0..ROWS {
        let got = table.get(&Get::new(Bytes::from(row(i)))).expect("get");
        assert!(!got.is_empty(), "{} lost", row(i));
    }
    for i in 0..ROWS {
        table
            .put(&put(&row(i), "after"))
            .unwrap_or_else(|e| panic!("{} refuses writes: {e}", row(i)));
    }
    let got = table.get(&Get::new(Bytes::from(row(0)))).expect("get");
    assert_eq!(
        got.value(b"f", b"q").map(|v| v.as_ref()),
        Some(&b"after"[..])
    );
}

fn master_log(cluster: &Cluster, i: usize) -> String {
    std::fs::read_to_string(&cluster.masters[i].log).unwrap_or_default()
}

/// Runs `body`, printing every process's log if it panics.
fn with_logs(cluster: &Cluster, body: impl FnOnce()) {
    if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        eprintln!("{}", cluster.logs());
        std::panic::resume_unwind(panic);
    }
}

fn split_dying_at(point: &str) -> (Cluster, Result<(), basalt_api::ApiError>) {
    let (cluster, doomed) = cluster_dying_at(point, false);
    let conn = RemoteConnection::connect(&doomed).expect("connect");
    let asked = conn
        .admin()
        .split(&table_name("t"), Some(row(ROWS / 2).as_bytes()));
    (cluster, asked)
}

#[test]
fn a_master_killed_after_the_daughters_were_written_rolls_the_split_back() {
    let (mut cluster, asked) = split_dying_at("split.written");
    with_logs(&cluster, || {
        assert!(asked.is_err(), "the master died answering");
        let conn = settled(&cluster, 1);
        rows_read_and_take_writes(&conn);
        assert!(
            master_log(&cluster, 1).contains("rolled back"),
            "{}",
            master_log(&cluster, 1)
        );
    });
    let _ = cluster.masters[0].child.wait();
}

#[test]
fn a_master_killed_after_the_split_committed_rolls_it_forward() {
    let (mut cluster, asked) = split_dying_at("split.committed");
    with_logs(&cluster, || {
        assert!(asked.is_err(), "the master died answering");
        let conn = settled(&cluster, 2);
        rows_read_and_take_writes(&conn);
        let now = regions(&conn, "t");
        assert_eq!(now[0].end_key, Bytes::from(row(ROWS / 2)), "{now:?}");
        assert!(
            master_log(&cluster, 1).contains("rolled forward"),
            "{}",
            master_log(&cluster, 1)
        );
    });
    let _ = cluster.masters[0].child.wait();
}

#[test]
fn a_master_killed_after_the_merged_region_was_written_rolls_the_merge_back() {
    let (mut cluster, doomed) = cluster_dying_at("merge.written", true);
    with_logs(&cluster, || {
        let conn = RemoteConnection::connect(&doomed).expect("connect");
        let two = regions(&conn, "t");
        assert_eq!(two.len(), 2);
        let asked = conn
            .admin()
            .merge_regions(&two[0].encoded_name, &two[1].encoded_name);
        assert!(asked.is_err(), "the master died answering");
        let conn = settled(&cluster, 2);
        rows_read_and_take_writes(&conn);
        assert!(
            master_log(&cluster, 1).contains("rolled back"),
            "{}",
            master_log(&cluster, 1)
        );
    });
    let _ = cluster.masters[0].child.wait();
}
