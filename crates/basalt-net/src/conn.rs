//! An admitted connection: its stream, wrapped so that the listener sees it progress and
//! can end it.
//!
//! Reading the first bytes of a request starts the header clock (the registry moves a
//! `Fresh` or `Idle` connection to `Reading`); the protocol says when a request is complete
//! ([`Peer::begin_request`]) and answered ([`Peer::end_request`]). Once the listener sheds
//! the connection, every read and write fails with `ConnectionAborted`, and a task waiting
//! to read is woken to see it, so the protocol closes the socket at once.

use crate::book::Phase;
use crate::registry::{Registry, Slot};
use crate::tls::Stream;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A handle on one connection's standing with its listener; cheap to clone.
#[derive(Clone)]
pub struct Peer {
    slot: Arc<Slot>,
    registry: Arc<Registry>,
}

impl fmt::Debug for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Peer")
            .field("listener", &self.registry.name)
            .field("addr", &self.slot.peer)
            .field("phase", &self.slot.phase())
            .finish()
    }
}

impl Peer {
    /// The client's address.
    pub fn addr(&self) -> SocketAddr {
        self.slot.peer
    }

    /// A complete request arrived: the connection is busy (never shed) until
    /// [`Peer::end_request`]. On HTTP/2, the handshake: the connection stays proven.
    pub fn begin_request(&self) {
        self.registry.begin(&self.slot);
    }

    /// The request was answered: the connection is idle between requests.
    pub fn end_request(&self) {
        self.registry.end(&self.slot);
    }

    /// [`Peer::begin_request`] now, [`Peer::end_request`] when the guard drops.
    pub fn busy(&self) -> Busy {
        self.begin_request();
        Busy(self.clone())
    }

    /// Where the connection stands.
    pub fn phase(&self) -> Phase {
        self.slot.phase()
    }

    /// The listener's name (in logs).
    pub fn listener(&self) -> &'static str {
        self.registry.name
    }

    /// The TLS handshake completed: a connection reading only it is `Fresh` again.
    pub(crate) fn handshake_done(&self) {
        self.registry.handshake_done(&self.slot);
    }

    /// Bytes were read: a `Fresh` or `Idle` connection starts its header clock.
    pub(crate) fn arrived(&self) {
        if matches!(self.slot.phase(), Phase::Fresh | Phase::Idle) {
            self.registry.bytes_arrived(&self.slot);
        }
    }
}

/// A request in progress; ends it when dropped.
#[derive(Debug)]
pub struct Busy(Peer);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.end_request();
    }
}

/// Leaves the registry when the connection is dropped.
struct Ticket(Peer);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.registry.remove(&self.0.slot);
    }
}

/// An admitted connection over `S` (a [`Stream`], or a wrapper of one).
pub struct Conn<S = Stream> {
    io: S,
    ticket: Ticket,
}

impl<S> Conn<S> {
    pub(crate) fn new(io: S, slot: Arc<Slot>, registry: Arc<Registry>) -> Self {
        Self {
            io,
            ticket: Ticket(Peer { slot, registry }),
        }
    }

    pub fn peer(&self) -> Peer {
        self.ticket.0.clone()
    }

    pub fn peer_addr(&self) -> SocketAddr {
        self.ticket.0.slot.peer
    }

    pub fn get_ref(&self) -> &S {
        &self.io
    }

    pub fn get_mut(&mut self) -> &mut S {
        &mut self.io
    }

    /// The same connection over `f(stream)` (a buffering wrapper, say).
    pub fn map<U>(self, f: impl FnOnce(S) -> U) -> Conn<U> {
        Conn {
            io: f(self.io),
            ticket: self.ticket,
        }
    }

    pub fn begin_request(&self) {
        self.ticket.0.begin_request();
    }

    pub fn end_request(&self) {
        self.ticket.0.end_request();
    }

    fn slot(&self) -> &Slot {
        &self.ticket.0.slot
    }

    /// An error once the connection was shed.
    fn check(&self) -> io::Result<()> {
        match self.slot().shed_reason() {
            None => Ok(()),
            Some(reason) => Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                format!("connection closed by the server: {}", reason.as_str()),
            )),
        }
    }

    /// Bytes were read: a `Fresh` or `Idle` connection starts its header clock.
    fn arrived(&self) {
        self.ticket.0.arrived();
    }

    /// When the stream is pending: remember the task, then look again for a shed.
    fn pending<T>(&self, cx: &Context<'_>) -> Poll<io::Result<T>> {
        self.slot().park(cx.waker());
        match self.check() {
            Ok(()) => Poll::Pending,
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl Conn<Stream> {
    /// Whether the connection is TLS.
    pub fn is_tls(&self) -> bool {
        self.io.is_tls()
    }

    /// The name in the client's verified TLS certificate (see [`crate::tls::identity`]),
    /// once the handshake is done.
    pub fn tls_identity(&self) -> Option<&str> {
        self.io.identity()
    }

    /// Waits until bytes (or the end of the stream) can be read, without reading them or
    /// holding a buffer: what a connection idle between requests waits on.
    pub async fn readable(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| {
            self.check()?;
            match self.io.poll_read_ready(cx) {
                Poll::Ready(ready) => Poll::Ready(ready),
                Poll::Pending => self.pending(cx),
            }
        })
        .await
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Conn<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        let before = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.arrived();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.pending(cx),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Conn<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
