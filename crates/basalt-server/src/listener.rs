//! Accepting gRPC connections through `basalt_net`'s listener: every connection is accepted
//! at once and admitted under `connections_max` and `connections_per_address_max`; past a
//! cap, a new connection takes the slot of one that has not completed its HTTP/2
//! handshake (the client's preface and SETTINGS frame), so sockets held open without one
//! cannot keep real clients out. A handshake begun must complete within
//! `header_timeout_ms`; a connection that has completed it is never shed, and stays open
//! while it answers the server's keep-alive pings (a dead or stalled peer stops answering
//! and is closed by them). Writes go through a [`CoalescingStream`]: a response's frames
//! leave in one system call. A server registered in process
//! ([`basalt_proto::in_process`]) accepts its own process's pipes beside its sockets; they
//! count against no limit (the process trusts itself).

use basalt_net::{Conn, Listener};
use basalt_proto::coalesce::CoalescingStream;
use basalt_proto::in_process::{Endpoint, Link};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;
use tokio_stream::Stream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The HTTP/2 client preface ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").
const PREFACE_BYTES: usize = 24;
/// An HTTP/2 frame header.
const FRAME_HEADER_BYTES: usize = 9;

/// The admitted connections, as a stream for tonic. Accept errors are logged and retried
/// after a pause, never handed to tonic.
pub struct Incoming {
    listener: Listener,
    pause: Option<Pin<Box<Sleep>>>,
    local: Option<Endpoint>,
}

impl Incoming {
    /// Accepts on `listener`, and on `local` when the server is registered in process.
    pub fn new(listener: Listener, local: Option<Endpoint>) -> Self {
        Self {
            listener,
            pause: None,
            local,
        }
    }
}

impl Stream for Incoming {
    type Item = io::Result<GrpcStream>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(local) = this.local.as_mut() {
            if let Poll::Ready(Some(pipe)) = local.poll_accept(cx) {
                let addr = local.addr();
                return Poll::Ready(Some(Ok(GrpcStream::pipe(pipe, addr))));
            }
        }
        loop {
            if let Some(pause) = this.pause.as_mut() {
                if pause.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.pause = None;
            }
            match this.listener.poll_accept(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok((conn, _))) => {
                    return Poll::Ready(Some(Ok(GrpcStream::new(conn))));
                }
                Poll::Ready(Err(e)) => {
                    this.listener.accept_failed(&e);
                    this.pause = Some(Box::pin(tokio::time::sleep(
                        basalt_net::listener::ACCEPT_RETRY,
                    )));
                }
            }
        }
    }
}

/// Counts the bytes of the client's preface and first frame (its SETTINGS); once they are
/// all in, the handshake is done.
#[derive(Debug, Default)]
struct Handshake {
    seen: usize,
    frame_header: [u8; FRAME_HEADER_BYTES],
}

impl Handshake {
    /// Takes the bytes just read; whether the handshake is now complete.
    fn feed(&mut self, bytes: &[u8]) -> bool {
        for (i, byte) in bytes.iter().enumerate() {
            let at = self.seen + i;
            if let Some(slot) = at
                .checked_sub(PREFACE_BYTES)
                .and_then(|n| self.frame_header.get_mut(n))
            {
                *slot = *byte;
            }
        }
        self.seen += bytes.len();
        let header_end = PREFACE_BYTES + FRAME_HEADER_BYTES;
        if self.seen < header_end {
            return false;
        }
        let [a, b, c, ..] = self.frame_header;
        let payload = (usize::from(a) << 16) | (usize::from(b) << 8) | usize::from(c);
        self.seen >= header_end + payload
    }
}

/// An admitted gRPC connection.
pub struct GrpcStream {
    inner: Link<Conn<CoalescingStream<basalt_net::Stream>>>,
    /// Until the handshake completes (on a socket).
    handshake: Option<Handshake>,
    /// The server's address, for a pipe (a socket knows its own).
    pipe_of: Option<std::net::SocketAddr>,
}

impl GrpcStream {
    fn new(conn: Conn) -> Self {
        Self {
            inner: Link::Socket(conn.map(CoalescingStream::new)),
            handshake: Some(Handshake::default()),
            pipe_of: None,
        }
    }

    fn pipe(pipe: tokio::io::DuplexStream, server: std::net::SocketAddr) -> Self {
        Self {
            inner: Link::Pipe(pipe),
            handshake: None,
            pipe_of: Some(server),
        }
    }
}

impl AsyncRead for GrpcStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(handshake)) = (&polled, this.handshake.as_mut()) {
            if handshake.feed(&buf.filled()[before..]) {
                // Proven for good: HTTP/2 connections are kept while they answer pings.
                if let Link::Socket(conn) = &mut this.inner {
                    conn.begin_request();
                }
                this.handshake = None;
            }
        }
        polled
    }
}

impl AsyncWrite for GrpcStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

impl Connected for GrpcStream {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        match &self.inner {
            Link::Socket(conn) => TcpConnectInfo {
                local_addr: conn.get_ref().get_ref().local_addr(),
                remote_addr: conn.get_ref().get_ref().peer_addr(),
            },
            Link::Pipe(_) => TcpConnectInfo {
                local_addr: self.pipe_of,
                remote_addr: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_ends_after_the_settings_frame_however_the_bytes_come() {
        let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        // A SETTINGS frame with two settings (12 bytes of payload).
        bytes.extend_from_slice(&[0, 0, 12, 4, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0; 12]);
        for chunk in [1, 5, 24, 33, bytes.len()] {
            let mut handshake = Handshake::default();
            let mut done_at = None;
            for (n, piece) in bytes.chunks(chunk).enumerate() {
                if handshake.feed(piece) {
                    done_at.get_or_insert(n);
                }
            }
            let pieces = bytes.len().div_ceil(chunk);
            assert_eq!(done_at, Some(pieces - 1), "chunks of {chunk}");
        }
        let mut short = Handshake::default();
        assert!(!short.feed(&bytes[..bytes.len() - 1]));
    }
}
