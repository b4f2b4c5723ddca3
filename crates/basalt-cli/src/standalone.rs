//! `basalt standalone`: settings from file, environment and flags; logging; the runtime;
//! the ready line; shutdown on SIGINT/SIGTERM.

use crate::cli::StandaloneArgs;
use crate::config::BasaltConfig;
use crate::CliError;
use basalt_server::standalone::Sidecar;
use basalt_web::LogBuffer;
use std::io::Write;
use std::sync::Arc;

/// Warnings and errors kept for the web UI's home page.
const LOG_PROBLEMS_MAX: usize = 100;

/// The settings after the file, environment and flags.
pub fn resolve(args: &StandaloneArgs) -> Result<BasaltConfig, CliError> {
    let mut config = match &args.config {
        Some(path) => BasaltConfig::load(path)?,
        None => BasaltConfig::default(),
    };
    if let Some(dir) = &args.data_dir {
        config.data_dir = dir.clone();
    }
    if let Some(port) = args.port {
        config.server.port = port;
    }
    apply_binds(args, &mut config);
    if let Some(port) = args.rest_port {
        config.rest.port = port;
    }
    if let Some(port) = args.web_port {
        config.web.port = port;
    }
    if args.no_web {
        config.web.enabled = false;
    }
    if let Some(port) = args.thrift_port {
        config.thrift.port = port;
    }
    config.thrift.framed |= args.thrift_framed;
    config.thrift.compact |= args.thrift_compact;
    config.thrift.http |= args.thrift_http;
    if let Some(port) = args.thrift2_port {
        config.thrift.thrift2_port = Some(port);
    }
    crate::hbase::apply_flags(args, &mut config.hbase);
    if args.auth {
        config.security.auth = crate::security::AuthMode::Required;
    }
    if let Some(filter) = &args.log {
        config.log.filter = filter.clone();
    } else if args.config.is_none() {
        if let Ok(filter) = std::env::var("RUST_LOG") {
            config.log.filter = filter;
        }
    }
    Ok(config)
}

/// `--bind` moves every listener; `--grpc-bind`, `--thrift-bind`, `--rest-bind` and
/// `--web-bind` then move one alone.
fn apply_binds(args: &StandaloneArgs, config: &mut BasaltConfig) {
    if let Some(bind) = &args.bind {
        for section in [
            &mut config.server.bind,
            &mut config.thrift.bind,
            &mut config.rest.bind,
            &mut config.web.bind,
            &mut config.hbase.bind,
        ] {
            section.clone_from(bind);
        }
    }
    for (flag, section) in [
        (&args.grpc_bind, &mut config.server.bind),
        (&args.thrift_bind, &mut config.thrift.bind),
        (&args.rest_bind, &mut config.rest.bind),
        (&args.web_bind, &mut config.web.bind),
        (&args.hbase_bind, &mut config.hbase.bind),
    ] {
        if let Some(bind) = flag {
            section.clone_from(bind);
        }
    }
}

/// Logs to stderr and, when given `logs` (standalone's web UI), into it too.
pub(crate) fn init_logging(filter: &str, logs: Option<&Arc<LogBuffer>>) -> Result<(), CliError> {
    init_logging_with_audit(filter, logs, None)
}

/// The tracing targets of audit events: authentication results, and ACL denials.
const AUDIT_TARGETS: [&str; 2] = [basalt_auth::audit::TARGET, "basalt_acl::audit"];

