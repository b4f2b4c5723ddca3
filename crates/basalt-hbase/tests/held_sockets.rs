//! Sockets held open on the RPC port without a call — silent, or trickling a call one byte
//! every 200 ms — keep no real client out: a new client is served within a second while
//! they are held, and clients idle between calls for longer than the header timeout keep
//! their connections.

use crate::support;

use basalt_hbase::wire;
use basalt_hbase::HbaseConfig;
use basalt_net::siege::{Siege, Trickle};
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};
use support::{create_table, regions, Client};

const HEADER_TIMEOUT_MS: u64 = 1_000;
const PACE: Duration = Duration::from_millis(200);
const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn served_within_a_second(client: &mut Client) {
    let begun = Instant::now();
    assert_eq!(regions(client, "t").len(), 1);
    assert!(
        begun.elapsed() < Duration::from_secs(1),
        "{:?}",
        begun.elapsed()
    );
}

/// A preface, then a call frame that claims a megabyte and never ends.
fn endless_call() -> Trickle {
    let mut head = wire::encode_connection_preface("ClientService", "siege");
    head.extend_from_slice(&(1u32 << 20).to_be_bytes());
    Trickle {
        head,
        repeat: vec![0x0a],
        pace: PACE,
    }
}

#[test]
fn idle_and_trickling_sockets_past_the_cap_keep_no_client_out() {
    let s = support::server(HbaseConfig {
        connections_max: 40,
        header_timeout_ms: HEADER_TIMEOUT_MS,
        ..HbaseConfig::default()
    });
    create_table(&s.server, "t", &[]);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut established = Client::connect(&s.server, "ClientService");
    served_within_a_second(&mut established);
    let addr = s.server.local_addr();
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
    assert!(s.server.connections() <= 40, "{}", s.server.connections());
    let mut fresh = Client::connect(&s.server, "ClientService");
    served_within_a_second(&mut fresh);
    // The trickling sockets are closed after the header timeout; silent ones may stay.
    let deadline = Instant::now() + Duration::from_secs(10);
    while siege.held() > 30 {
        assert!(
            Instant::now() < deadline,
            "{} sockets still held",
            siege.held()
        );
        std::thread::sleep(PACE);
    }
    // Both clients sat idle past the header timeout and still have their connections.
    served_within_a_second(&mut established);
    served_within_a_second(&mut fresh);
    served_within_a_second(&mut Client::connect(&s.server, "ClientService"));
}
