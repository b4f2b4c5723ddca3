//! The newer listeners under held sockets, as the Thrift1 socket gateway: silent and
//! trickling sockets past the cap keep no real client out, and a client idle between calls
//! past the header timeout keeps its connection — over HTTP and on Thrift2.

use crate::support;

use basalt_net::siege::{connect_from, Siege, Trickle};
use basalt_thrift::protocol::{ProtocolKind, Struct, Value};
use basalt_thrift::transport::TransportKind;
use basalt_thrift::ThriftConfig;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use support::http::Http;
use support::{args, bin, gateway, Client, Gateway};

const HEADER_TIMEOUT_MS: u64 = 1_000;
const PACE: Duration = Duration::from_millis(200);
const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

fn setup(config: ThriftConfig) -> Gateway {
    gateway(ThriftConfig {
        connections_max: 40,
        connections_per_address_max: 1_000,
        header_timeout_ms: HEADER_TIMEOUT_MS,
        ..config
    })
}

fn within_a_second<T>(call: impl FnOnce() -> T) -> T {
    let begun = Instant::now();
    let out = call();
    assert!(
        begun.elapsed() < Duration::from_secs(1),
        "{:?}",
        begun.elapsed()
    );
    out
}

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

fn stream(rt: &tokio::runtime::Runtime, to: SocketAddr) -> std::net::TcpStream {
    let stream = rt.block_on(connect_from(LOOPBACK, to)).expect("connect");
    let stream = stream.into_std().expect("std stream");
    stream.set_nonblocking(false).expect("blocking");
    stream
}

fn http_served(http: &mut Http) {
    let names = within_a_second(|| http.call("getTableNames", &args()));
    assert_eq!(names.get(0), Some(&Value::binary_list([])));
}

#[test]
fn held_sockets_keep_no_http_client_out() {
    let g = setup(ThriftConfig {
        http: true,
        ..ThriftConfig::default()
    });
    let rt = runtime();
    let addr = g.server.local_addr();
    let mut established = Http::over(stream(&rt, addr));
    http_served(&mut established);
    // A request head that never ends: one more header line every pace.
    let trickle = Trickle {
        head: b"POST / HTTP/1.1\r\nHost: x\r\n".to_vec(),
        repeat: b"X-Slow: 1\r\n".to_vec(),
        pace: PACE,
    };
    let siege = rt
        .block_on(Siege::start(
            addr,
            LOOPBACK,
            30,
            30,
            trickle,
            Duration::from_secs(30),
        ))
        .expect("siege");
    assert!(g.server.connections() <= 40);
    let mut fresh = Http::over(stream(&rt, addr));
    http_served(&mut fresh);
    wait_for_held(&siege, 30);
    http_served(&mut established);
    http_served(&mut fresh);
}

fn thrift2_served(client: &mut Client) {
    let kind = within_a_second(|| client.call("getThriftServerType", args()).ok());
    assert_eq!(kind, Some(Value::I32(2)));
}

#[test]
fn held_sockets_keep_no_thrift2_client_out() {
    let g = setup(ThriftConfig {
        thrift2: true,
        ..ThriftConfig::default()
    });
    let rt = runtime();
    let addr = g.server.local_addr();
    let connect = || {
        Client::over(
            stream(&rt, addr),
            TransportKind::Buffered,
            ProtocolKind::Binary,
        )
    };
    let mut established = connect();
    thrift2_served(&mut established);
    // A `get` whose TGet never ends: bool fields, one after another.
    let mut head = Client::buffered_encoder().encode(
        "get",
        &args()
            .with(1, bin("t"))
            .with(2, Value::Struct(Struct::new().with(1, bin("r")))),
    );
    head.truncate(head.len() - 2);
    let trickle = Trickle {
        head,
        repeat: vec![2, 0, 9, 1],
        pace: PACE,
    };
    let siege = rt
        .block_on(Siege::start(
            addr,
            LOOPBACK,
            30,
            30,
            trickle,
            Duration::from_secs(30),
        ))
        .expect("siege");
    assert!(g.server.connections() <= 40);
    let mut fresh = connect();
    thrift2_served(&mut fresh);
    wait_for_held(&siege, 30);
    assert!(g.server.shed_connections() >= 21 + 30);
    thrift2_served(&mut established);
    thrift2_served(&mut fresh);
}
