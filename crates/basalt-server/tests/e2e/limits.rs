//! Limits: oversize requests, too many cells, too many scanners, too many connections,
//! silent connections; the server keeps serving after each.

use crate::common::{create_table, serve, serve_with, test_config, wait_until};
use basalt_api::{Connection, ErrorKind};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_server::ServerConfig;
use basalt_types::{Get, Put, Scan};
use std::io::Read;
use std::net::TcpStream;
use std::time::Duration;

#[test]
fn oversize_requests_and_cell_floods_are_refused() {
    let served = serve(ServerConfig {
        request_max_bytes: 64 * 1024,
        cells_per_request_max: 100,
        ..test_config()
    });
    let t = create_table(&served.remote, "limits");
    let table = served.remote.table(&t).expect("table");
    let big = Put::new("r").add("cf", "q", vec![7u8; 128 * 1024]);
    let e = table.put(&big).expect_err("too large");
    assert_eq!(e.kind, ErrorKind::InvalidRequest, "{e}");
    let mut wide = Put::new("r");
    for i in 0..101 {
        wide = wide.add("cf", format!("q{i}"), "v");
    }
    let e = table.put(&wide).expect_err("too many cells");
    assert_eq!(e.kind, ErrorKind::InvalidRequest, "{e}");
    assert!(e.message.contains("cells"), "{e}");
    table
        .put(&Put::new("r").add("cf", "q", "small"))
        .expect("still serving");
    assert!(table.exists(&Get::new("r")).expect("get"));
}

#[test]
fn too_many_scanners_is_busy_not_a_crash() {
    let served = serve_with(
        ServerConfig {
            scanners_max: 1,
            ..test_config()
        },
        ClientConfig {
            retries_max: 0,
            ..ClientConfig::default()
        },
    );
    let t = create_table(&served.remote, "busy");
    let table = served.remote.table(&t).expect("table");
    let puts: Vec<Put> = (0..10)
        .map(|i| Put::new(format!("r{i}")).add("cf", "q", "v"))
        .collect();
    table.put_many(&puts).expect("puts");
    let mut paged = Scan::new();
    paged.caching = Some(1);
    let first = table.scan(&paged).expect("one scanner fits");
    let e = table.scan(&paged).err().expect("the second is refused");
    assert_eq!(e.kind, ErrorKind::Busy);
    drop(first);
    assert!(table.scan(&paged).is_ok(), "room again after closing");
}

#[test]
fn connections_past_the_cap_are_closed_and_silent_ones_time_out() {
    let served = serve(ServerConfig {
        connections_max: 2,
        header_timeout_ms: 300,
        ..test_config()
    });
    // The client holds one slot; a silent socket takes the other.
    let mut silent = TcpStream::connect(served.addr).expect("connect");
    silent
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut extra = TcpStream::connect(served.addr).expect("connect");
    extra
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut buf = [0u8; 64];
    // Past the cap: closed at once (EOF or reset), no HTTP/2 settings sent.
    assert!(matches!(extra.read(&mut buf), Ok(0) | Err(_)));
    // The silent one is closed after the header timeout; the server may first send its
    // SETTINGS frame, so read until the end.
    let mut sink = Vec::new();
    let _ = silent.read_to_end(&mut sink);
    // Its slot is free again: a new client connects and works.
    wait_until("a free connection slot", || {
        RemoteConnection::connect(&served.addr.to_string())
            .and_then(|c| c.admin().list_tables(None))
            .is_ok()
    });
    let t = create_table(&served.remote, "after");
    assert!(served.remote.table(&t).is_ok());
}
