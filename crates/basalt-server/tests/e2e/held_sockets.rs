//! Sockets held open without an HTTP/2 handshake — silent, or trickling the client preface
//! a byte every 200 ms — keep no gRPC client out: a new client is admitted and served within
//! a second while they are held, and a client idle longer than the handshake timeout keeps
//! its connection.

use crate::common::{serve, test_config, Served};
use basalt_api::Connection;
use basalt_net::siege::{Siege, Trickle};
use basalt_proto::pb::admin_service_client::AdminServiceClient;
use basalt_proto::pb::Empty;
use basalt_server::ServerConfig;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use tonic::transport::{Channel, Endpoint};

const PACE: Duration = Duration::from_millis(200);
const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

fn server(connections_max: usize, per_address_max: usize) -> Served {
    serve(ServerConfig {
        connections_max,
        connections_per_address_max: per_address_max,
        header_timeout_ms: 1_000,
        ..test_config()
    })
}

fn endless_preface() -> Trickle {
    Trickle {
        head: b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
        repeat: vec![0],
        pace: PACE,
    }
}

async fn served_within_a_second(client: &mut AdminServiceClient<Channel>) {
    let begun = Instant::now();
    client.list_namespaces(Empty {}).await.expect("served");
    assert!(
        begun.elapsed() < Duration::from_secs(1),
        "{:?}",
        begun.elapsed()
    );
}

/// A new client connecting from `from`, admitted and served within a second.
async fn new_client(from: IpAddr, to: SocketAddr) -> AdminServiceClient<Channel> {
    let begun = Instant::now();
    let channel = Endpoint::from_shared(format!("http://{to}"))
        .expect("valid uri")
        .local_address(Some(from))
        .connect()
        .await
        .expect("connect");
    let mut client = AdminServiceClient::new(channel);
    served_within_a_second(&mut client).await;
    assert!(begun.elapsed() < Duration::from_secs(1));
    client
}

/// Waits (at most 10 s) until the server has closed all but `left` of the siege's sockets.
async fn wait_for_held(siege: &Siege, left: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while siege.held() > left {
        assert!(
            Instant::now() < deadline,
            "{} sockets still held",
            siege.held()
        );
        tokio::time::sleep(PACE).await;
    }
}

/// The test's own client (connected before the siege) is served within a second.
fn established_is_served(served: &Served) {
    let begun = Instant::now();
    served.remote.admin().list_namespaces().expect("served");
    assert!(
        begun.elapsed() < Duration::from_secs(1),
        "{:?}",
        begun.elapsed()
    );
}

#[test]
fn idle_and_trickling_sockets_past_the_cap_keep_no_client_out() {
    let served = server(40, 1_000);
    established_is_served(&served);
    let rt = runtime();
    let addr = served.addr;
    let siege = rt.block_on(async {
        let siege = Siege::start(
            addr,
            LOOPBACK,
            30,
            30,
            endless_preface(),
            Duration::from_secs(30),
        )
        .await
        .expect("siege");
        let mut fresh = new_client(LOOPBACK, addr).await;
        // Trickling sockets are shed after the handshake timeout; silent ones may stay.
        wait_for_held(&siege, 30).await;
        served_within_a_second(&mut fresh).await;
        new_client(LOOPBACK, addr).await;
        siege
    });
    // Idle past the handshake timeout, it kept its connection.
    established_is_served(&served);
    drop(siege);
}

#[test]
fn one_address_past_its_cap_sheds_only_its_own_sockets() {
    let served = server(100, 10);
    established_is_served(&served);
    let rt = runtime();
    let addr = served.addr;
    rt.block_on(async {
        let siege = Siege::start(
            addr,
            OTHER,
            20,
            20,
            endless_preface(),
            Duration::from_secs(30),
        )
        .await
        .expect("siege");
        new_client(OTHER, addr).await;
        new_client(LOOPBACK, addr).await;
        wait_for_held(&siege, 9).await;
    });
    established_is_served(&served);
}
