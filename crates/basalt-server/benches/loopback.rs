//! Server figures over loopback: start-up time to the first served request, and put / get
//! latency (p50, p99) and throughput with 1 and 16 client threads — each against the same
//! operations on the embedded connection, measured in the same run, so the ratio shows
//! what the network path costs. Figures on a shared 2-core machine are noisy: read the
//! ratios.
//!
//! `cargo bench -p basalt-server --bench loopback [-- --ops N]` (N operations per client).

use basalt_api::{Connection, PreSplit, Table};
use basalt_client::RemoteConnection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_server::{BackgroundServer, ServerConfig};
use basalt_types::{Durability, FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn ops_per_client() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == "--ops")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(4000)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

struct Figures {
    ops_per_sec: f64,
    p50: Duration,
    p99: Duration,
}

/// Runs `op(thread, i)` `ops` times on each of `clients` threads.
fn measure(clients: usize, ops: usize, op: &(dyn Fn(usize, usize) + Sync)) -> Figures {
    let begun = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                s.spawn(move || {
                    (0..ops)
                        .map(|i| {
                            let t = Instant::now();
                            op(c, i);
                            t.elapsed()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("client thread"))
            .collect()
    });
    let elapsed = begun.elapsed();
    latencies.sort();
    Figures {
        ops_per_sec: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
    }
}

fn table(conn: &dyn Connection) -> Arc<dyn Table> {
    let name = TableName::parse("bench").expect("valid");
    let family = FamilyDescriptor::new("f").expect("valid");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::None,
        )
        .expect("create");
    conn.table(&name).expect("table")
}

fn row(c: usize, i: usize) -> String {
    format!("user{:012}", (c * 1_000_003 + i * 7919) % 10_000_000)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return; // built by `cargo test --all-targets`, run only by `cargo bench`
    }
    let ops = ops_per_client();
    println!("basalt-server loopback bench: {ops} ops per client, 100-byte values, SKIP_WAL puts");
    println!(
        "(shared 2-core machine: absolute figures are noisy; read the remote/embedded ratios)\n"
    );

    let mut startups = Vec::new();
    for _ in 0..5 {
        let dir = tempfile::tempdir().expect("temp dir");
        let begun = Instant::now();
        let db = Database::open(dir.path(), DbConfig::default()).expect("open");
        let server = BackgroundServer::start(
            Arc::new(EmbeddedConnection::new(db)),
            ServerConfig {
                port: 0,
                ..ServerConfig::default()
            },
        )
        .expect("start");
        let addr = server.local_addr().expect("listening").to_string();
        let remote = RemoteConnection::connect(&addr).expect("connect");
        remote.admin().list_namespaces().expect("first request");
        startups.push(begun.elapsed());
        drop(remote);
        server.shutdown().expect("shutdown");
    }
    startups.sort();
    println!(
        "start-up to first served request (empty data folder): median {:?}, max {:?}\n",
        startups[2], startups[4]
    );

    let remote_dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(remote_dir.path(), DbConfig::default()).expect("open");
    let server = BackgroundServer::start(
        Arc::new(EmbeddedConnection::new(db)),
        ServerConfig {
            port: 0,
            ..ServerConfig::default()
        },
    )
    .expect("start");
    let remote = RemoteConnection::connect(&server.local_addr().expect("listening").to_string())
        .expect("connect");
    let remote_table = table(&remote);
    let local_dir = tempfile::tempdir().expect("temp dir");
    let local = EmbeddedConnection::new(
        Database::open(local_dir.path(), DbConfig::default()).expect("open"),
    );
    let local_table = table(&local);

    println!(
        "{:<8} {:>7} {:>10} {:>12} {:>10} {:>10} {:>14} {:>9}",
        "op", "clients", "path", "ops/s", "p50 µs", "p99 µs", "p50 vs local", "vs empty"
    );
    let value = vec![7u8; 100];
    let admin = remote.admin();
    let name = remote_table.name().clone();
    for clients in [1, 16] {
        let per_client = (ops / clients).max(100);
        // The reference: the emptiest call there is (an existence check of the table), so
        // the get figure reads as a share of what the RPC path itself allows.
        let empty = measure(clients, per_client, &|_, _| {
            black_box(admin.table_exists(&name).expect("table_exists"));
        });
        println!(
            "{:<8} {:>7} {:>10} {:>12.0} {:>10.1} {:>10.1}",
            "empty",
            clients,
            "remote",
            empty.ops_per_sec,
            empty.p50.as_secs_f64() * 1e6,
            empty.p99.as_secs_f64() * 1e6,
        );
        for (name, is_put) in [("put", true), ("get", false)] {
            let mut local_p50 = Duration::ZERO;
            for (path, t) in [("embedded", &local_table), ("remote", &remote_table)] {
                let op = |c: usize, i: usize| {
                    if is_put {
                        let put = Put::new(row(c, i))
                            .add("f", "q", value.clone())
                            .durability(Durability::SkipWal);
                        t.put(&put).expect("put");
                    } else {
                        black_box(t.get(&Get::new(row(c, i))).expect("get"));
                    }
                };
                let f = measure(clients, per_client, &op);
                if path == "embedded" {
                    local_p50 = f.p50;
                }
                let ratio = f.p50.as_secs_f64() / local_p50.as_secs_f64().max(1e-9);
                println!(
                    "{:<8} {:>7} {:>10} {:>12.0} {:>10.1} {:>10.1} {:>13.1}× {:>9}",
                    name,
                    clients,
                    path,
                    f.ops_per_sec,
                    f.p50.as_secs_f64() * 1e6,
                    f.p99.as_secs_f64() * 1e6,
                    ratio,
                    if path == "remote" {
                        format!("{:.0}%", 100.0 * f.ops_per_sec / empty.ops_per_sec)
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    drop(remote_table);
    drop(remote);
    server.shutdown().expect("shutdown");
}
