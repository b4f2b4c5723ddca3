//! Starting and stopping the gRPC server around a hosted [`Connection`].
//!
//! [`start`] binds the port, then serves `TableService` and `AdminService` on the current
//! tokio runtime until [`ServerHandle::shutdown`]: the listener closes at once, running
//! calls finish (up to a grace period), then the task ends. [`BackgroundServer`] does the
//! same on a runtime of its own, for blocking programs and tests.

use crate::admin_service::AdminSvc;
use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::listener::Incoming;
use crate::shared::Shared;
use crate::table_service::TableSvc;
use basalt_api::Connection;
use basalt_net::Listener;
use basalt_proto::pb::admin_service_server::AdminServiceServer;
use basalt_proto::pb::table_service_server::TableServiceServer;
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long a shutdown waits for running calls before dropping them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A running server.
pub struct ServerHandle {
    local_addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServerError>>,
    reaper: JoinHandle<()>,
    shared: Arc<Shared>,
    sockets: basalt_net::Connections,
}

impl ServerHandle {
    /// The address the server listens on (with the port chosen when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Scanners open on the server now (for monitoring and tests).
    pub fn open_scanners(&self) -> usize {
        self.shared.scanners.len()
    }

    /// TCP connections open now (in-process pipes are not sockets, and not counted).
    pub fn open_sockets(&self) -> usize {
        self.sockets.open()
    }

    /// Stops accepting connections and calls, waits for running calls (up to
    /// [`SHUTDOWN_GRACE`]) and returns once the server is down.
    pub async fn shutdown(mut self) -> Result<(), ServerError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.reaper.abort();
        match tokio::time::timeout(SHUTDOWN_GRACE, &mut self.task).await {
            Ok(joined) => joined.map_err(|e| ServerError::Task(e.to_string()))?,
            Err(_) => {
                tracing::warn!(
                    "calls still running after the shutdown grace period: dropping them"
                );
                self.task.abort();
                Ok(())
            }
        }
    }
}

/// Binds `config.bind:config.port` and serves `conn` on the current tokio runtime.
pub async fn start(
    conn: Arc<dyn Connection>,
    config: ServerConfig,
) -> Result<ServerHandle, ServerError> {
    start_with(conn, config, |routes| routes).await
}

/// As [`start`], with more services beside `TableService` and `AdminService` (a region
/// server's and a master's own): `extra` adds them to the routes.
pub async fn start_with(
    conn: Arc<dyn Connection>,
    config: ServerConfig,
    extra: impl FnOnce(tonic::service::Routes) -> tonic::service::Routes,
) -> Result<ServerHandle, ServerError> {
    let listener = bind(&config)?;
    start_on(listener, conn, config, extra).await
}

/// Binds `config`'s address now (a port of 0 picks a free one, kept from here on): a
/// process that must know its port before it serves (a master's or region server's name
/// holds it) binds first, then [`start_on`].
pub fn bind(config: &ServerConfig) -> Result<Listener, ServerError> {
    Listener::bind(
        (config.bind.as_str(), config.port),
        "grpc",
        config.connection_limits(),
    )
    .map(|listener| listener.with_tls(config.tls.get(), basalt_net::Plaintext::REFUSE))
    .map_err(|source| ServerError::Bind {
        addr: format!("{}:{}", config.bind, config.port),
        source,
    })
}

