//! Web UI figures: what recording one request's metrics costs on the hot path, and how
//! fast each page and metrics endpoint answers over loopback for a database with many
//! regions (latency p50 / p99, requests per second, response size). Figures on a shared
//! 2-core machine are noisy.
//!
//! `cargo bench -p basalt-web --bench pages [-- --regions N --requests N]`

use basalt_api::{Connection, PreSplit};
use basalt_db::metrics::{Metrics, Op};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Put, SplitAlgorithm, TableDescriptor, TableName};
use basalt_web::{ServerInfo, WebConfig};
use std::hint::black_box;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == name)
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(default)
}

fn fetch(addr: SocketAddr, target: &str) -> usize {
    let mut stream = TcpStream::connect(addr).expect("connect");
    let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).expect("send");
    let mut body = Vec::new();
    stream.read_to_end(&mut body).expect("read");
    assert!(body.starts_with(b"HTTP/1.1 200"), "{target} failed");
    body.len()
}

fn main() {
    let regions = arg("--regions", 200);
    let requests = arg("--requests", 200);

    let metrics = Metrics::default();
    let ok: Result<(), ()> = Ok(());
    let n = 2_000_000;
    let begun = Instant::now();
    for _ in 0..n {
        metrics.record(black_box(Op::Get), Instant::now(), &ok);
    }
    let per_record = begun.elapsed() / n;
    println!("metrics: one request recorded (Instant::now + elapsed + 4 relaxed atomics) in {per_record:?}");

    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db.clone()));
    let name = TableName::parse("bench").expect("name");
    let family = FamilyDescriptor::new("f").expect("family");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::Count {
                regions: u32::try_from(regions).expect("regions fit u32"),
                algorithm: SplitAlgorithm::HexString,
            },
        )
        .expect("create");
    let table = conn.table(&name).expect("table");
    for i in 0..1000u32 {
        let row = format!("{:08x}", i.wrapping_mul(2_654_435_761));
        table
            .put(&Put::new(row).add("f", "q", "value"))
            .expect("put");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let info = ServerInfo::new("bench", dir.path().to_path_buf());
    let config = WebConfig {
        port: 0,
        ..WebConfig::default()
    };
    let server = {
        let _entered = runtime.enter();
        basalt_web::start(db.clone(), conn.clone(), info, config).expect("start")
    };
    let addr = server.local_addr();
    println!("{regions} regions, 1000 rows; {requests} sequential requests per page");
    println!(
        "{:<32} {:>9} {:>9} {:>9} {:>10}",
        "page", "p50", "p99", "req/s", "bytes"
    );
    for target in [
        "/",
        "/table.jsp?name=bench&rows=100",
        "/rs-status",
        "/metrics",
        "/jmx",
        "/nope",
    ] {
        let mut latencies = Vec::with_capacity(requests);
        let mut size = 0;
        let begun = Instant::now();
        for _ in 0..requests {
            let t = Instant::now();
            if target == "/nope" {
                let mut s = TcpStream::connect(addr).expect("connect");
                s.write_all(b"GET /nope HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .expect("send");
                let mut b = Vec::new();
                s.read_to_end(&mut b).expect("read");
                size = b.len();
            } else {
                size = fetch(addr, target);
            }
            latencies.push(t.elapsed());
        }
        let total = begun.elapsed();
        latencies.sort();
        let pick = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
        println!(
            "{:<32} {:>9} {:>9} {:>9.0} {:>10}",
            target,
            ms(pick(0.5)),
            ms(pick(0.99)),
            requests as f64 / total.as_secs_f64(),
            size
        );
    }
    runtime.block_on(server.shutdown());
    db.close().expect("close");
}

fn ms(d: Duration) -> String {
    format!("{:.2}ms", d.as_secs_f64() * 1000.0)
}