/// As [`init_logging`], with the audit events ([`AUDIT_TARGETS`]) also appended to
/// `audit`, whatever the filter says.
pub(crate) fn init_logging_with_audit(
    filter: &str,
    logs: Option<&Arc<LogBuffer>>,
    audit: Option<&std::path::Path>,
) -> Result<(), CliError> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let parse = || {
        tracing_subscriber::EnvFilter::try_new(filter)
            .map_err(|e| CliError::BadLogFilter(format!("{filter}: {e}")))
    };
    // The web UI's log page keeps what stderr shows: unfiltered, it took every event of
    // every library at every level (h2's per-frame traces among them), and each such
    // event was built and formatted only to be thrown away (1.3% of a scan's profile).
    let page_filter = parse()?;
    let filter = parse()?;
    let audit_layer = match audit {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| {
                    CliError::BadLogFilter(format!("audit log {}: {e}", path.display()))
                })?;
            }
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| {
                    CliError::BadLogFilter(format!("audit log {}: {e}", path.display()))
                })?;
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(std::sync::Mutex::new(file))
                    .with_filter(tracing_subscriber::filter::filter_fn(|m| {
                        AUDIT_TARGETS.contains(&m.target())
                    })),
            )
        }
        None => None,
    };
    tracing_subscriber::registry()
        .with(audit_layer)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(filter),
        )
        .with(logs.map(|logs| logs.layer().with_filter(page_filter)))
        .try_init()
        .map_err(|e| CliError::BadLogFilter(e.to_string()))
}

/// Serves the data folder as a cluster in one process (design §5.6): the master on the
/// gRPC port, a region server on a free port beside it, the in-process coordinator in
/// `DATA/coordinator`, and the gateways and web UI in front, once the master lists the
/// region server. The ready lines come last, when a table can be created.
pub fn run(args: &StandaloneArgs) -> Result<(), CliError> {
    let mut config = resolve(args)?;
    let logs = LogBuffer::new(config.web.log_lines_max, LOG_PROBLEMS_MAX);
    let audit = config
        .security
        .audit_log
        .clone()
        .unwrap_or_else(|| config.data_dir.join("audit.log"));
    init_logging_with_audit(&config.log.filter, Some(&logs), Some(&audit))?;
    let tls = config.security.server_tls()?;
    crate::security::apply_tls(&mut config, &tls);
    let auth_required = config.security.required();
    let gateways_on = !auth_required;
    // With TLS verifying client certificates, HBase RPC authenticates (the certificate's
    // user); without, it cannot check credentials and stays off under auth.
    let native_checked = config
        .server
        .tls
        .get()
        .is_some_and(|tls| tls.verifies_clients());
    if auth_required {
        match native_checked {
            true => tracing::info!("authentication required: HBase RPC serves TLS clients with a verified certificate as its user; REST and the web UI take Basic or Bearer credentials, Thrift SASL PLAIN"),
            false => tracing::info!("authentication required: the HBase RPC gateway cannot check credentials without TLS client certificates ([security] tls_client_ca_file), and stays off; REST and the web UI take Basic or Bearer credentials, Thrift SASL PLAIN"),
        }
    }
    let opened = listeners(args, &config, gateways_on, native_checked);
    crate::bind_policy::enforce(&opened, auth_required, args.insecure)?;
    crate::bind_policy::warn_clear_passwords(&opened, auth_required, config.server.tls.is_on());
    let mut db = config.db_config();
    db.storage.wal_skip_corrupt = args.skip_corrupt_wal;
    let prepared = crate::standalone_folder::open(&config.data_dir, &db)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name("basalt")
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let gateways = Gateways {
        // REST and the web UI authenticate (each request, each sign-in) when required;
        // Thrift with SASL PLAIN.
        rest: (!args.no_rest).then(|| config.rest.clone()),
        thrift: (!args.no_thrift).then(|| config.thrift.clone()),
        thrift2: config.thrift.thrift2_gateway(),
        hbase: ((gateways_on || native_checked) && !args.no_hbase).then(|| config.hbase.clone()),
        config: config.clone(),
        logs,
        auth: None,
        acl: basalt_server::authorize::AclSlot::default(),
    };
    let served = runtime.block_on(serve(&config, db, prepared.coord.clone(), gateways));
    drop(prepared);
    served
}

