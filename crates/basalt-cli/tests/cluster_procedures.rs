//! A master killed in the middle of a split or a merge (cluster-design §5.8 cases 7 and
//! 15), with real processes: the standby that takes over finds the procedure record and
//! finishes it, so the table never stays half-split.
//!
//! - Killed after the region server wrote the daughters, before the commit: the split is
//!   rolled back; the parent, which had stopped taking writes, takes them again.
//! - Killed after the commit: the split is rolled forward; the daughters serve, the
//!   parent is retired on its server.
//! - A merge killed after the merged region was written: rolled back likewise.
//! - Killed right after recording a dead server's regions CRASHED (crash recovery): the
//!   next master reopens them, each with the dead server's log.
//! - Killed with a new table's regions recorded OPENING, before asking the server: the
//!   next master drives them open.
//!
//! In each, every row written before reads back afterwards, and new writes succeed.
//! The dying master aborts at the named point (`BASALT_TEST_MASTER_CRASH_AT`).

use crate::support;

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

/// A cluster whose first (active) master dies at `point`, with a standby and `servers`
/// region servers.
fn cluster_dying_at(point: &str, servers: usize) -> (Cluster, String) {
    let mut cluster = Cluster::start(0, 0);
    let doomed = cluster
        .start_master_with_env(&[("BASALT_TEST_MASTER_CRASH_AT", point)])
        .addr
        .clone();
    cluster.start_master();
    for i in 0..servers {
        cluster.start_server(&format!("127.0.0.{}", i + 2));
    }
    (cluster, doomed)
}

/// Creates the table `t` through `master` (pre-split in two when `split_in_two`) and
/// writes `ROWS` rows.
fn fill(master: &str, split_in_two: bool) {
    let conn = RemoteConnection::connect(master).expect("connect");
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
}

/// Asks `master` for something in the background (its answer never comes: it dies).
fn ask_in_background(master: &str, ask: impl FnOnce(&RemoteConnection) + Send + 'static) {
    let master = master.to_string();
    std::thread::spawn(move || {
        if let Ok(conn) = RemoteConnection::connect(&master) {
            ask(&conn);
        }
    });
}

/// Waits until the doomed master (`masters[0]`) aborted at its crash point.
fn wait_aborted(cluster: &mut Cluster) {
    let deadline = Instant::now() + Duration::from_secs(40);
    let status = loop {
        if let Some(status) = cluster.masters[0].child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the master never reached its crash point"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success(), "{status:?}");
    assert!(
        master_log(cluster, 0).contains("aborting here"),
        "{}",
        master_log(cluster, 0)
    );
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
    assert_eq!(got.value(b"f", b"q"), Some(&b"after"[..]));
}

/// Waits as [`settled`], checks the rows, and that the new master's log says `says`.
fn finished(cluster: &Cluster, count: usize, says: &str) -> RemoteConnection {
    let conn = settled(cluster, count);
    rows_read_and_take_writes(&conn);
    let log = master_log(cluster, 1);
    assert!(log.contains(says), "{log}");
    conn
}

fn master_log(cluster: &Cluster, i: usize) -> String {
    std::fs::read_to_string(&cluster.masters[i].log).unwrap_or_default()
}

/// Runs `body`, printing every process's log if it panics.
fn with_logs(cluster: &Cluster, body: impl FnOnce()) {
    if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        cluster.fail_with_logs(panic);
    }
}

fn split_dying_at(point: &str) -> Cluster {
    let (mut cluster, doomed) = cluster_dying_at(point, 1);
    fill(&doomed, false);
    ask_in_background(&doomed, |conn| {
        let _ = conn
            .admin()
            .split(&table_name("t"), Some(row(ROWS / 2).as_bytes()));
    });
    wait_aborted(&mut cluster);
    cluster
}

#[test]
fn a_master_killed_after_the_daughters_were_written_rolls_the_split_back() {
    let cluster = split_dying_at("split.written");
    with_logs(&cluster, || {
        finished(&cluster, 1, "rolled back");
    });
}

#[test]
fn a_master_killed_after_the_split_committed_rolls_it_forward() {
    let cluster = split_dying_at("split.committed");
    with_logs(&cluster, || {
        let conn = finished(&cluster, 2, "rolled forward");
        let now = regions(&conn, "t");
        assert_eq!(now[0].end_key, Bytes::from(row(ROWS / 2)), "{now:?}");
    });
}

#[test]
fn a_master_killed_after_the_merged_region_was_written_rolls_the_merge_back() {
    let (mut cluster, doomed) = cluster_dying_at("merge.written", 1);
    fill(&doomed, true);
    let conn = RemoteConnection::connect(&doomed).expect("connect");
    let two = regions(&conn, "t");
    assert_eq!(two.len(), 2);
    let (a, b) = (two[0].encoded_name.clone(), two[1].encoded_name.clone());
    ask_in_background(&doomed, move |conn| {
        let _ = conn.admin().merge_regions(&a, &b);
    });
    wait_aborted(&mut cluster);
    with_logs(&cluster, || {
        finished(&cluster, 2, "rolled back");
    });
}

#[test]
fn a_master_killed_after_recording_a_dead_servers_regions_finishes_their_recovery() {
    let (mut cluster, doomed) = cluster_dying_at("scp.crashed", 2);
    fill(&doomed, true);
    // The rows are only in the servers' logs; one server dies, then the master recording
    // its regions CRASHED dies too.
    let conn = RemoteConnection::connect(&doomed).expect("connect");
    let holder = regions(&conn, "t")[0].server.clone();
    let index = cluster
        .servers
        .iter()
        .position(|s| s.name == holder)
        .expect("a server of ours");
    let mut dead = cluster.servers.remove(index);
    dead.child.kill().expect("kill -9");
    let _ = dead.child.wait();
    wait_aborted(&mut cluster);
    with_logs(&cluster, || {
        let conn = settled(&cluster, 2);
        rows_read_and_take_writes(&conn);
        let now = regions(&conn, "t");
        assert!(now.iter().all(|r| r.server != holder), "{now:?}");
    });
}

#[test]
fn a_master_killed_while_regions_were_opening_drives_them_open() {
    let (mut cluster, doomed) = cluster_dying_at("assign.opening", 1);
    // The table's regions are recorded OPENING, then the master dies before it asks the
    // server to open them.
    let descriptor = TableDescriptor::new(
        table_name("t"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    );
    let asker = doomed.clone();
    ask_in_background(&asker, move |conn| {
        let _ = conn.admin().create_table(&descriptor, &PreSplit::None);
    });
    wait_aborted(&mut cluster);
    with_logs(&cluster, || {
        let conn = settled(&cluster, 1);
        let table = conn.table(&table_name("t")).expect("table");
        for i in 0..ROWS {
            table.put(&put(&row(i), "after")).expect("put");
        }
        let got = table.get(&Get::new(Bytes::from(row(0)))).expect("get");
        assert_eq!(got.value(b"f", b"q"), Some(&b"after"[..]));
    });
}
