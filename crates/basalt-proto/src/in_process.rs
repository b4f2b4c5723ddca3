//! Connections between the parts of one process, without a socket (design §5.6: a master
//! and region servers in one process talk "through the same service traits through an
//! in-process transport").
//!
//! A server that opts in [`register`]s the address it listens on; a client of this
//! process that connects to that address gets one end of an in-memory pipe instead of a
//! TCP connection, and the server accepts the other end beside its sockets. The calls are
//! the same gRPC calls over the same HTTP/2 — only the kernel's loopback, its system
//! calls and its wake-ups are gone. Clients elsewhere still connect over TCP; a server
//! that stops drops its [`Endpoint`], and connecting to it falls back to TCP (which then
//! fails as for any stopped server).
//!
//! An address matches when it is the registered one, or names a loopback address and the
//! server listens on every interface of that port. Host names are not resolved here: they
//! always go through TCP.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::sync::mpsc;

/// The buffer of each direction of a pipe: a few HTTP/2 frames.
const PIPE_BYTES: usize = 256 * 1024;

/// Where a registered server takes its pipes, and which registration it is.
struct Accepts {
    id: u64,
    tx: mpsc::UnboundedSender<DuplexStream>,
}

fn locked() -> std::sync::MutexGuard<'static, HashMap<SocketAddr, Accepts>> {
    static REGISTRY: OnceLock<Mutex<HashMap<SocketAddr, Accepts>>> = OnceLock::new();
    // The map holds no invariant a panic elsewhere could break.
    REGISTRY
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A server's in-process address: the pipes clients of this process open to it arrive
/// here until it is dropped.
#[derive(Debug)]
pub struct Endpoint {
    addr: SocketAddr,
    id: u64,
    accepts: mpsc::UnboundedReceiver<DuplexStream>,
}

impl Endpoint {
    /// The next pipe a client opened (`None` never comes while this endpoint lives).
    pub fn poll_accept(&mut self, cx: &mut Context<'_>) -> Poll<Option<DuplexStream>> {
        self.accepts.poll_recv(cx)
    }

    /// The address it answers for.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        let mut map = locked();
        if map.get(&self.addr).is_some_and(|a| a.id == self.id) {
            map.remove(&self.addr);
        }
    }
}

/// Answers connections of this process to `addr` in memory from now on (replacing an
/// earlier registration of the same address, whose server has stopped).
pub fn register(addr: SocketAddr) -> Endpoint {
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (tx, accepts) = mpsc::unbounded_channel();
    locked().insert(addr, Accepts { id, tx });
    Endpoint { addr, id, accepts }
}

/// A pipe to the server of this process listening on `host:port`, if there is one.
pub fn connect(host: &str, port: u16) -> Option<DuplexStream> {
    let ip: IpAddr = host.parse().ok()?;
    let mut map = locked();
    let exact = SocketAddr::new(ip, port);
    let key = match map.contains_key(&exact) {
        true => exact,
        false if ip.is_loopback() => map
            .keys()
            .find(|a| a.port() == port && a.ip().is_unspecified())
            .copied()?,
        false => return None,
    };
    let (client, server) = tokio::io::duplex(PIPE_BYTES);
    match map.get(&key).map(|a| a.tx.send(server)) {
        Some(Ok(())) => Some(client),
        _ => {
            map.remove(&key);
            None
        }
    }
}

/// A connection that is a socket or an in-process pipe.
#[derive(Debug)]
pub enum Link<S> {
    Socket(S),
    Pipe(DuplexStream),
}

impl<S: AsyncRead + Unpin> AsyncRead for Link<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Link::Socket(s) => Pin::new(s).poll_read(cx, buf),
            Link::Pipe(p) => Pin::new(p).poll_read(cx, buf),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Link<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Link::Socket(s) => Pin::new(s).poll_write(cx, buf),
            Link::Pipe(p) => Pin::new(p).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Link::Socket(s) => Pin::new(s).poll_flush(cx),
            Link::Pipe(p) => Pin::new(p).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Link::Socket(s) => Pin::new(s).poll_shutdown(cx),
            Link::Pipe(p) => Pin::new(p).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Link::Socket(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Link::Pipe(p) => Pin::new(p).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Link::Socket(s) => s.is_write_vectored(),
            Link::Pipe(p) => p.is_write_vectored(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_registered_address_answers_in_memory_until_its_endpoint_drops() {
        let addr: SocketAddr = "127.0.0.1:1".parse().expect("an address");
        let mut endpoint = register(addr);
        let mut client = connect("127.0.0.1", 1).expect("registered");
        let mut server = std::future::poll_fn(|cx| endpoint.poll_accept(cx))
            .await
            .expect("a pipe");
        client.write_all(b"ping").await.expect("written");
        let mut got = [0u8; 4];
        server.read_exact(&mut got).await.expect("read");
        assert_eq!(&got, b"ping");
        assert!(connect("127.0.0.1", 2).is_none(), "another port");
        assert!(
            connect("localhost", 1).is_none(),
            "names are not resolved here"
        );
        drop(endpoint);
        assert!(connect("127.0.0.1", 1).is_none(), "gone with its endpoint");
    }

    #[tokio::test]
    async fn a_server_on_every_interface_answers_for_loopback_only() {
        let addr: SocketAddr = "0.0.0.0:3".parse().expect("an address");
        let _endpoint = register(addr);
        assert!(connect("127.0.0.1", 3).is_some());
        assert!(connect("::1", 3).is_some());
        assert!(connect("10.1.2.3", 3).is_none());
    }
}