/// Every listener standalone is about to open, with the setting that placed it.
fn listeners(
    args: &StandaloneArgs,
    config: &BasaltConfig,
    gateways_on: bool,
    native_checked: bool,
) -> Vec<crate::bind_policy::Listener> {
    use crate::bind_policy::Listener;
    let setting = |flag: &Option<String>, name: &'static str, section: &'static str| match (
        flag.is_some(),
        args.bind.is_some(),
    ) {
        (true, _) => name,
        (false, true) => "--bind",
        (false, false) => section,
    };
    let mut out = vec![Listener {
        name: "gRPC",
        setting: setting(&args.grpc_bind, "--grpc-bind", "[server] bind"),
        addr: config.server.bind.clone(),
        authenticates: true,
    }];
    // REST, the web UI and Thrift check credentials when authentication is required.
    let checked = |on: bool, name, setting, addr: &str| {
        on.then(|| Listener {
            name,
            setting,
            addr: addr.to_string(),
            authenticates: true,
        })
    };
    out.extend(
        [
            checked(
                !args.no_rest,
                "REST",
                setting(&args.rest_bind, "--rest-bind", "[rest] bind"),
                &config.rest.bind,
            ),
            checked(
                config.web.enabled,
                "web UI",
                setting(&args.web_bind, "--web-bind", "[web] bind"),
                &config.web.bind,
            ),
            // SASL PLAIN with authentication required.
            checked(
                !args.no_thrift || config.thrift.thrift2_gateway().is_some(),
                "Thrift",
                setting(&args.thrift_bind, "--thrift-bind", "[thrift] bind"),
                &config.thrift.bind,
            ),
        ]
        .into_iter()
        .flatten(),
    );
    if !gateways_on && !native_checked {
        return out;
    }
    // HBase RPC authenticates with TLS client certificates only (ZooKeeper never: it
    // tells where servers are, nothing more).
    let gateway = |on: bool, name, setting, addr: &str| {
        on.then(|| Listener {
            name,
            setting,
            addr: addr.to_string(),
            authenticates: native_checked,
        })
    };
    out.extend(
        [gateway(
            !args.no_hbase,
            "HBase RPC and ZooKeeper",
            setting(&args.hbase_bind, "--hbase-bind", "[hbase] bind"),
            &config.hbase.bind,
        )]
        .into_iter()
        .flatten(),
    );
    out
}

/// What standalone serves in front of its master and region server.
struct Gateways {
    rest: Option<basalt_rest::RestConfig>,
    thrift: Option<basalt_thrift::ThriftConfig>,
    /// Thrift2, when `--thrift2-port` (or `thrift2_port`) asks for it.
    thrift2: Option<basalt_thrift::ThriftConfig>,
    /// HBase's native RPC and the ZooKeeper responder.
    hbase: Option<basalt_hbase::HbaseConfig>,
    config: BasaltConfig,
    logs: Arc<LogBuffer>,
    /// The authenticator REST and the web UI check credentials with (when required).
    auth: Option<Arc<basalt_auth::Authenticator>>,
    /// The ACLs REST requests are checked against (authentication required).
    acl: basalt_server::authorize::AclSlot,
}

