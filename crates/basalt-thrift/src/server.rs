//! The gateway: a tokio runtime of its own (one thread for all sockets, a bounded pool of
//! workers for the calls, which block), the shared listener of `basalt_net`, and shutdown.
//!
//! A runtime of its own keeps [`start`] and [`ThriftServer::shutdown`] plain functions
//! (`basalt thrift` and the tests have no runtime) and the calls' workers apart from the
//! other servers'.

use crate::config::{Flavor, ThriftConfig};
use crate::connection::{self, Shared};
use crate::http;
use crate::scanners::Scanners;
use crate::service::Service;
use crate::ThriftError;
use basalt_api::Connection;
use basalt_net::{Connections, Listener};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

/// How long shutdown waits for running calls.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);

/// A running Thrift gateway.
pub struct ThriftServer {
    local_addr: SocketAddr,
    runtime: Option<Runtime>,
    connections: Connections,
    shared: Arc<Shared>,
}

/// Starts the gateway over `conn`; it serves on its own threads until [`ThriftServer::shutdown`].
pub fn start(conn: Arc<dyn Connection>, config: ThriftConfig) -> Result<ThriftServer, ThriftError> {
    start_with_auth(conn, config, None)
}

/// The same; with `auth`, every connection authenticates with SASL PLAIN before any call
/// and its calls run as its principal (give a `conn` that checks ACLs per call, such as
/// `basalt_acl::AuthorizedConnection::per_call`). Thrift over HTTP cannot negotiate SASL
/// and is refused with `auth`.
pub fn start_with_auth(
    conn: Arc<dyn Connection>,
    config: ThriftConfig,
    auth: Option<Arc<basalt_auth::Authenticator>>,
) -> Result<ThriftServer, ThriftError> {
    config.check().map_err(ThriftError::Config)?;
    if auth.is_some() && config.http {
        return Err(ThriftError::Config(
            "Thrift over HTTP cannot authenticate (SASL PLAIN needs the socket transports): leave --thrift-http (http in [thrift]) off when authentication is required".into(),
        ));
    }
    let limits = config.connection_limits();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(config.workers_max)
        .thread_name("thrift")
        .enable_all()
        .build()?;
    let listener = {
        let _entered = runtime.enter();
        let name = match config.flavor() {
            Flavor::Thrift1 => "thrift",
            Flavor::Thrift2 => "thrift2",
        };
        Listener::bind((config.bind.as_str(), config.port), name, limits)
            .map_err(|source| ThriftError::Bind {
                addr: format!("{}:{}", config.bind, config.port),
                source,
            })?
            .with_tls(
                config.tls.get(),
                match config.http {
                    true => basalt_net::Plaintext::REFUSE_HTTP,
                    false => basalt_net::Plaintext::REFUSE,
                },
            )
    };
    let local_addr = listener.local_addr();
    let connections = listener.connections();
    let scanners = Scanners::new(
        Duration::from_millis(config.scanner_lease_ms),
        config.scanners_max,
    );
    let shared = Arc::new(
        Shared::new(
            Service::new(conn, scanners, config.flavor()),
            config.wire(),
            Duration::from_millis(config.write_timeout_ms.max(1)),
        )
        .with_gate(auth.map(|auth| crate::gate::Gate {
            auth,
            timeout: Duration::from_millis(config.header_timeout_ms.max(1)),
        })),
    );
    match config.http {
        true => {
            runtime.spawn(http::serve(listener, shared.clone()));
        }
        false => {
            runtime.spawn(accept_loop(listener, shared.clone()));
        }
    }
    tracing::info!(%local_addr, flavor = ?config.flavor(), http = config.http, sasl = shared.gate.is_some(), "Thrift gateway listening");
    Ok(ThriftServer {
        local_addr,
        runtime: Some(runtime),
        connections,
        shared,
    })
}

impl ThriftServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Connections open now.
    pub fn connections(&self) -> usize {
        self.connections.open()
    }

    /// Connections shed since the start (to make room, or past the header timeout).
    pub fn shed_connections(&self) -> u64 {
        self.connections.shed()
    }

    /// Scanners open now (expired ones are closed first).
    pub fn open_scanners(&self) -> usize {
        self.shared.service.open_scanners()
    }

    /// Stops accepting, closes every connection and waits (a while) for running calls.
    pub fn shutdown(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(SHUTDOWN_WAIT);
            tracing::info!("Thrift gateway stopped");
        }
    }
}

impl Drop for ThriftServer {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        // Waiting is not allowed inside another runtime.
        match tokio::runtime::Handle::try_current() {
            Ok(_) => runtime.shutdown_background(),
            Err(_) => runtime.shutdown_timeout(SHUTDOWN_WAIT),
        }
    }
}

async fn accept_loop(listener: Listener, shared: Arc<Shared>) {
    let mut session = 0u64;
    loop {
        let (conn, _) = listener.accept().await;
        session += 1;
        tokio::spawn(connection::serve(shared.clone(), conn, session));
    }
}
