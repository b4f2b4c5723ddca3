//! Measures what a durable commit costs: one-put transactions, one at a time, against a
//! `LocalCoordinator::open` folder (each synced before it returns), then the same against
//! the in-memory one. Prints commits per second and the mean latency.
//!
//! `cargo run --release -p basalt-coord --example durable_commit_rate [DIR] [COMMITS]`
//! (DIR defaults to a temporary folder under the system's temp dir; point it at the disk
//! the standalone data folder lives on).

use basalt_coord::{Coordinator, LocalCoordinator, Op, Txn};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = args
        .next()
        .map_or_else(|| temp.path().join("coord"), Into::into);
    let commits: u32 = args.next().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let durable = LocalCoordinator::open(&dir).expect("the folder opens");
    let memory = LocalCoordinator::new();
    for (name, coord) in [("durable", &durable), ("in memory", &memory)] {
        let start = Instant::now();
        for i in 0..commits {
            let txn = Txn {
                success: vec![Op::put(format!("bench/{}", i % 512), vec![b'v'; 100])],
                ..Txn::default()
            };
            runtime.block_on(coord.txn(txn)).expect("commit");
        }
        let elapsed = start.elapsed();
        println!(
            "{name}: {commits} commits in {elapsed:?}: {:.0} commits/s, {:.1} us each",
            f64::from(commits) / elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * 1e6 / f64::from(commits)
        );
    }
}