async fn serve(
    config: &BasaltConfig,
    db: basalt_db::DbConfig,
    coord: Arc<dyn basalt_coord::Coordinator>,
    mut gateways: Gateways,
) -> Result<(), CliError> {
    let (mut master, mut server) =
        crate::standalone_folder::configs(&config.data_dir, &config.server, db);
    let auth = crate::security::authenticator(&config.security, coord.clone(), false)?;
    master.server.auth = basalt_server::auth::AuthSlot(Some(auth.clone()));
    server.server.auth = basalt_server::auth::AuthSlot(Some(auth.clone()));
    gateways.auth = auth.required().then_some(auth.clone());
    if let Some(hbase) = &mut gateways.hbase {
        // Under auth HBase RPC serves certificate holders only (as their users, with a
        // superuser's group when the store says so): SIMPLE is refused.
        hbase.refuse_simple = auth.required();
        hbase.authenticator = basalt_auth::authenticator::AuthenticatorSlot(gateways.auth.clone());
    }
    // With authentication required every call is also checked against the grants: the
    // master's own, which the region server reads once the master serves.
    let grants = Arc::new(basalt_server::authorize::LateGrants::default());
    if config.security.required() {
        let (on_master, on_server) = crate::security::acls(&config.security, grants.clone());
        master.server.acl = on_master;
        gateways.acl = on_server.clone();
        server.server.acl = on_server;
    }
    config.master.apply(&mut master);
    let stop = crate::cluster_local::stop_on_signal();
    let data_dir = config.data_dir.clone();
    let front = |serving: crate::cluster_local::Serving| {
        let stop = stop.clone();
        async move {
            // The gateways start while the region server introduces itself; the ready
            // lines wait for the master to list it.
            let sidecars = attach(gateways, &serving).await?;
            if let Err(e) = serving.listed.await {
                stop_all(sidecars).await;
                return Err(e);
            }
            ready(serving.master, &data_dir, &sidecars);
            crate::cluster_local::wait_set(&stop).await;
            tracing::info!("shutting down: the gateways first, then the region server (its memstores flushed), then the master");
            stop_all(sidecars).await;
            Ok(())
        }
    };
    let fs: Arc<dyn basalt_storage::fs::FileSystem> = Arc::new(basalt_storage::fs::LocalFs);
    let pair = crate::cluster_local::Pair {
        master,
        server,
        coord,
        fs,
        server_waits: false,
    };
    let on_master_ready = |_, master: &Arc<basalt_master::Master>| {
        grants.set(Arc::new(basalt_master::admin::MasterAdmin::new(
            master.clone(),
        )));
    };
    let ran = crate::cluster_local::run_pair(pair, stop.clone(), on_master_ready, front).await;
    if ran.is_ok() {
        tracing::info!("stopped cleanly");
    }
    ran
}

/// Starts the gateways and the web UI over an in-process connection: rows straight to the
/// region server's database, falling back to a client of the master (connected at its
/// first use) for what it does not serve right now; admin to the master in process (see
/// [`crate::local_connection`]).
async fn attach(
    gateways: Gateways,
    serving: &crate::cluster_local::Serving,
) -> Result<Vec<Box<dyn Sidecar>>, CliError> {
    let master = serving.master.to_string();
    let remote = crate::local_connection::Remote::new(Box::new(move || {
        basalt_client::RemoteConnection::connect(&master)
            .map(|c| Arc::new(c) as Arc<dyn basalt_api::Connection>)
    }));
    let conn: Arc<dyn basalt_api::Connection> =
        Arc::new(crate::local_connection::LocalConnection::new(
            basalt_db::EmbeddedConnection::new(serving.db.clone()),
            remote,
            Arc::new(basalt_master::admin::MasterAdmin::new(
                serving.master_ref.clone(),
            )),
        ));
    let mut sidecars = Vec::new();
    let started = (|| {
        // With authentication required, Thrift's calls run as their SASL user, checked.
        let (thrift_conn, thrift_auth) = match &gateways.auth {
            Some(auth) => (
                basalt_server::authorize::served(conn.clone(), &gateways.acl),
                Some(auth.clone()),
            ),
            None => (conn.clone(), None),
        };
        for thrift in [gateways.thrift, gateways.thrift2].into_iter().flatten() {
            let (conn, auth) = (thrift_conn.clone(), thrift_auth.clone());
            sidecars.push(crate::thrift::sidecar(conn, thrift, auth)?);
        }
        if let Some(rest) = gateways.rest {
            let auth = gateways
                .auth
                .clone()
                .map(|authenticator| basalt_rest::RestAuth {
                    authenticator,
                    encrypted: rest.tls.is_on(),
                });
            let checked = basalt_server::authorize::served(conn.clone(), &gateways.acl);
            sidecars.push(crate::rest::sidecar(checked, rest, auth)?);
        }
        if let Some(hbase) = &gateways.hbase {
            // Under auth, each call is checked for the certificate's user.
            sidecars.extend(crate::hbase::sidecars(
                basalt_server::authorize::served(conn.clone(), &gateways.acl),
                hbase,
                &gateways.config.data_dir,
            )?);
        }
        let grpc_addr = Arc::new(std::sync::OnceLock::new());
        grpc_addr.get_or_init(|| serving.master.to_string());
        let web = crate::web::attach(
            &gateways.config,
            gateways.logs,
            grpc_addr,
            serving.server_addr.to_string(),
            conn.clone(),
            gateways.auth.clone(),
        )?;
        sidecars.extend(web);
        Ok::<_, basalt_server::ServerError>(())
    })();
    if let Err(e) = started {
        stop_all(sidecars).await;
        return Err(e.into());
    }
    Ok(sidecars)
}

