//! The listener's rules over real sockets, with a line protocol (a request is a line; the
//! answer echoes it): a silent connection keeps its slot until one is needed, a request
//! begun and not finished is closed after the header timeout, a client idle between
//! requests is never closed, and a full listener of proven clients refuses the newcomer.

use basalt_net::{Limits, Listener};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

const HEADER_TIMEOUT: Duration = Duration::from_millis(300);

/// Serves the line protocol on a listener with these caps; its address.
fn serve(connections_max: usize, per_address_max: usize) -> (SocketAddr, basalt_net::Connections) {
    let listener = Listener::bind(
        "127.0.0.1:0",
        "test",
        Limits {
            connections_max,
            per_address_max,
            header_timeout: HEADER_TIMEOUT,
            evict_idle: false,
        },
    )
    .expect("bind");
    let addr = listener.local_addr();
    let connections = listener.connections();
    tokio::spawn(async move {
        loop {
            let (conn, _) = listener.accept().await;
            tokio::spawn(async move {
                let peer = conn.peer();
                let mut lines = BufReader::new(conn);
                let mut line = String::new();
                while matches!(lines.read_line(&mut line).await, Ok(n) if n > 0) {
                    let _busy = peer.busy();
                    if lines.get_mut().write_all(line.as_bytes()).await.is_err() {
                        return;
                    }
                    line.clear();
                }
            });
        }
    });
    (addr, connections)
}

async fn ask(stream: &mut TcpStream, line: &str) -> String {
    stream.write_all(line.as_bytes()).await.expect("send");
    let mut answer = vec![0u8; line.len()];
    stream.read_exact(&mut answer).await.expect("an answer");
    String::from_utf8(answer).expect("utf-8")
}

/// Whether the server closed `stream` within `within`.
async fn closed(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 16];
    match tokio::time::timeout(within, stream.read(&mut buf)).await {
        Ok(Ok(0)) | Ok(Err(_)) => true,
        Ok(Ok(_)) | Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silence_costs_nothing_until_the_slot_is_needed_and_trickling_is_timed() {
    let (addr, connections) = serve(3, 3);
    let mut client = TcpStream::connect(addr).await.expect("connect");
    assert_eq!(ask(&mut client, "hello\n").await, "hello\n");
    let mut silent = TcpStream::connect(addr).await.expect("connect");
    let mut trickling = TcpStream::connect(addr).await.expect("connect");
    trickling.write_all(b"half a li").await.expect("send");
    // Past the header timeout: the trickling one is closed, the silent one and the client
    // idle between requests are not.
    assert!(
        closed(&mut trickling, HEADER_TIMEOUT * 5).await,
        "trickling closed"
    );
    assert!(
        !closed(&mut silent, HEADER_TIMEOUT * 2).await,
        "silent kept without pressure"
    );
    assert_eq!(
        ask(&mut client, "again\n").await,
        "again\n",
        "idle client kept"
    );
    assert_eq!(connections.open(), 2);
    // Two newcomers fill the listener; the second takes the silent one's slot.
    let mut second = TcpStream::connect(addr).await.expect("connect");
    assert_eq!(ask(&mut second, "two\n").await, "two\n");
    let begun = Instant::now();
    let mut third = TcpStream::connect(addr).await.expect("connect");
    assert_eq!(ask(&mut third, "three\n").await, "three\n");
    assert!(begun.elapsed() < Duration::from_secs(1));
    assert!(
        closed(&mut silent, Duration::from_secs(5)).await,
        "silent made room"
    );
    // Every slot proven now: a fourth is closed at once, and nobody else is.
    let mut fourth = TcpStream::connect(addr).await.expect("connect");
    assert!(closed(&mut fourth, Duration::from_secs(5)).await, "refused");
    assert_eq!(connections.refused(), 1);
    for (stream, line) in [
        (&mut client, "c\n"),
        (&mut second, "2\n"),
        (&mut third, "3\n"),
    ] {
        assert_eq!(ask(stream, line).await, line);
    }
    assert_eq!(connections.shed(), 2);
}
