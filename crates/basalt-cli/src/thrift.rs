//! The Thrift gateways in the `basalt` binary: `basalt thrift --connect HOST:PORT` against
//! a running server (Thrift1, or Thrift2 with `--thrift2`; over HTTP with `--http`), and
//! the sidecars `basalt standalone` runs over its own database (`thrift`, and `thrift2`
//! when `--thrift2-port` asks for it). With `--auth` the separate gateway requires SASL
//! PLAIN and passes each client's credentials to the server (`crate::passthrough`); with
//! `[security] tls_cert_file` its listener serves TLS.

use crate::cli::ThriftArgs;
use crate::config::BasaltConfig;
use crate::sidecar::BlockingSidecar;
use crate::CliError;
use basalt_api::Connection;
use basalt_server::standalone::{shutdown_signal, Sidecar};
use basalt_server::ServerError;
use basalt_thrift::{Flavor, ThriftConfig};
use std::io::Write;
use std::sync::Arc;

/// Starts the gateway over standalone's connection; with `auth`, connections authenticate
/// with SASL PLAIN and `conn` checks each call's ACLs.
pub fn sidecar(
    conn: Arc<dyn Connection>,
    config: ThriftConfig,
    auth: Option<Arc<basalt_auth::Authenticator>>,
) -> Result<Box<dyn Sidecar>, ServerError> {
    let name = match config.flavor() {
        Flavor::Thrift1 => "thrift",
        Flavor::Thrift2 => "thrift2",
    };
    let server = basalt_thrift::start_with_auth(conn, config, auth)
        .map_err(|e| ServerError::Task(format!("cannot start the {name} gateway: {e}")))?;
    let addr = server.local_addr();
    Ok(BlockingSidecar::boxed(name, addr, move || {
        server.shutdown()
    }))
}

/// The settings after the file and the flags.
pub fn resolve(args: &ThriftArgs) -> Result<ThriftConfig, CliError> {
    Ok(resolve_all(args)?.thrift)
}

/// The file's `[thrift]` (after the flags) and `[security]`.
fn resolve_all(args: &ThriftArgs) -> Result<BasaltConfig, CliError> {
    let mut file = match &args.config {
        Some(path) => BasaltConfig::load(path)?,
        None => BasaltConfig::default(),
    };
    let config = &mut file.thrift;
    if let Some(port) = args.port {
        config.port = port;
    }
    if let Some(bind) = &args.bind {
        config.bind = bind.clone();
    }
    config.framed |= args.framed;
    config.compact |= args.compact;
    config.http |= args.http;
    config.thrift2 |= args.thrift2;
    Ok(file)
}

/// `basalt thrift`: serves until SIGINT or SIGTERM; with `--auth`, connections negotiate
/// SASL PLAIN and their credentials are passed to the server (`crate::passthrough`).
pub fn run(args: &ThriftArgs) -> Result<(), CliError> {
    let file = resolve_all(args)?;
    let mut config = file.thrift;
    crate::standalone::init_logging_with_audit(
        args.log.as_deref().unwrap_or("info"),
        None,
        file.security.audit_log.as_deref(),
    )?;
    let security = crate::passthrough::setup::GatewaySecurity::resolve(
        &file.security,
        args.auth,
        &args.credentials,
        &args.connect,
    )?;
    security.enforce("Thrift", &config.bind, args.insecure)?;
    config.tls = security.tls.clone();
    let conn: Arc<dyn Connection> = match &security.auth {
        Some(_) => Arc::new(crate::passthrough::PassThrough),
        None => Arc::new(args.credentials.connect(&args.connect)?),
    };
    let server = basalt_thrift::start_with_auth(conn, config, security.auth.clone())
        .map_err(|e| CliError::Thrift(e.to_string()))?;
    let mut out = std::io::stdout();
    let _ = writeln!(out, "basalt thrift listening on {}", server.local_addr());
    let _ = out.flush();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(shutdown_signal());
    server.shutdown();
    Ok(())
}