/// Stops the sidecars, the last started first.
async fn stop_all(sidecars: Vec<Box<dyn Sidecar>>) {
    for sidecar in sidecars.into_iter().rev() {
        tracing::info!(name = sidecar.name(), "stopping");
        sidecar.shutdown().await;
    }
}

/// The ready lines, on stdout for scripts and tests to wait on: the sidecars first, so
/// that everything is up once the last line is seen.
fn ready(addr: std::net::SocketAddr, data_dir: &std::path::Path, sidecars: &[Box<dyn Sidecar>]) {
    tracing::info!(%addr, data_dir = %data_dir.display(), "Basalt standalone is serving gRPC");
    for sidecar in sidecars {
        tracing::info!(addr = %sidecar.local_addr(), "serving {}", sidecar.name());
    }
    let mut out = std::io::stdout();
    for sidecar in sidecars {
        let _ = writeln!(
            out,
            "basalt {} listening on {}",
            sidecar.name(),
            sidecar.local_addr()
        );
    }
    let _ = writeln!(out, "basalt standalone listening on {addr}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;
    use std::io::Write;

    fn binds(args: &[&str]) -> [String; 4] {
        let cli = Cli::try_parse_from(args).expect("valid command line");
        let Command::Standalone(args) = cli.command else {
            panic!("not standalone");
        };
        let c = super::resolve(&args).expect("resolves");
        [c.server.bind, c.thrift.bind, c.rest.bind, c.web.bind]
    }

    #[test]
    fn bind_moves_every_listener_and_a_listener_flag_moves_one() {
        assert_eq!(
            binds(&["basalt", "standalone"]),
            ["127.0.0.1"; 4].map(String::from)
        );
        let all = ["basalt", "standalone", "--bind", "0.0.0.0"];
        assert_eq!(binds(&all), ["0.0.0.0"; 4].map(String::from));
        let mut each = all.to_vec();
        each.extend(["--grpc-bind", "::1", "--thrift-bind", "10.0.0.3"]);
        each.extend(["--rest-bind", "10.0.0.4", "--web-bind", "10.0.0.5"]);
        assert_eq!(
            binds(&each),
            ["::1", "10.0.0.3", "10.0.0.4", "10.0.0.5"].map(String::from)
        );
        // The file's sections, then --bind over all of them, then one flag over that.
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(
            file,
            "[thrift]\nbind = \"10.1.1.1\"\n[web]\nbind = \"10.2.2.2\""
        )
        .expect("write");
        let path = file.path().to_str().expect("utf-8 path");
        let from_file = binds(&["basalt", "standalone", "--config", path]);
        assert_eq!(
            from_file,
            ["127.0.0.1", "10.1.1.1", "127.0.0.1", "10.2.2.2"].map(String::from)
        );
        let flagged = binds(&[
            "basalt",
            "standalone",
            "--config",
            path,
            "--bind",
            "::",
            "--web-bind",
            "::1",
        ]);
        assert_eq!(flagged, ["::", "::", "::", "::1"].map(String::from));
    }
}
