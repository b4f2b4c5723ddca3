//! The RPC server: a tokio runtime of its own (one thread for every socket, a bounded
//! pool of workers for the calls, which block), `basalt_net`'s listener, and one task per
//! connection.
//!
//! Each connection is a task of [`crate::connection`].

use crate::meta::{ServerIdentity, SingleServer};
use crate::service::scanners::Scanners;
use crate::service::Service;
use crate::topology::{Roles, Topology};
use crate::wire::Limits;
use crate::{HbaseConfig, HbaseError};
use basalt_api::Connection;
use basalt_net::{Connections, Listener};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::runtime::Runtime;

/// How long shutdown waits for running calls.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);

/// What every connection of a server shares.
pub struct Shared {
    pub service: Service,
    pub limits: Limits,
    pub write_timeout: Duration,
    /// Calls of one connection running at once.
    pub calls_in_flight_max: usize,
    /// Refuse SIMPLE (authentication required) unless a verified TLS client certificate
    /// names the user.
    pub refuse_simple: bool,
    /// Whether verified TLS client certificates name the connection's user (TLS with a
    /// client CA).
    pub certificate_users: bool,
    /// Where a certificate's user is looked up (its groups).
    pub authenticator: Option<Arc<basalt_auth::Authenticator>>,
}

/// A running RPC server.
pub struct HbaseServer {
    local_addr: SocketAddr,
    identity: ServerIdentity,
    runtime: Option<Runtime>,
    connections: Connections,
    shared: Arc<Shared>,
}

/// What a server serves, made once its address is known.
pub struct Parts {
    pub conn: Arc<dyn Connection>,
    pub topology: Arc<dyn Topology>,
    pub roles: Roles,
}

/// Starts serving `conn` over HBase's RPC as the cluster `cluster_id`, one server in every
/// role (standalone); it runs on its own threads until [`HbaseServer::shutdown`].
pub fn start(
    conn: Arc<dyn Connection>,
    config: &HbaseConfig,
    cluster_id: &str,
) -> Result<HbaseServer, HbaseError> {
    start_with(config, cluster_id, None, |me| Parts {
        conn,
        topology: Arc::new(SingleServer(me.clone())),
        roles: Roles::ALL,
    })
}

/// Starts a server whose [`Parts`] `make` gives once the listener is bound (a cluster's
/// master or region server: the topology names the server itself). `start_code` is the
/// server's HBase start code (a region server passes its own, so that its native name
/// and its cluster name agree); `None` takes the time now.
pub fn start_with(
    config: &HbaseConfig,
    cluster_id: &str,
    start_code: Option<u64>,
    make: impl FnOnce(&ServerIdentity) -> Parts,
) -> Result<HbaseServer, HbaseError> {
    let limits = config.connection_limits();
    limits.check().map_err(HbaseError::Config)?;
    if config.workers_max == 0 {
        return Err(HbaseError::Config("workers_max must be at least 1".into()));
    }
    if config.calls_in_flight_max == 0 {
        return Err(HbaseError::Config(
            "calls_in_flight_max must be at least 1".into(),
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(config.workers_max)
        .thread_name("hbase-rpc")
        .enable_all()
        .build()?;
    let listener = {
        let _entered = runtime.enter();
        Listener::bind((config.bind.as_str(), config.port), "hbase", limits)
            .map_err(|source| HbaseError::Bind {
                addr: format!("{}:{}", config.bind, config.port),
                source,
            })?
            .with_tls(
                config.tls.get(),
                match config.tls_plaintext {
                    true => basalt_net::Plaintext::Accept,
                    false => basalt_net::Plaintext::REFUSE,
                },
            )
    };
    let local_addr = listener.local_addr();
    let connections = listener.connections();
    let start_code = start_code.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(1)
    });
    let identity = ServerIdentity {
        host: config.advertised_host(),
        port: local_addr.port(),
        start_code,
    };
    let scanners = Scanners::new(
        Duration::from_millis(config.scanner_lease_ms),
        config.scanners_max,
    );
    let parts = make(&identity);
    let shared = Arc::new(Shared {
        service: Service::new(
            parts.conn,
            parts.topology,
            identity.clone(),
            scanners,
            cluster_id.to_string(),
        )
        .with_roles(parts.roles)
        .with_scan_time_limit(match config.scan_time_limit_ms {
            0 => Duration::from_millis(config.scanner_lease_ms) / 2,
            ms => Duration::from_millis(ms),
        }),
        limits: config.limits,
        write_timeout: Duration::from_millis(config.write_timeout_ms.max(1)),
        calls_in_flight_max: config.calls_in_flight_max,
        refuse_simple: config.refuse_simple,
        certificate_users: config.tls.get().is_some_and(|tls| tls.verifies_clients()),
        authenticator: config.authenticator.0.clone(),
    });
    runtime.spawn(accept_loop(listener, shared.clone()));
    tracing::info!(%local_addr, "HBase RPC listening");
    Ok(HbaseServer {
        local_addr,
        identity,
        runtime: Some(runtime),
        connections,
        shared,
    })
}

impl HbaseServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The server as clients are told about it (ZooKeeper, `hbase:meta`).
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// Where everything is, as this server tells clients.
    pub fn topology(&self) -> Arc<dyn Topology> {
        self.shared.service.topology.clone()
    }

    pub fn cluster_id(&self) -> &str {
        &self.shared.service.cluster_id
    }

    /// Connections open now.
    pub fn connections(&self) -> usize {
        self.connections.open()
    }

    /// Scanners open now (expired ones are closed first).
    pub fn open_scanners(&self) -> usize {
        self.shared.service.scanners.open_count()
    }

    /// Stops accepting, closes every connection and waits (a while) for running calls.
    pub fn shutdown(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(SHUTDOWN_WAIT);
            tracing::info!("HBase RPC stopped");
        }
    }
}

impl Drop for HbaseServer {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
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
        tokio::spawn(crate::connection::serve(shared.clone(), conn, session));
    }
}
