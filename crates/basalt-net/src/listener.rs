//! The accept loop: every connection is accepted at once (none waits in the kernel's
//! backlog for a slot), then admitted under the caps, taking an unproven connection's slot
//! if it must, or closed; a sweeper task sheds requests past the header timeout.

use crate::conn::Conn;
use crate::registry::Registry;
use crate::tls::{Plaintext, ServerTls, Stream};
use crate::Limits;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::{TcpListener, TcpSocket};

/// Connections the kernel queues before `accept` (tokio's default).
const BACKLOG: u32 = 1024;
/// The pause after a failed accept before the next.
pub const ACCEPT_RETRY: Duration = Duration::from_millis(20);
/// `EMFILE` and `ENFILE` (the same numbers on Linux and the BSDs): out of descriptors.
const OUT_OF_FILES: [i32; 2] = [24, 23];

/// A TCP listener whose connections are counted, capped and shed (see [`crate::book`]).
pub struct Listener {
    inner: TcpListener,
    registry: Arc<Registry>,
    local_addr: SocketAddr,
    tls: Option<(Arc<ServerTls>, Plaintext)>,
}

/// A view of a listener's connections, valid after the listener is gone.
#[derive(Clone)]
pub struct Connections(Arc<Registry>);

impl Connections {
    /// Connections open now.
    pub fn open(&self) -> usize {
        self.0.open()
    }

    /// Connections shed (to make room, or past the header timeout) since the start.
    pub fn shed(&self) -> u64 {
        self.0.pressure().0
    }

    /// New connections closed at once since the start (every slot proven).
    pub fn refused(&self) -> u64 {
        self.0.pressure().1
    }
}

impl Listener {
    /// Binds `addr` (the first of its addresses that binds) for the listener called `name`
    /// (in logs). Must run inside a tokio runtime: the header-timeout sweeper is spawned on
    /// it, and ends once the listener and all its connections are gone.
    pub fn bind(addr: impl ToSocketAddrs, name: &'static str, limits: Limits) -> io::Result<Self> {
        limits
            .check()
            .map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))?;
        let mut last = None;
        for candidate in addr.to_socket_addrs()? {
            match bind_one(candidate) {
                Ok(inner) => {
                    let local_addr = inner.local_addr()?;
                    let registry = Arc::new(Registry::new(name, limits));
                    tokio::spawn(sweep(Arc::downgrade(&registry), sweep_tick(limits)));
                    return Ok(Self {
                        inner,
                        registry,
                        local_addr,
                        tls: None,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the address resolves to nothing",
            )
        }))
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves TLS only with `tls` (plaintext clients as `plaintext` says); `None` leaves
    /// the listener plain.
    pub fn with_tls(mut self, tls: Option<Arc<ServerTls>>, plaintext: Plaintext) -> Self {
        self.tls = tls.map(|tls| (tls, plaintext));
        self
    }

    /// Whether the listener serves TLS.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    pub fn limits(&self) -> Limits {
        self.registry.limits
    }

    pub fn connections(&self) -> Connections {
        Connections(self.registry.clone())
    }

    /// Accepts and admits one connection; refused ones are closed and accepting goes on.
    /// An accept error is returned (the caller backs off; [`Listener::accept`] does).
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(Conn, SocketAddr)>> {
        loop {
            let (stream, peer) = match self.inner.poll_accept(cx) {
                Poll::Ready(Ok(accepted)) => accepted,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            let Ok(slot) = self.registry.admit(peer) else {
                drop(stream);
                continue;
            };
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!(listener = self.registry.name, %peer, error = %e, "cannot set TCP_NODELAY");
            }
            let conn = Conn::new(stream, slot, self.registry.clone());
            let conn = match &self.tls {
                None => conn.map(Stream::plain),
                Some((tls, plaintext)) => {
                    let handle = conn.peer();
                    conn.map(|tcp| Stream::tls(tcp, handle, tls.clone(), *plaintext))
                }
            };
            return Poll::Ready(Ok((conn, peer)));
        }
    }

    /// The next admitted connection. Accept errors are logged and retried after a pause;
    /// out of file descriptors, the oldest unproven connection is shed first.
    pub async fn accept(&self) -> (Conn, SocketAddr) {
        loop {
            match std::future::poll_fn(|cx| self.poll_accept(cx)).await {
                Ok(accepted) => return accepted,
                Err(e) => {
                    self.accept_failed(&e);
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            }
        }
    }

    /// After a failed accept: logs it, and frees a descriptor if that is what is missing
    /// (the caller pauses [`ACCEPT_RETRY`] before accepting again).
    pub fn accept_failed(&self, e: &io::Error) {
        let out_of_files = e.raw_os_error().is_some_and(|n| OUT_OF_FILES.contains(&n));
        if out_of_files && self.registry.shed_oldest() {
            tracing::warn!(
                listener = self.registry.name,
                "out of file descriptors: shed the oldest connection without a request"
            );
        } else {
            tracing::warn!(listener = self.registry.name, error = %e, "accept failed");
        }
    }
}

fn bind_one(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// A quarter of the header timeout, between 10 ms and 1 s.
fn sweep_tick(limits: Limits) -> Duration {
    (limits.header_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
}

async fn sweep(registry: Weak<Registry>, tick: Duration) {
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let Some(registry) = registry.upgrade() else {
            return;
        };
        registry.expire();
    }
}
