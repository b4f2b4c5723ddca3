//! The client retries through a server restart: calls made while the server is down for a
//! moment succeed once it is back on the same address.

use crate::common::{create_table, open_db, test_config};
use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_db::EmbeddedConnection;
use basalt_server::{BackgroundServer, ServerConfig};
use basalt_types::{Get, Put};
use std::sync::Arc;

#[test]
fn calls_survive_a_server_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = open_db(dir.path());
    let conn = || -> Arc<dyn Connection> { Arc::new(EmbeddedConnection::new(db.clone())) };
    let first = BackgroundServer::start(conn(), test_config()).expect("start");
    let addr = first.local_addr().expect("listening");
    let client = RemoteConnection::connect(&addr.to_string()).expect("connect");
    let t = create_table(&client, "restart");
    let table = client.table(&t).expect("table");
    table.put(&Put::new("a").add("cf", "q", "1")).expect("put");
    first.shutdown().expect("stop");
    // A call made while the server is down keeps retrying with backoff...
    let writer = {
        let table = table.clone();
        std::thread::spawn(move || table.put(&Put::new("b").add("cf", "q", "2")))
    };
    // ...and succeeds once the server is back on the same address.
    let second = BackgroundServer::start(
        conn(),
        ServerConfig {
            port: addr.port(),
            ..test_config()
        },
    )
    .expect("restart on the same port");
    writer
        .join()
        .expect("writer thread")
        .expect("the put succeeded after the restart");
    assert!(table.exists(&Get::new("a")).expect("get"));
    assert!(table.exists(&Get::new("b")).expect("get"));
    second.shutdown().expect("stop");
    db.close().expect("close");
}

#[test]
fn the_blocking_client_works_and_drops_inside_another_runtime() {
    let served = crate::common::serve(test_config());
    let addr = served.addr.to_string();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let client = RemoteConnection::connect(&addr).expect("connect");
        let t = create_table(&client, "in_async");
        let table = client.table(&t).expect("table");
        table.put(&Put::new("r").add("cf", "q", "v")).expect("put");
        assert!(table.exists(&Get::new("r")).expect("get"));
        drop(table);
        drop(client);
    });
}

#[test]
fn connecting_nowhere_fails_cleanly_even_inside_a_runtime() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // Port 1 on localhost: nothing listens there.
    let e = rt
        .block_on(async { RemoteConnection::connect("127.0.0.1:1") })
        .expect_err("refused");
    assert_eq!(e.kind, basalt_api::ErrorKind::Unavailable);
    assert!(RemoteConnection::connect("http://[bad").is_err());
}