/// As [`start_with`], on a listener already bound by [`bind`].
pub async fn start_on(
    listener: Listener,
    conn: Arc<dyn Connection>,
    config: ServerConfig,
    extra: impl FnOnce(tonic::service::Routes) -> tonic::service::Routes,
) -> Result<ServerHandle, ServerError> {
    let local_addr = listener.local_addr();
    let sockets = listener.connections();
    let gate = crate::authorize::gate(&conn, &config.acl);
    let conn = crate::authorize::served(conn, &config.acl);
    let shared = Arc::new(Shared::new(conn, config.clone()));
    let reaper = tokio::spawn(reap_scanners(Arc::downgrade(&shared)));
    let table = TableServiceServer::new(TableSvc::new(shared.clone()))
        .max_decoding_message_size(config.request_max_bytes)
        .max_encoding_message_size(config.response_max_bytes);
    let admin = AdminServiceServer::new(AdminSvc::new(shared.clone()))
        .max_decoding_message_size(config.request_max_bytes)
        .max_encoding_message_size(config.response_max_bytes);
    let keepalive = Duration::from_millis((config.idle_timeout_ms / 3).max(1000));
    let mut builder = tonic::transport::Server::builder()
        .concurrency_limit_per_connection(config.calls_per_connection_max as usize)
        .max_concurrent_streams(config.calls_per_connection_max)
        .http2_keepalive_interval(Some(keepalive))
        .http2_keepalive_timeout(Some(keepalive))
        .http2_max_header_list_size(64 * 1024)
        .http2_max_pending_accept_reset_streams(Some(64))
        .trace_fn(|request| tracing::debug_span!("call", path = %request.uri().path()));
    if config.call_timeout_ms > 0 {
        builder = builder.timeout(Duration::from_millis(config.call_timeout_ms));
    }
    let routes = extra(tonic::service::Routes::new(table).add_service(admin));
    // The first layer is the outermost: authentication refuses a call or puts its
    // principal in the extensions, where the principal layer takes it.
    let router = builder
        .layer(crate::auth::AuthLayer::new(config.auth.0.clone(), gate))
        .layer(crate::principal::PrincipalLayer)
        .add_routes(routes);
    let (stop, stopped) = oneshot::channel::<()>();
    let local = config
        .in_process
        .then(|| basalt_proto::in_process::register(local_addr));
    let incoming = Incoming::new(listener, local);
    let task = tokio::spawn(async move {
        router
            .serve_with_incoming_shutdown(incoming, async {
                let _ = stopped.await;
            })
            .await
            .map_err(ServerError::from)
    });
    Ok(ServerHandle {
        local_addr,
        stop: Some(stop),
        task,
        reaper,
        shared,
        sockets,
    })
}

/// Drops expired scanners every quarter lease (between 50 ms and 5 s) while the server runs.
async fn reap_scanners(shared: Weak<Shared>) {
    let period = match shared.upgrade() {
        Some(s) => {
            (s.scanners.lease() / 4).clamp(Duration::from_millis(50), Duration::from_secs(5))
        }
        None => return,
    };
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(s) = shared.upgrade() else { return };
        let reaped = s.scanners.reap();
        if reaped > 0 {
            tracing::debug!(reaped, "expired idle scanners");
        }
    }
}

/// A server on a runtime of its own, for callers without one (blocking programs, tests).
pub struct BackgroundServer {
    runtime: Option<tokio::runtime::Runtime>,
    handle: Option<ServerHandle>,
}

impl BackgroundServer {
    pub fn start(conn: Arc<dyn Connection>, config: ServerConfig) -> Result<Self, ServerError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("basalt-server")
            .enable_all()
            .build()
            .map_err(ServerError::Runtime)?;
        let handle = runtime.block_on(start(conn, config))?;
        Ok(Self {
            runtime: Some(runtime),
            handle: Some(handle),
        })
    }

    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.handle.as_ref().map(ServerHandle::local_addr)
    }

    /// Scanners open on the server now.
    pub fn open_scanners(&self) -> usize {
        self.handle.as_ref().map_or(0, ServerHandle::open_scanners)
    }

    /// TCP connections open now (see [`ServerHandle::open_sockets`]).
    pub fn open_sockets(&self) -> usize {
        self.handle.as_ref().map_or(0, ServerHandle::open_sockets)
    }

    /// Stops the server (see [`ServerHandle::shutdown`]).
    pub fn shutdown(mut self) -> Result<(), ServerError> {
        self.stop()
    }

    fn stop(&mut self) -> Result<(), ServerError> {
        let (Some(runtime), Some(handle)) = (self.runtime.take(), self.handle.take()) else {
            return Ok(());
        };
        let result = runtime.block_on(handle.shutdown());
        runtime.shutdown_timeout(Duration::from_secs(1));
        result
    }
}

impl Drop for BackgroundServer {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            tracing::warn!(error = %e, "server stopped with an error");
        }
    }
}
