//! HBase's native RPC against Basalt's gRPC path, in the same run, over one database: put,
//! get and scan throughput from one client thread over loopback, and the same operations
//! per CPU-second of the serving threads (`hbase-rpc` for the native server,
//! `basalt-server` for gRPC; read from /proc, so Linux only), which is what the protocol
//! costs the server. Gets and scans run twice on the native path: with cells inline (a
//! client that names no codec) and in cell blocks (one that names `KeyValueCodec`, as
//! the Java client does). Figures on a shared 2-core machine are noisy: read the ratios.
//!
//! `cargo bench -p basalt-hbase --bench native_vs_grpc [-- --ops N]`

use basalt_api::{Connection, PreSplit, Table};
use basalt_client::RemoteConnection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_hbase::client::RpcClient;
use basalt_hbase::{pb, HbaseConfig};
use basalt_server::{BackgroundServer, ServerConfig};
use basalt_types::{Durability, FamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn ops() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == "--ops")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(5000)
}

/// CPU seconds used so far by this process's threads whose name starts with `prefix`.
fn cpu_seconds(prefix: &str) -> f64 {
    let ticks_per_second = 100.0; // USER_HZ on Linux
    let mut total = 0u64;
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        if !stat[open + 1..close].starts_with(prefix) {
            continue;
        }
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        // utime and stime: fields 14 and 15 of stat, 11 and 12 after the name.
        let utime: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0);
        let stime: u64 = fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
        total += utime + stime;
    }
    total as f64 / ticks_per_second
}

struct Figure {
    ops_per_sec: f64,
    per_cpu_second: f64,
}

fn measure(n: usize, threads: &str, mut op: impl FnMut(usize)) -> Figure {
    let cpu = cpu_seconds(threads);
    let begun = Instant::now();
    for i in 0..n {
        op(i);
    }
    let elapsed = begun.elapsed().as_secs_f64();
    let used = (cpu_seconds(threads) - cpu).max(0.01);
    Figure {
        ops_per_sec: n as f64 / elapsed,
        per_cpu_second: n as f64 / used,
    }
}

fn row(i: usize) -> Bytes {
    Bytes::from(format!("user{:012}", (i * 7919) % 10_000_000))
}

fn native_put(region: &Bytes, i: usize, value: &Bytes) -> pb::MutateRequest {
    pb::MutateRequest {
        region: pb::RegionSpecifier {
            r#type: 1,
            value: region.clone(),
        },
        mutation: pb::MutationProto {
            row: Some(row(i)),
            mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
            column_value: vec![pb::mutation_proto::ColumnValue {
                family: Bytes::from_static(b"f"),
                qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from_static(b"q")),
                    value: Some(value.clone()),
                    timestamp: None,
                    delete_type: None,
                }],
            }],
            durability: Some(pb::mutation_proto::Durability::SkipWal as i32),
            ..Default::default()
        },
        condition: None,
        nonce_group: None,
    }
}

