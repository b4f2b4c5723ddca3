//! `basalt rest --connect HOST:PORT`: the HBase REST gateway over a running server; and
//! the REST sidecar `basalt standalone` starts over its embedded connection. With `--auth`
//! the separate gateway requires Basic or Bearer and passes each client's credentials to
//! the server (`crate::passthrough`); with `[security] tls_cert_file` it serves HTTPS.

use crate::cli::RestArgs;
use crate::config::BasaltConfig;
use crate::CliError;
use basalt_api::Connection;
use basalt_rest::{RestConfig, RestServer};
use basalt_server::standalone::{shutdown_signal, Sidecar};
use basalt_server::ServerError;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

/// The gateway as a standalone sidecar.
pub struct RestSidecar(RestServer);

impl Sidecar for RestSidecar {
    fn name(&self) -> &str {
        "rest"
    }

    fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(self.0.shutdown())
    }
}

/// Starts the REST sidecar over `conn` (inside the runtime); with `auth`, every request
/// authenticates and `conn` checks each call for its user.
pub fn sidecar(
    conn: Arc<dyn Connection>,
    config: RestConfig,
    auth: Option<basalt_rest::RestAuth>,
) -> Result<Box<dyn Sidecar>, ServerError> {
    basalt_rest::start_authenticated(conn, config, auth)
        .map(|server| Box::new(RestSidecar(server)) as Box<dyn Sidecar>)
        .map_err(|e| ServerError::Task(format!("cannot start the REST gateway: {e}")))
}

/// The gateway's settings: the file's `[rest]` section, then the flags.
pub fn resolve(args: &RestArgs) -> Result<BasaltConfig, CliError> {
    let mut config = match &args.config {
        Some(path) => BasaltConfig::load(path)?,
        None => BasaltConfig::default(),
    };
    if let Some(port) = args.port {
        config.rest.port = port;
    }
    if let Some(bind) = &args.bind {
        config.rest.bind = bind.clone();
    }
    if args.read_only {
        config.rest.read_only = true;
    }
    if let Some(filter) = &args.log {
        config.log.filter = filter.clone();
    }
    Ok(config)
}

/// Serves REST over a remote server until SIGINT or SIGTERM; with `--auth`, each client's
/// credentials are passed to the server (`crate::passthrough`).
pub fn run(args: &RestArgs) -> Result<(), CliError> {
    let mut config = resolve(args)?;
    crate::standalone::init_logging_with_audit(
        &config.log.filter,
        None,
        config.security.audit_log.as_deref(),
    )?;
    let security = crate::passthrough::setup::GatewaySecurity::resolve(
        &config.security,
        args.auth,
        &args.credentials,
        &args.connect,
    )?;
    security.enforce("REST", &config.rest.bind, args.insecure)?;
    config.rest.tls = security.tls.clone();
    let conn: Arc<dyn Connection> = match &security.auth {
        Some(_) => Arc::new(crate::passthrough::PassThrough),
        None => Arc::new(args.credentials.connect(&args.connect)?),
    };
    let auth = security
        .auth
        .clone()
        .map(|authenticator| basalt_rest::RestAuth {
            authenticator,
            encrypted: security.tls.is_on(),
        });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name("basalt-rest")
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(async {
        let server =
            basalt_rest::start_authenticated(conn, config.rest, auth).map_err(CliError::Rest)?;
        let mut out = std::io::stdout();
        let _ = writeln!(out, "basalt rest listening on {}", server.local_addr());
        let _ = out.flush();
        shutdown_signal().await;
        server.shutdown().await;
        Ok(())
    })
}
