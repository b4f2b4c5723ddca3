//! Standalone mode: master and region server in one process over one data folder.
//!
//! [`run`] opens the embedded database (replaying its log), serves it, reports the address
//! through `on_ready`, waits for `shutdown` (SIGINT/SIGTERM in the binary, see
//! [`shutdown_signal`]), then stops accepting work, lets running calls finish, flushes
//! every memstore and closes the database.
//!
//! Beside gRPC, standalone runs [`Sidecar`]s — the Thrift and REST gateways and the web
//! UI — started by the `attach` callback once the database is open, and stopped (in
//! reverse order) after gRPC stops and before the database closes.

use crate::config::ServerConfig;
use crate::error::ServerError;
use crate::server::start;
use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

/// A listener standalone runs beside gRPC: a gateway or the web UI.
pub trait Sidecar: Send {
    /// What it serves, for logs and the ready lines ("thrift", "rest", "web UI").
    fn name(&self) -> &str;
    /// Where it listens.
    fn local_addr(&self) -> SocketAddr;
    /// Stops accepting, ends its connections and waits for them.
    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

/// Starts the sidecars over the open database; runs inside the tokio runtime.
pub type Attach = Box<
    dyn FnOnce(&Arc<Database>, Arc<dyn Connection>) -> Result<Vec<Box<dyn Sidecar>>, ServerError>
        + Send,
>;

/// Everything a standalone server needs.
#[derive(Debug, Clone)]
pub struct StandaloneConfig {
    pub data_dir: PathBuf,
    pub server: ServerConfig,
    pub db: DbConfig,
}

/// Serves until `shutdown` completes, then closes the database cleanly. `on_ready` gets
/// the gRPC address and the sidecars `attach` started.
pub async fn run(
    config: StandaloneConfig,
    attach: Attach,
    on_ready: impl FnOnce(SocketAddr, &[Box<dyn Sidecar>]),
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let StandaloneConfig {
        data_dir,
        server,
        db,
    } = config;
    tracing::info!(data_dir = %data_dir.display(), "opening the database");
    let dir = data_dir.clone();
    let database = tokio::task::spawn_blocking(move || Database::open(&dir, db))
        .await
        .map_err(|e| ServerError::Task(e.to_string()))??;
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(database.clone()));
    let handle = match start(conn.clone(), server).await {
        Ok(handle) => handle,
        Err(e) => {
            close(database).await?;
            return Err(e);
        }
    };
    let sidecars = match attach(&database, conn) {
        Ok(sidecars) => sidecars,
        Err(e) => {
            let _ = handle.shutdown().await;
            close(database).await?;
            return Err(e);
        }
    };
    on_ready(handle.local_addr(), &sidecars);
    shutdown.await;
    tracing::info!("shutting down: no new calls; waiting for running ones");
    let stopped = handle.shutdown().await;
    for sidecar in sidecars.into_iter().rev() {
        tracing::info!(name = sidecar.name(), "stopping");
        sidecar.shutdown().await;
    }
    tracing::info!("flushing memstores and closing the database");
    close(database).await?;
    tracing::info!("stopped cleanly");
    stopped
}

async fn close(database: Arc<Database>) -> Result<(), ServerError> {
    tokio::task::spawn_blocking(move || database.close())
        .await
        .map_err(|e| ServerError::Task(e.to_string()))??;
    Ok(())
}

/// Completes on SIGINT or SIGTERM (Ctrl-C elsewhere).
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut int), Ok(mut term)) => {
                tokio::select! {
                    _ = int.recv() => tracing::info!("SIGINT received"),
                    _ = term.recv() => tracing::info!("SIGTERM received"),
                }
            }
            _ => {
                tracing::warn!("cannot install signal handlers; Ctrl-C only");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
