//! A server registered in process (`in_process`, as standalone's master and region server
//! are) answers the clients of its own process through in-memory pipes — no socket is
//! opened — and every other client over TCP as before; once stopped it answers no one.

use crate::common::{create_table, serve, test_config};
use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_proto::pb::admin_service_client::AdminServiceClient;
use basalt_server::ServerConfig;
use basalt_types::{Get, Put};

fn piped() -> ServerConfig {
    ServerConfig {
        in_process: true,
        ..test_config()
    }
}

#[test]
fn a_client_in_the_same_process_is_served_without_a_socket() {
    let served = serve(piped());
    let table = create_table(&served.remote, "piped");
    let t = served.remote.table(&table).expect("table");
    t.put(&Put::new("r1").add("cf", "q", "v")).expect("put");
    let row = t.get(&Get::new("r1")).expect("get");
    assert_eq!(row.value(b"cf", b"q"), Some(&b"v"[..]));
    assert_eq!(
        served.server.open_sockets(),
        0,
        "the calls went through a pipe"
    );
}

#[test]
fn a_client_that_dials_tcp_itself_is_still_served_over_tcp() {
    let served = serve(piped());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let listed = runtime.block_on(async {
        // tonic's own connector: a socket, as a client of another process has.
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", served.addr))
            .expect("uri")
            .connect()
            .await
            .expect("connect over TCP");
        AdminServiceClient::new(channel)
            .list_tables(basalt_proto::pb::ListTablesRequest::default())
            .await
    });
    assert!(listed.is_ok(), "listing over TCP: {listed:?}");
    assert_eq!(served.server.open_sockets(), 1);
}

#[test]
fn a_server_not_registered_is_reached_over_tcp() {
    let served = serve(test_config());
    served.remote.admin().list_tables(None).expect("list");
    assert_eq!(served.server.open_sockets(), 1);
}

#[test]
fn a_stopped_server_is_no_longer_reached_through_its_pipe() {
    let served = serve(piped());
    let addr = served.addr.to_string();
    drop(served.remote);
    served.server.shutdown().expect("stopped");
    let again = RemoteConnection::connect(&addr).and_then(|c| c.admin().list_tables(None));
    assert!(again.is_err(), "a stopped server answered: {again:?}");
}
