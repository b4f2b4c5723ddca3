//! Times region moves in a running cluster: the first region of `--table` moved back and
//! forth between two region servers `--moves` times; prints p50 and p99 (a benchmark,
//! run by `scripts/bench-cluster.sh move`).
//!
//!     cargo run --release -p basalt-cli --example move_bench -- --connect HOST:PORT --table T --moves 20

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_types::TableName;
use std::time::Instant;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| default.to_string())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let conn = RemoteConnection::connect(&arg("--connect", "127.0.0.1:16000"))?;
    let table = TableName::parse(&arg("--table", "TestTable"))?;
    let moves: usize = arg("--moves", "20").parse()?;
    let admin = conn.admin();
    let status = admin
        .cluster_status()?
        .ok_or("not a cluster: a move needs two region servers")?;
    let servers: Vec<String> = status.servers.iter().map(|s| s.name.clone()).collect();
    if servers.len() < 2 {
        return Err("a move needs two region servers".into());
    }
    let region = admin
        .list_regions(&table)?
        .into_iter()
        .next()
        .ok_or("no region")?;
    let size_mb = (region.store_file_bytes + region.memstore_bytes) as f64 / (1 << 20) as f64;
    let mut at = region.server.clone();
    let mut took = Vec::with_capacity(moves);
    for _ in 0..moves {
        let to = servers
            .iter()
            .find(|s| **s != at)
            .ok_or("no other server")?
            .clone();
        let started = Instant::now();
        admin.move_region(&region.encoded_name, Some(&to))?;
        took.push(started.elapsed().as_secs_f64() * 1000.0);
        at = to;
    }
    took.sort_by(f64::total_cmp);
    let pick = |q: f64| took[((took.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "region move ({size_mb:.1} MiB in files and memstore at the start, {moves} moves): p50 {:.1} ms, p99 {:.1} ms, first {:.1} ms",
        pick(0.5),
        pick(0.99),
        took.first().copied().unwrap_or(0.0)
    );
    Ok(())
}
