//! Accepting connections under limits: at most `connections_max` open (a connection past
//! it is closed at once), first bytes within `header_timeout_ms`, and no silence longer
//! than `idle_timeout_ms` after that (the server's HTTP/2 keep-alive pings make a live but
//! quiet client answer, so only dead or stalled peers hit it). Writes go through a
//! [`CoalescingStream`]: a response's frames leave in one system call.

use basalt_proto::coalesce::CoalescingStream;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tokio_stream::Stream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Connection limits.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub connections_max: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
}

/// The accepted connections, as a stream for tonic.
pub struct Incoming {
    listener: TcpListener,
    slots: Arc<Semaphore>,
    limits: ConnectionLimits,
}

impl Incoming {
    pub fn new(listener: TcpListener, limits: ConnectionLimits) -> Self {
        Self {
            listener,
            slots: Arc::new(Semaphore::new(limits.connections_max.max(1))),
            limits,
        }
    }
}

impl Stream for Incoming {
    type Item = io::Result<LimitedStream>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            let (stream, peer) = match this.listener.poll_accept(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(Ok(accepted)) => accepted,
            };
            let Ok(permit) = this.slots.clone().try_acquire_owned() else {
                tracing::warn!(%peer, limit = this.limits.connections_max, "too many connections: closing a new one");
                drop(stream);
                continue;
            };
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
            }
            return Poll::Ready(Some(Ok(LimitedStream::new(stream, permit, this.limits))));
        }
    }
}

/// A connection holding one of the `connections_max` slots, closed when silent too long.
pub struct LimitedStream {
    inner: CoalescingStream<TcpStream>,
    _slot: OwnedSemaphorePermit,
    timer: Pin<Box<Sleep>>,
    last_read: Instant,
    /// The header timeout until the first bytes arrive, the idle timeout after.
    silence_max: Duration,
    idle_timeout: Duration,
}

impl LimitedStream {
    fn new(inner: TcpStream, slot: OwnedSemaphorePermit, limits: ConnectionLimits) -> Self {
        let now = Instant::now();
        Self {
            inner: CoalescingStream::new(inner),
            _slot: slot,
            timer: Box::pin(tokio::time::sleep_until(now + limits.header_timeout)),
            last_read: now,
            silence_max: limits.header_timeout,
            idle_timeout: limits.idle_timeout,
        }
    }

    /// Whether the peer has been silent too long; re-arms the timer otherwise. The timer is
    /// only moved when it fires, not on every read.
    fn poll_silence(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            if self.timer.as_mut().poll(cx).is_pending() {
                return false;
            }
            let due = self.last_read + self.silence_max;
            if due <= Instant::now() {
                return true;
            }
            self.timer.as_mut().reset(due);
        }
    }
}

impl AsyncRead for LimitedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.last_read = Instant::now();
                    this.silence_max = this.idle_timeout;
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                if this.poll_silence(cx) {
                    Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "connection silent past its timeout",
                    )))
                } else {
                    Poll::Pending
                }
            }
        }
    }
}

impl AsyncWrite for LimitedStream {
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

impl Connected for LimitedStream {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.inner.get_ref().connect_info()
    }
}
