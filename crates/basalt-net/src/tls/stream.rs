//! An accepted connection's stream: plain TCP, or TLS once the handshake is done.
//!
//! On a TLS listener the handshake is lazy: the first read or write of the stream (in the
//! connection's own task, never the accept loop) looks at the client's first byte. A TLS
//! record (0x16, a handshake) starts the handshake; anything else is a plaintext client,
//! refused ([`Plaintext::Refuse`]: a line saying the port speaks TLS, then the error) or
//! served in clear ([`Plaintext::Accept`], HBase's `supportplaintext`). Every raw byte
//! read — handshake records included — tells the listener the connection is reading, so a
//! handshake trickled byte by byte runs into the header timeout as any unfinished request;
//! a finished handshake is no request, and stops that clock until the first one begins.

use super::{identity, ServerTls};
use crate::conn::Peer;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The first byte of a TLS handshake record.
const HANDSHAKE_RECORD: u8 = 0x16;

/// What a TLS listener does with a client that speaks plaintext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plaintext {
    /// Writes `line` (an HTTP answer, say, that a browser or curl shows) and closes.
    Refuse(&'static str),
    /// Serves it in clear (HBase's `hbase.server.netty.tls.supportplaintext`).
    Accept,
}

impl Plaintext {
    /// A refusal any client can read: no protocol's framing.
    pub const REFUSE: Plaintext = Plaintext::Refuse("");
    /// The refusal of HTTP listeners: a 400 naming the fix.
    pub const REFUSE_HTTP: Plaintext = Plaintext::Refuse(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 58\r\n\r\nThis port speaks TLS only: use https:// (curl --cacert).\r\n",
    );
}

/// TCP that tells the listener when bytes arrive (the TLS session reads through it).
pub struct Raw {
    tcp: TcpStream,
    peer: Peer,
}

impl AsyncRead for Raw {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.tcp).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.peer.arrived();
        }
        polled
    }
}

impl AsyncWrite for Raw {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write(cx, b)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}

enum State {
    Plain(TcpStream),
    /// TLS expected; the first byte not seen yet.
    Sniff(Raw, Arc<ServerTls>, Plaintext),
    Handshake(Box<tokio_rustls::Accept<Raw>>),
    Tls(Box<tokio_rustls::server::TlsStream<Raw>>),
    /// A plaintext client on a TLS port: the refusal, and how much of it is written.
    Refusing(TcpStream, &'static str, usize),
    Failed(io::ErrorKind, String),
    Moving,
}

/// An accepted connection's stream (see the module's story).
pub struct Stream {
    state: State,
    local: Option<SocketAddr>,
    remote: Option<SocketAddr>,
    identity: Option<String>,
}

impl Stream {
    /// A plain TCP connection.
    pub fn plain(tcp: TcpStream) -> Self {
        let (local, remote) = (tcp.local_addr().ok(), tcp.peer_addr().ok());
        Self {
            state: State::Plain(tcp),
            local,
            remote,
            identity: None,
        }
    }

    /// A connection to a TLS listener, its handshake still to come.
    pub(crate) fn tls(
        tcp: TcpStream,
        peer: Peer,
        tls: Arc<ServerTls>,
        plaintext: Plaintext,
    ) -> Self {
        let (local, remote) = (tcp.local_addr().ok(), tcp.peer_addr().ok());
        Self {
            state: State::Sniff(Raw { tcp, peer }, tls, plaintext),
            local,
            remote,
            identity: None,
        }
    }

    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local
    }

    pub fn peer_addr(&self) -> Option<SocketAddr> {
        self.remote
    }

    /// Whether the connection is TLS (so far: before its handshake, whether it will be).
    pub fn is_tls(&self) -> bool {
        matches!(
            self.state,
            State::Sniff(..) | State::Handshake(_) | State::Tls(_)
        )
    }

    /// The name of the client's verified certificate, once the handshake is done.
    pub fn identity(&self) -> Option<&str> {
        self.identity.as_deref()
    }

