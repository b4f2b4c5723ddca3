//! The assignment planner's wall time at scale (issue #16): 10,000 and 100,000 regions
//! over 100 and 1,000 servers, for the three questions the master asks it.
//!
//! - `fresh`: every region of 100 tables on no server ([`planner::assign`], a cluster's
//!   first start or a rebuilt catalog);
//! - `failover`: 10% of the servers gone, their regions placed on the others
//!   ([`planner::assign`] after a mass crash);
//! - `balance`: 10% of the servers new and empty, one balancer run
//!   ([`planner::balance`], default settings: at most 10% of the regions move).
//!
//! ```text
//! cargo run --release -p basalt-master --bin planner-timing
//! ```
//!
//! Prints one line per case: the sizes, the decisions and the wall time (best of runs).

use basalt_master::planner::{self, BalanceConfig, ClusterView, RegionView, ServerView};
use std::time::{Duration, Instant};

const TABLES: usize = 100;

fn server(i: usize) -> String {
    format!("rs{i:05},16020,1")
}

/// `regions` regions of [`TABLES`] tables, region `r` on server `r % on` (none when `on`
/// is 0), with a request count that varies.
fn view(servers: usize, regions: usize, on: usize) -> ClusterView {
    ClusterView {
        servers: (0..servers)
            .map(|i| ServerView {
                name: server(i),
                accepting: true,
                requests: 0,
            })
            .collect(),
        regions: (0..regions)
            .map(|r| RegionView {
                encoded: format!("{r:032x}"),
                table: format!("t{:03}", r % TABLES),
                server: (on > 0).then(|| server(r % on)),
                requests: (r as u64 * 7919) % 1000,
            })
            .collect(),
    }
}

/// The best wall time of a few runs of `run`, and what its last run returned.
fn time<T>(mut run: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    let runs = 3;
    for _ in 0..runs {
        let started = Instant::now();
        let result = run();
        best = best.min(started.elapsed());
        out = Some(result);
    }
    (best, out.expect("at least one run"))
}

fn main() {
    println!("case      regions  servers  decisions  wall");
    for regions in [10_000, 100_000] {
        for servers in [100, 1_000] {
            let fresh = view(servers, regions, 0);
            let (took, decisions) = time(|| planner::assign(&fresh));
            report("fresh", regions, servers, decisions.len(), took);

            // The last 10% of the servers are gone: their regions point at dead servers.
            let mut failover = view(servers, regions, servers);
            failover.servers.truncate(servers - servers / 10);
            let (took, decisions) = time(|| planner::assign(&failover));
            report("failover", regions, servers, decisions.len(), took);

            // The last 10% of the servers are new: every region is on the others.
            let balance = view(servers, regions, servers - servers / 10);
            let config = BalanceConfig::default();
            let (took, decisions) = time(|| planner::balance(&balance, &config));
            report("balance", regions, servers, decisions.len(), took);
        }
    }
}

fn report(case: &str, regions: usize, servers: usize, decisions: usize, took: Duration) {
    println!(
        "{case:<9} {regions:>7}  {servers:>7}  {decisions:>9}  {:.3} s",
        took.as_secs_f64()
    );
}
