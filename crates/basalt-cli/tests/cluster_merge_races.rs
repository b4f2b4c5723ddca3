//! §5.8 case 15, second half (issue #16): a merge colliding with balancer moves, with real
//! processes (3 etcd members, a master, 3 region servers).
//!
//! Each round starts, at the same instant, a merge of two adjacent regions, a move of each
//! of them to another server and a balancer run; then splits the table back into two
//! regions for the next round. After every round:
//!
//! - exactly one of them won for each region: the merge committed (one region spans both
//!   ranges, the two are gone) or it did not (both still there), never half;
//! - every region of the table is open, on one server: the servers together report as
//!   many regions of the table as the catalog names (a retired region opened again, or one
//!   opened on two servers, would count twice);
//! - the catalog and the servers agree (`hbck` finds nothing);
//! - every row reads back.
//!
//! Before the fix this found a real bug: a move queued behind a merge (both wait for the
//! master's procedure lock) ran after the merge had retired its region and opened the
//! retired region again beside the merged one — three regions served where the catalog
//! named one. A move (and a merge) now checks its regions under the lock: a region merged
//! or split away meanwhile is refused (`DoNotRetryIOException`), a merge whose regions
//! moved meanwhile is refused as in transition (retried).

use crate::support;

use basalt_api::{Connection, RegionReport, RegionState};
use basalt_client::RemoteConnection;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::damage::http_get;
use support::tables::{self, check_rows, fill, regions, table_name, with_logs};

const TABLE: &str = "mergerace";
const ROWS: u64 = 300;
const ROUNDS: usize = 12;

