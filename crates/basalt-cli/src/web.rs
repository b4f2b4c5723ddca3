//! The web UI (`basalt-web`) as a sidecar of `basalt standalone`: started once the master
//! and the region server serve, reading them over RPC; stopped before they stop.

use crate::config::BasaltConfig;
use basalt_api::Connection;
use basalt_server::standalone::Sidecar;
use basalt_server::ServerError;
use basalt_web::{LogBuffer, ServerInfo, WebError, WebServer};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

/// The name in the ready line: `basalt web listening on ADDR`.
pub const NAME: &str = "web";

struct WebSidecar(WebServer);

impl Sidecar for WebSidecar {
    fn name(&self) -> &str {
        NAME
    }

    fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(self.0.shutdown())
    }
}

/// Starts the web UI when the configuration enables it; runs inside the tokio runtime.
/// `grpc_addr` is the master's (shown to users), `server_addr` the region server's (its
/// report is read over RPC), `conn` a client of the master.
pub fn attach(
    config: &BasaltConfig,
    logs: Arc<LogBuffer>,
    grpc_addr: Arc<OnceLock<String>>,
    server_addr: String,
    conn: Arc<dyn Connection>,
    auth: Option<Arc<basalt_auth::Authenticator>>,
) -> Result<Option<Box<dyn Sidecar>>, ServerError> {
    if !config.web.enabled {
        return Ok(None);
    }
    let mut info = ServerInfo::new(env!("CARGO_PKG_VERSION"), config.data_dir.clone());
    info.grpc_addr = grpc_addr;
    info.config_text = toml::to_string(config)
        .unwrap_or_else(|e| format!("# the configuration could not be written: {e}"));
    info.logs = logs;
    // With authentication required the pages need a superuser's sign-in.
    info.auth = auth.filter(|a| a.required());
    let server = basalt_web::start_standalone(conn, server_addr, info, config.web.clone())
        .map_err(|e| match e {
            WebError::Bind { addr, source } => ServerError::Bind { addr, source },
            other => ServerError::Task(format!("the web UI did not start: {other}")),
        })?;
    Ok(Some(Box::new(WebSidecar(server))))
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn resolved(args: &[&str]) -> crate::config::BasaltConfig {
        let cli = Cli::try_parse_from(args).expect("valid command line");
        let Command::Standalone(args) = cli.command else {
            panic!("not standalone");
        };
        crate::standalone::resolve(&args).expect("resolves")
    }

    #[test]
    fn web_flags_override_the_defaults() {
        let defaults = resolved(&["basalt", "standalone"]);
        assert!(defaults.web.enabled);
        assert_eq!(defaults.web.port, 16010);
        let flagged = resolved(&["basalt", "standalone", "--web-port", "0", "--no-web"]);
        assert_eq!(flagged.web.port, 0);
        assert!(!flagged.web.enabled);
        assert!(Cli::try_parse_from(["basalt", "standalone", "--web-port", "70000"]).is_err());
    }
}
