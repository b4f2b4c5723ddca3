//! The web UI of `basalt master` (`--web-port`, HBase's 16010) and `basalt regionserver`
//! (16030); `--web-port 0` picks a free port, as `--port 0` does, and `--no-web` serves
//! none.
//!
//! It listens on the process's `--bind` address (loopback unless `--insecure`) before the
//! process registers, so a region server registers the port it really serves. Its pages
//! read the process's own RPC services, whose address it learns once they listen
//! ([`ClusterWeb::serving`]); until then they answer 503. The `[web.heat]` section of
//! `--config` sets its hot-spot sampling (a master samples its region servers' reports).
//! With authentication required its pages need a superuser's sign-in and `/metrics` a
//! session or a token (`basalt_web::access`). With `[security] tls_cert_file` it serves
//! HTTPS only (the certificate every listener of the process serves, reloaded alike), and
//! its session cookie is `Secure`.

use crate::cluster::ClusterArgs;
use crate::CliError;
use basalt_web::{LogBuffer, ServerInfo, WebConfig, WebServer};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Which process's pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Master,
    RegionServer,
}

/// A cluster process's running web UI.
pub struct ClusterWeb {
    server: WebServer,
    grpc_addr: Arc<OnceLock<String>>,
}

impl ClusterWeb {
    /// Starts the web UI inside the current tokio runtime, prints the ready line
    /// `basalt web listening on ADDR` (as standalone's sidecar does); None with `--no-web`.
    #[expect(
        clippy::too_many_arguments,
        reason = "each is one setting of the UI, passed once from each of two call sites"
    )]
    pub fn start(
        kind: Kind,
        args: &ClusterArgs,
        port: u16,
        enabled: bool,
        logs: Arc<LogBuffer>,
        config_text: String,
        heat: basalt_web::heat::HeatConfig,
        auth: Option<Arc<basalt_auth::Authenticator>>,
        tls: basalt_net::TlsSlot,
    ) -> Result<Option<ClusterWeb>, CliError> {
        if !enabled {
            return Ok(None);
        }
        let mut info = ServerInfo::new(env!("CARGO_PKG_VERSION"), PathBuf::from(&args.store));
        info.server_name = args.bind.clone();
        info.config_text = config_text;
        info.logs = logs;
        // With authentication required the pages need a superuser's sign-in.
        info.auth = auth.filter(|a| a.required());
        let grpc_addr = info.grpc_addr.clone();
        let config = WebConfig {
            bind: args.bind.clone(),
            port,
            heat,
            tls,
            ..WebConfig::default()
        };
        let started = match kind {
            Kind::Master => basalt_web::start_master(info, config),
            Kind::RegionServer => basalt_web::start_region_server(info, config),
        };
        let server = started.map_err(|e| CliError::Cluster(format!("the web UI: {e}")))?;
        let mut out = std::io::stdout();
        let _ = writeln!(out, "basalt web listening on {}", server.local_addr());
        let _ = out.flush();
        Ok(Some(ClusterWeb { server, grpc_addr }))
    }

    /// The port it serves on (the one picked when 0 was asked).
    pub fn port(&self) -> u16 {
        self.server.local_addr().port()
    }

    /// The process's RPC listens at `addr`: the pages may read it.
    pub fn serving(&self, addr: SocketAddr) {
        let _ = self.grpc_addr.set(addr.to_string());
    }

    pub async fn shutdown(self) {
        self.server.shutdown().await;
    }
}

/// What the configuration page shows: the command line's settings.
pub fn config_text(settings: &impl std::fmt::Debug) -> String {
    format!("{settings:#?}")
}
