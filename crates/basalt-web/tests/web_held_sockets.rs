//! Sockets held open without a request — silent, or trickling a request head a byte every
//! 200 ms — keep no browser out: a new client is served within a second while they are
//! held, and a kept-alive client idle longer than the header timeout is served afterwards.

use crate::support;

use basalt_net::siege::{connect_from, http_get, Siege, Trickle};
use basalt_web::WebConfig;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use support::Fixture;
use tokio::net::TcpStream;

const PACE: Duration = Duration::from_millis(200);
const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

fn fixture(connections_max: usize, per_address_max: usize) -> Fixture {
    Fixture::start_with(WebConfig {
        port: 0,
        connections_max,
        connections_per_address_max: per_address_max,
        header_timeout_ms: 1_000,
        ..WebConfig::default()
    })
}

fn endless_head() -> Trickle {
    Trickle {
        head: b"GET / HTTP/1.1\r\nHost: localhost\r\n".to_vec(),
        repeat: b"X-Slow: 1\r\n".to_vec(),
        pace: PACE,
    }
}

/// A page on `stream`, within a second.
async fn served_within_a_second(stream: &mut TcpStream, target: &str) {
    let begun = Instant::now();
    assert_eq!(http_get(stream, target).await.expect("a response"), 200);
    assert!(
        begun.elapsed() < Duration::from_secs(1),
        "{:?}",
        begun.elapsed()
    );
}

/// A new kept-alive connection, served within a second of connecting.
async fn new_client(from: IpAddr, to: SocketAddr) -> TcpStream {
    let begun = Instant::now();
    let mut stream = connect_from(from, to).await.expect("connect");
    served_within_a_second(&mut stream, "/").await;
    assert!(begun.elapsed() < Duration::from_secs(1));
    stream
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

#[test]
fn idle_and_trickling_sockets_past_the_cap_keep_no_client_out() {
    let f = fixture(40, 1_000);
    let addr = f.addr;
    f.runtime.block_on(async {
        let mut established = new_client(LOOPBACK, addr).await;
        let siege = Siege::start(
            addr,
            LOOPBACK,
            30,
            30,
            endless_head(),
            Duration::from_secs(30),
        )
        .await
        .expect("siege");
        let mut fresh = new_client(LOOPBACK, addr).await;
        // Trickling sockets are shed after the header timeout; silent ones may stay.
        wait_for_held(&siege, 30).await;
        // Both clients sat idle past the header timeout and kept their connections.
        served_within_a_second(&mut established, "/metrics").await;
        served_within_a_second(&mut fresh, "/rs-status").await;
        new_client(LOOPBACK, addr).await;
    });
}

#[test]
fn one_address_past_its_cap_sheds_only_its_own_sockets() {
    let f = fixture(100, 10);
    let addr = f.addr;
    f.runtime.block_on(async {
        let mut established = new_client(LOOPBACK, addr).await;
        let siege = Siege::start(addr, OTHER, 20, 20, endless_head(), Duration::from_secs(30))
            .await
            .expect("siege");
        assert!(siege.held() <= 40);
        new_client(OTHER, addr).await;
        new_client(LOOPBACK, addr).await;
        wait_for_held(&siege, 9).await;
        served_within_a_second(&mut established, "/").await;
    });
}
