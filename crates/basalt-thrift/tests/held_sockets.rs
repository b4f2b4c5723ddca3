//! Sockets held open without a call — silent, or trickling one a byte every 200 ms — keep
//! no real client out: a new client is served within a second while they are held, and a
//! client idle between calls for longer than the header timeout keeps its connection.

use crate::support;

use basalt_net::siege::{connect_from, Siege, Trickle};
use basalt_thrift::protocol::{ProtocolKind, Value};
use basalt_thrift::transport::TransportKind;
use basalt_thrift::ThriftConfig;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use support::{args, bin, create_table, gateway, Client, Gateway};

const HEADER_TIMEOUT_MS: u64 = 1_000;
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

fn setup(connections_max: usize, per_address_max: usize) -> Gateway {
    let g = gateway(ThriftConfig {
        connections_max,
        connections_per_address_max: per_address_max,
        header_timeout_ms: HEADER_TIMEOUT_MS,
        ..ThriftConfig::default()
    });
    create_table(&mut Client::buffered(&g.server), "t", &["cf"]);
    g
}

/// A `getRow` call that never ends: bool fields, one after another.
fn endless_call() -> Trickle {
    let mut head = Client::buffered_encoder().encode("getRow", &args().with(1, bin("t")));
    head.pop();
    Trickle {
        head,
        repeat: vec![2, 0, 9, 1],
        pace: PACE,
    }
}

fn served_within_a_second(client: &mut Client) {
    let begun = Instant::now();
    assert_eq!(
        client.call("getTableNames", args()).ok(),
        Some(Value::binary_list(["t".into()]))
    );
    assert!(
        begun.elapsed() < Duration::from_secs(1),
        "{:?}",
        begun.elapsed()
    );
}

fn new_client(rt: &tokio::runtime::Runtime, from: IpAddr, to: SocketAddr) -> Client {
    let begun = Instant::now();
    let stream = rt.block_on(connect_from(from, to)).expect("connect");
    let stream = stream.into_std().expect("std stream");
    stream.set_nonblocking(false).expect("blocking");
    let mut client = Client::over(stream, TransportKind::Buffered, ProtocolKind::Binary);
    served_within_a_second(&mut client);
    assert!(begun.elapsed() < Duration::from_secs(1));
    client
}

/// Waits (at most 10 s) until the server has closed all but `left` of the siege's sockets.
fn wait_for_held(siege: &Siege, left: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while siege.held() > left {
        assert!(
            Instant::now() < deadline,
            "{} sockets still held",
            siege.held()
        );
        std::thread::sleep(PACE);
    }
}

#[test]
fn idle_and_trickling_sockets_past_the_cap_keep_no_client_out() {
    let g = setup(40, 1_000);
    let rt = runtime();
    let addr = g.server.local_addr();
    let mut established = new_client(&rt, LOOPBACK, addr);
    let siege = rt
        .block_on(Siege::start(
            addr,
            LOOPBACK,
            30,
            30,
            endless_call(),
            Duration::from_secs(30),
        ))
        .expect("siege");
    assert!(g.server.connections() <= 40);
    let mut fresh = new_client(&rt, LOOPBACK, addr);
    // The trickling sockets are shed after the header timeout; silent ones may stay.
    wait_for_held(&siege, 30);
    assert!(g.server.shed_connections() >= 21 + 30);
    // Both clients sat idle past the header timeout and still have their connections.
    served_within_a_second(&mut established);
    served_within_a_second(&mut fresh);
    new_client(&rt, LOOPBACK, addr);
}

#[test]
fn one_address_past_its_cap_sheds_only_its_own_sockets() {
    let g = setup(100, 10);
    let rt = runtime();
    let addr = g.server.local_addr();
    let mut established = new_client(&rt, OTHER, addr);
    let siege = rt
        .block_on(Siege::start(
            addr,
            OTHER,
            20,
            20,
            endless_call(),
            Duration::from_secs(30),
        ))
        .expect("siege");
    // The address keeps at most 10 connections: its own oldest unproven ones made room.
    assert!(
        g.server.connections() <= 10 + 1,
        "{}",
        g.server.connections()
    );
    new_client(&rt, LOOPBACK, addr);
    new_client(&rt, OTHER, addr);
    wait_for_held(&siege, 8);
    served_within_a_second(&mut established);
}
