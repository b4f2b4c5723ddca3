//! `basalt standalone --bind ADDR` puts every listener — gRPC, Thrift, REST, web UI, HBase
//! RPC and ZooKeeper — on
//! ADDR (any address of 127.0.0.0/8 is loopback on Linux), and each listener's own flag
//! moves it alone; every listener serves where it says it listens.

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use support::{start_with, stop, Running};

/// The address each listener printed: gRPC, Thrift, REST, web UI, HBase RPC, ZooKeeper.
fn addrs(running: &Running) -> [String; 6] {
    let sidecar = |name| {
        running
            .sidecar_addr(name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    [
        running.addr.clone(),
        sidecar("thrift"),
        sidecar("rest"),
        sidecar("web"),
        sidecar("hbase"),
        sidecar("zookeeper"),
    ]
}

fn host(addr: &str) -> &str {
    addr.rsplit_once(':').map_or(addr, |(host, _)| host)
}

/// Each listener answers at its address: a gRPC call, an HTTP page, a Thrift connection.
fn all_serve(running: &Running) {
    let [grpc, thrift, rest, web, hbase, zookeeper] = addrs(running);
    let conn = RemoteConnection::connect(&grpc).expect("connect over gRPC");
    conn.admin().list_tables(None).expect("a gRPC call");
    for (addr, path) in [(rest, "/version/cluster"), (web, "/")] {
        let mut stream = TcpStream::connect(&addr).expect("connect over HTTP");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{addr}{path}: {answer}");
    }
    for addr in [thrift, hbase, zookeeper] {
        TcpStream::connect(&addr).expect("connect");
    }
}

#[test]
fn bind_moves_every_listener_and_each_flag_moves_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let running = start_with(dir.path(), &["--bind", "127.0.0.2"]);
    let hosts = addrs(&running).map(|a| host(&a).to_string());
    assert_eq!(hosts, ["127.0.0.2"; 6].map(String::from));
    all_serve(&running);
    stop(running);

    let flags = [
        "--bind",
        "127.0.0.2",
        "--grpc-bind",
        "127.0.0.3",
        "--thrift-bind",
        "127.0.0.4",
        "--rest-bind",
        "127.0.0.5",
        "--web-bind",
        "127.0.0.6",
        "--hbase-bind",
        "127.0.0.7",
    ];
    let running = start_with(dir.path(), &flags);
    let hosts = addrs(&running).map(|a| host(&a).to_string());
    let want = [
        "127.0.0.3",
        "127.0.0.4",
        "127.0.0.5",
        "127.0.0.6",
        "127.0.0.7",
        "127.0.0.7",
    ]
    .map(String::from);
    assert_eq!(hosts, want);
    all_serve(&running);
    stop(running);
}