fn native_scan(region: &Bytes, rows: u32) -> pb::ScanRequest {
    pb::ScanRequest {
        region: Some(pb::RegionSpecifier {
            r#type: 1,
            value: region.clone(),
        }),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(rows),
        close_scanner: Some(true),
        limit_of_rows: Some(rows),
        ..Default::default()
    }
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return; // built by `cargo test --all-targets`, run only by `cargo bench`
    }
    let n = ops();
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db));
    let name = TableName::parse("bench").expect("valid");
    let family = FamilyDescriptor::new("f").expect("valid");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::None,
        )
        .expect("create");
    let grpc = BackgroundServer::start(
        conn.clone(),
        ServerConfig {
            port: 0,
            ..ServerConfig::default()
        },
    )
    .expect("gRPC server");
    let native = basalt_hbase::start(
        conn.clone(),
        &HbaseConfig {
            port: 0,
            ..HbaseConfig::default()
        },
        "bench",
    )
    .expect("native server");
    let remote = RemoteConnection::connect(&grpc.local_addr().expect("listening").to_string())
        .expect("connect");
    let table: Arc<dyn Table> = remote.table(&name).expect("table");
    let mut client = RpcClient::connect(native.local_addr(), "ClientService").expect("connect");
    let mut blocks = RpcClient::connect_with_codec(
        native.local_addr(),
        "ClientService",
        Some(basalt_hbase::cellblock::KEY_VALUE_CODEC),
    )
    .expect("connect");
    let region = {
        let regions = conn.admin().list_regions(&name).expect("regions");
        basalt_hbase::meta::region_name(&regions[0])
    };
    let value = Bytes::from(vec![7u8; 100]);

    println!(
        "native RPC vs gRPC, one client over loopback, {n} ops, 100-byte values, SKIP_WAL puts"
    );
    println!("(shared 2-core machine: absolute figures are noisy; read the ratios)\n");
    println!(
        "{:<10} {:>8} {:>12} {:>16}",
        "op", "path", "ops/s", "ops/server-CPU-s"
    );
    let show = |op: &str, path: &str, f: &Figure| {
        println!(
            "{:<10} {:>8} {:>12.0} {:>16.0}",
            op, path, f.ops_per_sec, f.per_cpu_second
        );
    };
    let grpc_put = measure(n, "basalt-server", |i| {
        let put = Put::new(row(i))
            .add("f", "q", value.clone())
            .durability(Durability::SkipWal);
        table.put(&put).expect("put");
    });
    show("put", "gRPC", &grpc_put);
    let native_put_figure = measure(n, "hbase-rpc", |i| {
        client
            .call("Mutate", &native_put(&region, i, &value))
            .expect("put");
    });
    show("put", "native", &native_put_figure);
    let grpc_get = measure(n, "basalt-server", |i| {
        black_box(table.get(&Get::new(row(i))).expect("get"));
    });
    show("get", "gRPC", &grpc_get);
    let get_request = |i: usize| pb::GetRequest {
        region: pb::RegionSpecifier {
            r#type: 1,
            value: region.clone(),
        },
        get: pb::Get {
            row: row(i),
            ..Default::default()
        },
    };
    let native_get = measure(n, "hbase-rpc", |i| {
        black_box(client.call("Get", &get_request(i)).expect("get"));
    });
    show("get", "native", &native_get);
    let block_get = measure(n, "hbase-rpc", |i| {
        black_box(blocks.call("Get", &get_request(i)).expect("get"));
        black_box(blocks.last_cells().len());
    });
    show("get", "blocks", &block_get);
    let scans = (n / 10).max(10);
    let grpc_scan = measure(scans, "basalt-server", |_| {
        let rows = table.scan(&Scan::new().limit(100)).expect("scan");
        black_box(rows.map(|r| r.expect("row").cells.len()).sum::<usize>());
    });
    show("scan×100", "gRPC", &grpc_scan);
    let native_scan_figure = measure(scans, "hbase-rpc", |_| {
        black_box(
            client
                .call("Scan", &native_scan(&region, 100))
                .expect("scan"),
        );
    });
    show("scan×100", "native", &native_scan_figure);
    let block_scan = measure(scans, "hbase-rpc", |_| {
        black_box(
            blocks
                .call("Scan", &native_scan(&region, 100))
                .expect("scan"),
        );
        black_box(blocks.last_cells().len());
    });
    show("scan×100", "blocks", &block_scan);
    println!();
    for (op, g, h) in [
        ("put", &grpc_put, &native_put_figure),
        ("get", &grpc_get, &native_get),
        ("get blocks", &grpc_get, &block_get),
        ("scan×100", &grpc_scan, &native_scan_figure),
        ("scan blocks", &grpc_scan, &block_scan),
    ] {
        println!(
            "{op:<10} native/gRPC: {:.2}× ops/s, {:.2}× ops per server CPU-second",
            h.ops_per_sec / g.ops_per_sec,
            h.per_cpu_second / g.per_cpu_second
        );
    }
    native.shutdown();
    grpc.shutdown().expect("shutdown");
}