/// The table's regions once every one is open and the servers report exactly them.
fn settled(cluster: &Cluster, conn: &RemoteConnection, what: &str) -> Vec<RegionReport> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = regions(conn, TABLE);
        let open = now.iter().all(|r| r.state == RegionState::Open);
        let hosted = hosted(cluster);
        if open && hosted == now.len() {
            return now;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: never settled: {hosted} regions hosted by the servers, catalog {now:#?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How many regions of the table the region servers say they serve, all together.
fn hosted(cluster: &Cluster) -> usize {
    let sample = format!("basalt_table_regions{{table=\"{TABLE}\"}} ");
    cluster
        .servers
        .iter()
        .map(|s| {
            let web = s.web.as_deref().expect("a region server's web UI");
            let response = http_get(web, "/metrics", "text/plain");
            response
                .lines()
                .find_map(|l| l.strip_prefix(&sample))
                .map_or(0, |v| v.trim().parse::<f64>().expect("a number") as usize)
        })
        .sum()
}

/// The key ranges of `regions` cover the whole table once, in order.
fn covers_the_table(regions: &[RegionReport]) {
    let mut sorted: Vec<&RegionReport> = regions.iter().collect();
    sorted.sort_by(|a, b| a.start_key.cmp(&b.start_key));
    assert!(sorted.first().is_some_and(|r| r.start_key.is_empty()));
    assert!(sorted.last().is_some_and(|r| r.end_key.is_empty()));
    for pair in sorted.windows(2) {
        assert_eq!(pair[0].end_key, pair[1].start_key, "{sorted:#?}");
    }
}

#[test]
fn a_merge_racing_moves_and_the_balancer_wins_whole_or_not_at_all() {
    let cluster = Cluster::start(1, 3);
    let conn = RemoteConnection::connect(&cluster.masters[0].addr).expect("connect");
    with_logs(&cluster, || {
        tables::create(&conn, TABLE, 2);
        fill(&conn, TABLE, ROWS);
        let servers: Vec<String> = cluster.servers.iter().map(|s| s.name.clone()).collect();
        let mut merged_rounds = 0;
        for round in 0..ROUNDS {
            // Rewritten without references to a parent's files: only then can they merge.
            conn.admin()
                .compact(&table_name(TABLE), true)
                .expect("major compaction");
            let before = settled(&cluster, &conn, "before the race");
            assert_eq!(before.len(), 2, "round {round}: {before:#?}");
            let mut pair = before.clone();
            pair.sort_by(|a, b| a.start_key.cmp(&b.start_key));
            let (low, high) = (pair[0].clone(), pair[1].clone());
            // Each region moves to a server it is not on (a different one each round).
            let elsewhere = |r: &RegionReport, k: usize| {
                let others: Vec<&String> = servers.iter().filter(|s| **s != r.server).collect();
                others[(round + k) % others.len()].clone()
            };
            let (low_to, high_to) = (elsewhere(&low, 0), elsewhere(&high, 1));
            let start = Arc::new(Barrier::new(4));
            let addr = cluster.masters[0].addr.clone();
            let racer = |job: Box<dyn FnOnce(&RemoteConnection) -> String + Send>| {
                let (start, addr) = (start.clone(), addr.clone());
                std::thread::spawn(move || {
                    let conn = RemoteConnection::connect(&addr).expect("connect");
                    start.wait();
                    job(&conn)
                })
            };
            let (l, h) = (low.encoded_name.clone(), high.encoded_name.clone());
            let merge = racer(Box::new(move |c| {
                format!("merge: {:?}", c.admin().merge_regions(&l, &h))
            }));
            // The moves start with the merge in some rounds, a little into it in others
            // (while it holds the procedure lock).
            let lag = Duration::from_millis([0, 30, 80][round % 3]);
            let l = low.encoded_name.clone();
            let move_low = racer(Box::new(move |c| {
                std::thread::sleep(lag);
                format!("move low: {:?}", c.admin().move_region(&l, Some(&low_to)))
            }));
            let h = high.encoded_name.clone();
            let move_high = racer(Box::new(move |c| {
                std::thread::sleep(lag / 2);
                format!("move high: {:?}", c.admin().move_region(&h, Some(&high_to)))
            }));
            let balance = racer(Box::new(|c| format!("balance: {:?}", c.admin().balance())));
            let outcomes: Vec<String> = [merge, move_low, move_high, balance]
                .into_iter()
                .map(|t| t.join().expect("a racer panicked"))
                .collect();

            eprintln!("round {round}: {outcomes:?}");
            let after = settled(&cluster, &conn, &format!("round {round}: {outcomes:?}"));
            covers_the_table(&after);
            let names: Vec<&str> = after.iter().map(|r| r.encoded_name.as_str()).collect();
            let kept = [&low, &high]
                .iter()
                .filter(|r| names.contains(&r.encoded_name.as_str()))
                .count();
            match after.len() {
                // The merge won: neither parent is served any more.
                1 => {
                    assert_eq!(kept, 0, "round {round}: {after:#?}");
                    assert!(outcomes[0] == "merge: Ok(())", "{outcomes:?}");
                    merged_rounds += 1;
                }
                // It lost: both parents still serve their own halves.
                2 => assert_eq!(kept, 2, "round {round}: {outcomes:?} {after:#?}"),
                n => panic!("round {round}: {n} regions after one merge: {after:#?}"),
            }
            let health = conn.admin().cluster_health().expect("hbck");
            assert_eq!(health.problem_count(), 0, "round {round}: {health:#?}");
            check_rows(&conn, TABLE, ROWS);

            if after.len() == 1 {
                // Split again at a key that changes each round, for the next race.
                let key = format!("{:x}", 4 + round % 8);
                conn.admin()
                    .compact(&table_name(TABLE), true)
                    .expect("major compaction");
                conn.admin()
                    .split(&table_name(TABLE), Some(key.as_bytes()))
                    .expect("split");
                let deadline = Instant::now() + Duration::from_secs(30);
                while regions(&conn, TABLE).len() != 2 {
                    assert!(Instant::now() < deadline, "the split never showed");
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        eprintln!("merges that won: {merged_rounds} of {ROUNDS}");
        assert!(merged_rounds > 0, "no merge ever won: nothing raced");
        check_rows(&conn, TABLE, ROWS);
    });
}
