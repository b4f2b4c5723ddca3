//! REST over loopback: single-row put and get throughput with one and several concurrent
//! keep-alive clients, each next to an empty HTTP round trip (`GET /version`) measured in
//! the same run. Prints figures; passes or fails nothing.
//!
//!     cargo bench -p basalt-rest --bench loopback
//!
//! `BASALT_BENCH_SECS` (default 2) sets each measurement's length; `BASALT_BENCH_CLIENTS`
//! (default 4) the concurrent clients of the second round.

use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_rest::{start, RestConfig};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A keep-alive HTTP/1.1 client.
struct Client {
    addr: SocketAddr,
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Self {
        let writer = TcpStream::connect(addr).expect("connect");
        writer.set_nodelay(true).expect("nodelay");
        let reader = BufReader::new(writer.try_clone().expect("clone"));
        Self {
            addr,
            writer,
            reader,
        }
    }

    /// Sends one request, reads the answer; returns its status.
    fn call(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> u16 {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        self.writer.write_all(head.as_bytes()).expect("write head");
        self.writer.write_all(body).expect("write body");
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("status line");
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("status");
        let mut length = 0usize;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("header");
            if line == "\r\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().expect("length");
                }
            }
        }
        let mut body = vec![0u8; length];
        self.reader.read_exact(&mut body).expect("body");
        status
    }
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[derive(Clone, Copy)]
enum Op {
    Version,
    Put,
    Get,
}

/// Ops per second of `op` with `clients` threads for `secs`.
fn measure(addr: SocketAddr, op: Op, clients: usize, secs: f64, rows: u64) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let begun = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let done = done.clone();
            std::thread::spawn(move || {
                let mut client = Client::connect(addr);
                let mut i = c as u64;
                while Instant::now() < deadline {
                    let row = format!("row{:08}", i % rows);
                    let status = match op {
                        Op::Version => client.call("GET", "/version", "text/plain", b""),
                        Op::Get => {
                            client.call("GET", &format!("/bench/{row}/f:q"), "text/plain", b"")
                        }
                        Op::Put => {
                            let body = format!(
                                r#"{{"Row":[{{"key":"{}","Cell":[{{"column":"{}","$":"{}"}}]}}]}}"#,
                                b64(row.as_bytes()),
                                b64(b"f:q"),
                                b64(&[b'v'; 100])
                            );
                            client.call(
                                "PUT",
                                &format!("/bench/{row}"),
                                "application/json",
                                body.as_bytes(),
                            )
                        }
                    };
                    assert_eq!(status, 200);
                    i += clients as u64;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("client thread");
    }
    done.load(Ordering::Relaxed) as f64 / begun.elapsed().as_secs_f64()
}

fn main() {
    let secs: f64 = std::env::var("BASALT_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let many: usize = std::env::var("BASALT_BENCH_CLIENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open database");
    let conn = Arc::new(EmbeddedConnection::new(db));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let config = RestConfig {
        port: 0,
        ..RestConfig::default()
    };
    let server = runtime
        .block_on(async { start(conn, config) })
        .expect("start");
    let addr = server.local_addr();
    let mut admin = Client::connect(addr);
    let schema = br#"{"name":"bench","ColumnSchema":[{"name":"f"}]}"#;
    assert_eq!(
        admin.call("PUT", "/bench/schema", "application/json", schema),
        201
    );
    let rows = 10_000;
    for chunk in 0..rows / 1000 {
        let cells: Vec<String> = (chunk * 1000..(chunk + 1) * 1000)
            .map(|i| {
                format!(
                    r#"{{"key":"{}","Cell":[{{"column":"{}","$":"{}"}}]}}"#,
                    b64(format!("row{i:08}").as_bytes()),
                    b64(b"f:q"),
                    b64(&[b'v'; 100])
                )
            })
            .collect();
        let body = format!(r#"{{"Row":[{}]}}"#, cells.join(","));
        assert_eq!(
            admin.call("PUT", "/bench/preload", "application/json", body.as_bytes()),
            200
        );
    }
    println!("REST over loopback ({secs} s per figure, 100-byte values, {rows} rows, keep-alive)");
    println!(
        "{:<10} {:>8} {:>12} {:>12} {:>10}",
        "operation", "clients", "ops/s", "GET /version", "ratio"
    );
    for clients in [1, many] {
        let empty = measure(addr, Op::Version, clients, secs, rows);
        for (name, op) in [("put", Op::Put), ("get", Op::Get)] {
            let rate = measure(addr, op, clients, secs, rows);
            println!(
                "{name:<10} {clients:>8} {rate:>12.0} {empty:>12.0} {:>9.2}x",
                rate / empty
            );
        }
    }
    runtime.block_on(server.shutdown());
}
