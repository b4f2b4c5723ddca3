//! Limits: oversize requests, too many cells, too many scanners; the server keeps serving
//! after each. (Connections held open: `held_sockets`.)

use crate::common::{create_table, serve, serve_with, test_config};
use basalt_api::{Connection, ErrorKind};
use basalt_client::ClientConfig;
use basalt_server::ServerConfig;
use basalt_types::{Get, Put, Scan};

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
