//! Sockets that hold a listener's slots without completing a request — issue #14's load in
//! miniature, for the listeners' tests: *idle* sockets connect and send nothing, *trickling*
//! ones send a request's first bytes one at a time, never finishing it.
//!
//! A siege runs on a task of the caller's runtime, stops after `lasting` (or when
//! dropped), and keeps count of the sockets the server has not closed. [`connect_from`]
//! and [`http_get`] are the real clients the tests serve meanwhile.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinHandle;

/// What trickling sockets send: `head` once, then `repeat` over and over, one byte every
/// `pace`.
#[derive(Debug, Clone)]
pub struct Trickle {
    pub head: Vec<u8>,
    pub repeat: Vec<u8>,
    pub pace: Duration,
}

impl Trickle {
    fn byte(&self, n: usize) -> u8 {
        match self.head.get(n) {
            Some(b) => *b,
            None if self.repeat.is_empty() => b' ',
            None => self.repeat[(n - self.head.len()) % self.repeat.len()],
        }
    }
}

/// Idle and trickling sockets against one listener.
pub struct Siege {
    held: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

struct Socket {
    stream: TcpStream,
    trickles: bool,
    sent: usize,
}

impl Siege {
    /// Connects `idle` then `trickling` sockets from `from` (any address of 127.0.0.0/8
    /// is loopback on Linux) to `target`, and trickles until `lasting` has passed.
    pub async fn start(
        target: SocketAddr,
        from: IpAddr,
        idle: usize,
        trickling: usize,
        trickle: Trickle,
        lasting: Duration,
    ) -> io::Result<Self> {
        let mut sockets = Vec::with_capacity(idle + trickling);
        for n in 0..idle + trickling {
            sockets.push(Socket {
                stream: connect_from(from, target).await?,
                trickles: n >= idle,
                sent: 0,
            });
        }
        let held = Arc::new(AtomicUsize::new(sockets.len()));
        let task = tokio::spawn(run(sockets, trickle, lasting, held.clone()));
        Ok(Self { held, task })
    }

    /// The siege's sockets still open, as last seen (checked every pace).
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }
}

impl Drop for Siege {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A connection to `target` from the address `from`.
pub async fn connect_from(from: IpAddr, target: SocketAddr) -> io::Result<TcpStream> {
    let socket = match from {
        IpAddr::V4(_) => TcpSocket::new_v4()?,
        IpAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.bind(SocketAddr::new(from, 0))?;
    socket.connect(target).await
}

async fn run(
    mut sockets: Vec<Socket>,
    trickle: Trickle,
    lasting: Duration,
    held: Arc<AtomicUsize>,
) {
    let deadline = tokio::time::Instant::now() + lasting;
    let mut tick = tokio::time::interval(trickle.pace);
    while tokio::time::Instant::now() < deadline {
        tick.tick().await;
        sockets.retain_mut(|socket| still_open(socket, &trickle));
        held.store(sockets.len(), Ordering::Relaxed);
    }
}

/// Whether the server still holds `socket` open; sends its next byte if it trickles.
fn still_open(socket: &mut Socket, trickle: &Trickle) -> bool {
    let mut buf = [0u8; 512];
    loop {
        match socket.stream.try_read(&mut buf) {
            Ok(0) => return false,
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => return false,
        }
    }
    if !socket.trickles {
        return true;
    }
    match socket.stream.try_write(&[trickle.byte(socket.sent)]) {
        Ok(_) => {
            socket.sent += 1;
            true
        }
        Err(e) => e.kind() == io::ErrorKind::WouldBlock,
    }
}

/// `GET target` over a kept-alive HTTP/1.1 connection: the response's status, its body
/// read whole (by `Content-Length`, or chunked) so the connection can carry the next one.
pub async fn http_get(stream: &mut TcpStream, target: &str) -> io::Result<u16> {
    let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut held = Vec::new();
    let head_end = loop {
        if let Some(at) = held.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(stream, &mut held).await?;
    };
    let head = String::from_utf8_lossy(&held[..head_end]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no status"))?;
    let mut body = held.split_off(head_end);
    if head.contains("transfer-encoding: chunked") {
        while !body.windows(5).any(|w| w == b"0\r\n\r\n") {
            read_more(stream, &mut body).await?;
        }
    } else {
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while body.len() < length {
            read_more(stream, &mut body).await?;
        }
    }
    Ok(status)
}

async fn read_more(stream: &mut TcpStream, into: &mut Vec<u8>) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    match stream.read(&mut buf).await? {
        0 => Err(bad("the server closed the connection")),
        n => {
            into.extend_from_slice(&buf[..n]);
            Ok(())
        }
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}
