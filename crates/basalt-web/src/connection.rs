//! Accepted connections under limits: at most `connections_max` open at once (accepting
//! waits until one closes, so a flood of sockets cannot take the process's files), and a
//! connection on which no byte moves either way for `idle_timeout_ms` is closed (so idle
//! or stalled clients give their slot back).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// The pause after a failed accept (out of file descriptors, say) before the next.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

pub(crate) struct LimitedListener {
    inner: TcpListener,
    slots: Arc<Semaphore>,
    idle: Duration,
}

impl LimitedListener {
    pub(crate) fn new(inner: TcpListener, connections_max: usize, idle: Duration) -> Self {
        Self {
            inner,
            slots: Arc::new(Semaphore::new(connections_max.max(1))),
            idle,
        }
    }
}

impl axum::serve::Listener for LimitedListener {
    type Io = LimitedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok(slot) = self.slots.clone().acquire_owned().await else {
                // The semaphore is never closed; wait as if full.
                std::future::pending::<()>().await;
                continue;
            };
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    let _ = stream.set_nodelay(true);
                    return (LimitedStream::new(stream, slot, self.idle), addr);
                }
                Err(e) => {
                    tracing::debug!(error = %e, "web UI accept failed");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection holding its slot until dropped, failing once idle too long.
pub(crate) struct LimitedStream {
    inner: TcpStream,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
    _slot: OwnedSemaphorePermit,
}

impl LimitedStream {
    fn new(inner: TcpStream, slot: OwnedSemaphorePermit, idle: Duration) -> Self {
        Self {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
            _slot: slot,
        }
    }

    /// Bytes moved: the idle clock starts again.
    fn moved(&mut self) {
        let next = Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    /// When the inner stream is pending: an error once the idle time has passed.
    fn idle_error<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "web UI connection idle too long",
            ))),
            Poll::Pending => Poll::Pending,
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
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                this.moved();
                Poll::Ready(result)
            }
            Poll::Pending => this.idle_error(cx),
        }
    }
}

impl AsyncWrite for LimitedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(result) => {
                this.moved();
                Poll::Ready(result)
            }
            Poll::Pending => this.idle_error(cx),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