    /// Whether a read would not wait (used while idle, holding no buffer): on a TLS stream
    /// mid-handshake, always (the read drives the handshake).
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.state {
            State::Plain(tcp) | State::Refusing(tcp, ..) => tcp.poll_read_ready(cx),
            State::Sniff(raw, ..) => raw.tcp.poll_read_ready(cx),
            State::Tls(tls) => {
                let (raw, session) = tls.get_ref();
                match session.wants_read() {
                    false => Poll::Ready(Ok(())),
                    true => raw.tcp.poll_read_ready(cx),
                }
            }
            State::Handshake(_) | State::Failed(..) | State::Moving => Poll::Ready(Ok(())),
        }
    }

    /// Moves the connection on until it is plain or TLS (or failed).
    fn poll_settle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            match std::mem::replace(&mut self.state, State::Moving) {
                State::Sniff(raw, tls, plaintext) => {
                    let mut first = [0u8; 1];
                    let mut buf = ReadBuf::new(&mut first);
                    match raw.tcp.poll_peek(cx, &mut buf) {
                        Poll::Pending => {
                            self.state = State::Sniff(raw, tls, plaintext);
                            return Poll::Pending;
                        }
                        Poll::Ready(Err(e)) => return self.fail(e.kind(), e.to_string()),
                        Poll::Ready(Ok(0)) => self.state = State::Plain(raw.tcp),
                        Poll::Ready(Ok(_)) if first[0] == HANDSHAKE_RECORD => {
                            raw.peer.arrived();
                            self.state = State::Handshake(Box::new(tls.acceptor().accept(raw)));
                        }
                        Poll::Ready(Ok(_)) => {
                            raw.peer.arrived();
                            match plaintext {
                                Plaintext::Accept => self.state = State::Plain(raw.tcp),
                                Plaintext::Refuse(line) => {
                                    tracing::info!(
                                        listener = raw.peer.listener(),
                                        peer = %raw.peer.addr(),
                                        "refused a plaintext client: this port speaks TLS only"
                                    );
                                    self.state = State::Refusing(raw.tcp, line, 0);
                                }
                            }
                        }
                    }
                }
                State::Handshake(mut accept) => match Pin::new(accept.as_mut()).poll(cx) {
                    Poll::Pending => {
                        self.state = State::Handshake(accept);
                        return Poll::Pending;
                    }
                    Poll::Ready(Ok(tls)) => {
                        tls.get_ref().0.peer.handshake_done();
                        self.identity = tls
                            .get_ref()
                            .1
                            .peer_certificates()
                            .and_then(|certs| certs.first())
                            .and_then(identity::of);
                        self.state = State::Tls(Box::new(tls));
                    }
                    Poll::Ready(Err(e)) => {
                        let why = format!("TLS handshake failed: {e}");
                        tracing::debug!("{why}");
                        return self.fail(io::ErrorKind::ConnectionAborted, why);
                    }
                },
                State::Refusing(mut tcp, line, 0) if !line.is_empty() => {
                    // What the client sent is read first: closing with it unread would
                    // reset the connection and could lose the refusal.
                    let mut scratch = [0u8; 4096];
                    for _ in 0..16 {
                        if !matches!(tcp.try_read(&mut scratch), Ok(n) if n > 0) {
                            break;
                        }
                    }
                    match Pin::new(&mut tcp).poll_write(cx, line.as_bytes()) {
                        Poll::Pending => {
                            self.state = State::Refusing(tcp, line, 0);
                            return Poll::Pending;
                        }
                        Poll::Ready(Ok(n)) if n > 0 => self.state = State::Refusing(tcp, line, n),
                        Poll::Ready(_) => self.state = State::Refusing(tcp, line, line.len()),
                    }
                }
                State::Refusing(mut tcp, line, written) if written < line.len() => {
                    match Pin::new(&mut tcp).poll_write(cx, &line.as_bytes()[written..]) {
                        Poll::Pending => {
                            self.state = State::Refusing(tcp, line, written);
                            return Poll::Pending;
                        }
                        Poll::Ready(Ok(n)) if n > 0 => {
                            self.state = State::Refusing(tcp, line, written + n)
                        }
                        Poll::Ready(_) => self.state = State::Refusing(tcp, line, line.len()),
                    }
                }
                State::Refusing(mut tcp, ..) => {
                    let _ = Pin::new(&mut tcp).poll_shutdown(cx);
                    return self.fail(
                        io::ErrorKind::InvalidData,
                        "a plaintext client on a TLS port (refused)".into(),
                    );
                }
                State::Failed(kind, why) => {
                    self.state = State::Failed(kind, why.clone());
                    return Poll::Ready(Err(io::Error::new(kind, why)));
                }
                settled @ (State::Plain(_) | State::Tls(_)) => {
                    self.state = settled;
                    return Poll::Ready(Ok(()));
                }
                State::Moving => {
                    return self.fail(io::ErrorKind::Other, "a TLS stream polled mid-move".into())
                }
            }
        }
    }

    fn fail(&mut self, kind: io::ErrorKind, why: String) -> Poll<io::Result<()>> {
        self.state = State::Failed(kind, why.clone());
        Poll::Ready(Err(io::Error::new(kind, why)))
    }
}

use std::future::Future;

macro_rules! settled {
    ($this:ident, $cx:ident, $plain:ident => $on_plain:expr, $tls:ident => $on_tls:expr) => {{
        if let Err(e) = std::task::ready!($this.poll_settle($cx)) {
            return Poll::Ready(Err(e));
        }
        match &mut $this.state {
            State::Plain($plain) => $on_plain,
            State::Tls($tls) => $on_tls,
            _ => unreachable!("settled streams are plain or TLS"),
        }
    }};
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        settled!(this, cx,
            tcp => Pin::new(tcp).poll_read(cx, buf),
            tls => Pin::new(tls.as_mut()).poll_read(cx, buf))
    }
}

impl AsyncWrite for Stream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        settled!(this, cx,
            tcp => Pin::new(tcp).poll_write(cx, b),
            tls => Pin::new(tls.as_mut()).poll_write(cx, b))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        settled!(this, cx,
            tcp => Pin::new(tcp).poll_write_vectored(cx, bufs),
            tls => Pin::new(tls.as_mut()).poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        match &self.state {
            State::Plain(tcp) => tcp.is_write_vectored(),
            State::Tls(tls) => tls.is_write_vectored(),
            _ => false,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().state {
            State::Plain(tcp) => Pin::new(tcp).poll_flush(cx),
            State::Tls(tls) => Pin::new(tls.as_mut()).poll_flush(cx),
            _ => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().state {
            State::Plain(tcp) | State::Refusing(tcp, ..) => Pin::new(tcp).poll_shutdown(cx),
            State::Sniff(raw, ..) => Pin::new(&mut raw.tcp).poll_shutdown(cx),
            State::Tls(tls) => Pin::new(tls.as_mut()).poll_shutdown(cx),
            _ => Poll::Ready(Ok(())),
        }
    }
}
