//! What standalone runs beside its servers, and how it stops.
//!
//! `basalt standalone` (in `basalt-cli`) serves a data folder as a master and a region
//! server in one process; in front of them it runs [`Sidecar`]s — the Thrift and REST
//! gateways and the web UI — stopped (in reverse order) before the servers.
//! [`shutdown_signal`] completes on SIGINT or SIGTERM.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

/// A listener standalone runs beside gRPC: a gateway or the web UI.
pub trait Sidecar: Send {
    /// What it serves, for logs and the ready lines ("thrift", "rest", "web UI").
    fn name(&self) -> &str;
    /// Where it listens.
    fn local_addr(&self) -> SocketAddr;
    /// Stops accepting, ends its connections and waits for them.
    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>>;
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
