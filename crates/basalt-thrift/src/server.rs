//! The listener: a blocking accept loop and a thread per connection, up to a cap (HBase's
//! default `TThreadPoolServer` model), with idle timeouts and a clean shutdown.

use crate::config::ThriftConfig;
use crate::connection;
use crate::scanners::Scanners;
use crate::service::Service;
use crate::transport::Transport;
use crate::ThriftError;
use basalt_api::Connection;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long shutdown waits for connection threads to end.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);

struct Shared {
    service: Service,
    config: ThriftConfig,
    stopping: AtomicBool,
    next_session: AtomicU64,
    /// Open connections by session, to end them on shutdown.
    connections: Mutex<HashMap<u64, TcpStream>>,
    ended: Condvar,
}

/// A running Thrift gateway.
pub struct ThriftServer {
    local_addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

/// Starts the gateway over `conn`; it serves on its own threads until [`ThriftServer::shutdown`].
pub fn start(conn: Arc<dyn Connection>, config: ThriftConfig) -> Result<ThriftServer, ThriftError> {
    if config.connections_max == 0 {
        return Err(ThriftError::Config(
            "connections_max must be at least 1".into(),
        ));
    }
    let addr = format!("{}:{}", config.bind, config.port);
    let listener = TcpListener::bind(&addr).map_err(|source| ThriftError::Bind {
        addr: addr.clone(),
        source,
    })?;
    let local_addr = listener.local_addr()?;
    let scanners = Scanners::new(
        Duration::from_millis(config.scanner_lease_ms),
        config.scanners_max,
    );
    let shared = Arc::new(Shared {
        service: Service::new(conn, scanners),
        config,
        stopping: AtomicBool::new(false),
        next_session: AtomicU64::new(1),
        connections: Mutex::new(HashMap::new()),
        ended: Condvar::new(),
    });
    let accepting = shared.clone();
    let acceptor = std::thread::Builder::new()
        .name("thrift-accept".into())
        .spawn(move || accept_loop(&accepting, &listener))?;
    tracing::info!(%local_addr, "Thrift gateway listening");
    Ok(ThriftServer {
        local_addr,
        shared,
        acceptor: Some(acceptor),
    })
}

impl ThriftServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Connections open now.
    pub fn connections(&self) -> usize {
        self.shared.connections.lock().len()
    }

    /// Scanners open now (expired ones are closed first).
    pub fn open_scanners(&self) -> usize {
        self.shared.service.open_scanners()
    }

    /// Stops accepting, ends every connection and waits for their threads.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let Some(acceptor) = self.acceptor.take() else {
            return;
        };
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the blocking accept with a connection of our own.
        let mut wake = self.local_addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        let _ = acceptor.join();
        let mut connections = self.shared.connections.lock();
        for stream in connections.values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let deadline = std::time::Instant::now() + SHUTDOWN_WAIT;
        while !connections.is_empty() {
            if self
                .shared
                .ended
                .wait_until(&mut connections, deadline)
                .timed_out()
            {
                tracing::warn!(
                    left = connections.len(),
                    "Thrift connections did not end in time"
                );
                break;
            }
        }
        tracing::info!("Thrift gateway stopped");
    }
}

impl Drop for ThriftServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(shared: &Arc<Shared>, listener: &TcpListener) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                tracing::warn!("Thrift accept failed: {e}");
                continue;
            }
        };
        if let Err(e) = admit(shared, stream) {
            tracing::warn!("cannot serve a Thrift connection: {e}");
        }
    }
}

fn admit(shared: &Arc<Shared>, stream: TcpStream) -> Result<(), ThriftError> {
    let session = shared.next_session.fetch_add(1, Ordering::Relaxed);
    {
        let mut connections = shared.connections.lock();
        if connections.len() >= shared.config.connections_max {
            tracing::warn!(
                limit = shared.config.connections_max,
                "too many Thrift connections: closing a new one"
            );
            return Ok(());
        }
        connections.insert(session, stream.try_clone()?);
    }
    let serving = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("thrift-conn".into())
        .spawn(move || {
            if let Err(e) = run_connection(&serving, session, stream) {
                tracing::debug!(session, "Thrift connection ended: {e}");
            }
            serving.service.end_session(session);
            serving.connections.lock().remove(&session);
            serving.ended.notify_all();
        });
    if let Err(e) = spawned {
        shared.connections.lock().remove(&session);
        return Err(e.into());
    }
    Ok(())
}

fn run_connection(shared: &Shared, session: u64, stream: TcpStream) -> Result<(), ThriftError> {
    let idle = Duration::from_millis(shared.config.idle_timeout_ms.max(1));
    stream.set_read_timeout(Some(idle))?;
    stream.set_write_timeout(Some(idle))?;
    stream.set_nodelay(true)?;
    let mut transport = Transport::new(
        stream,
        shared.config.transport(),
        shared.config.protocol(),
        shared.config.limits.clone(),
    )?;
    connection::serve(&shared.service, session, &mut transport);
    Ok(())
}
