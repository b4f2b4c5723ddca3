//! `basalt master` and `basalt regionserver`: the processes of a cluster, on etcd and a
//! shared store.
//!
//! Both bind loopback by default. Another address needs authentication (`--auth`, with a
//! cluster secret the servers present to each other) for the gRPC port and the web UI, and
//! `--insecure` (warned on every start) for listeners that do not authenticate yet (HBase RPC):
//! nothing of a cluster is reachable from the network unauthenticated by accident
//! ([`crate::bind_policy`]).

use crate::cluster_web::{config_text, ClusterWeb, Kind};

mod reach;
use crate::CliError;
use basalt_server::standalone::shutdown_signal;
use basalt_storage::fs::FileSystem;
use basalt_web::LogBuffer;
use clap::Args;
pub(crate) use reach::{connect_coordinator, open_store};
pub use reach::{etcd_endpoints, store_root};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What both cluster processes take.
#[derive(Debug, Args, Clone)]
pub struct ClusterArgs {
    /// The etcd cluster: `etcd://HOST:PORT[,HOST:PORT…]` (`etcds://` over TLS); or, for a
    /// master with `--with-regionserver`, `local:///DIR`: a coordinator in this one
    /// process, kept in DIR.
    #[arg(long, value_name = "URL")]
    pub coordinator: String,
    /// etcds://: the CA etcd's certificate is checked against (PEM).
    #[arg(long, value_name = "FILE", env = "BASALT_ETCD_CA")]
    pub coordinator_ca: Option<PathBuf>,
    /// etcds://: the client certificate (PEM) and key this process presents to etcd (its
    /// `--client-cert-auth`; the certificate's CN is the etcd user its RBAC applies to).
    #[arg(
        long,
        value_name = "FILE",
        env = "BASALT_ETCD_CERT",
        requires = "coordinator_key"
    )]
    pub coordinator_cert: Option<PathBuf>,
    #[arg(
        long,
        value_name = "FILE",
        env = "BASALT_ETCD_KEY",
        requires = "coordinator_cert"
    )]
    pub coordinator_key: Option<PathBuf>,
    /// Where every file lives: `file:///shared/dir` (a folder every server mounts) or
    /// `s3://bucket/prefix` (credentials and region from the usual AWS_* variables).
    #[arg(long, value_name = "URL")]
    pub store: String,
    /// The endpoint of an S3-compatible service (`http://host:port` allowed).
    #[arg(long, value_name = "URL")]
    pub store_endpoint: Option<String>,
    /// Where blocks read from an object store are cached on local disk (default: a
    /// folder under the system's temporary folder, one per process).
    #[arg(long, value_name = "DIR")]
    pub store_cache_dir: Option<PathBuf>,
    /// The most the local block cache holds, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub store_cache_mb: u64,
    /// Encryption at rest on an s3:// store: the service encrypts every object Basalt
    /// writes — AES256 (SSE-S3), aws:kms or aws:kms:dsse (SSE-KMS), sse-c (your key).
    #[arg(long, value_name = "MODE")]
    pub store_encryption: Option<String>,
    /// The KMS key of aws:kms / aws:kms:dsse (default: the bucket's).
    #[arg(long, value_name = "ID")]
    pub store_kms_key_id: Option<String>,
    /// sse-c: a file holding the 256-bit key in base64, the same on every server (a key on
    /// the command line would show in the process list).
    #[arg(long, value_name = "FILE")]
    pub store_customer_key_file: Option<PathBuf>,
    /// The key prefix of this cluster in etcd (several clusters may share one etcd).
    #[arg(long, value_name = "PREFIX", default_value = "/basalt/")]
    pub cluster_prefix: String,
    /// Give up when etcd does not answer within this many seconds at start.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub coordinator_timeout: u64,
    /// The address to listen on (and the host in the server's name).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: String,
    /// Allow a non-loopback --bind for listeners that do not authenticate (warned on
    /// every start).
    #[arg(long)]
    pub insecure: bool,
    /// Require authentication on every gRPC call (`[security] auth = "required"`); the
    /// servers present the cluster secret (`[security] cluster_secret` or
    /// BASALT_CLUSTER_SECRET) to each other.
    #[arg(long)]
    pub auth: bool,
    /// The lease registrations live under, in seconds: a region server killed outright is
    /// dead, and its regions reopen elsewhere, once it expires.
    #[arg(long, value_name = "SECS", default_value_t = basalt_coord::keeper::DEFAULT_TTL.as_secs())]
    pub lease_ttl: u64,
    /// Log filter (`info`, `basalt=debug`, …); default from RUST_LOG, else info.
    #[arg(long, value_name = "FILTER")]
    pub log: Option<String>,
    /// A `basalt.toml`: its `[server]` settings (limits, the slow log; not `bind` or
    /// `port`, which come from the flags) and, for a master, its `[master]` settings.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// The settings of `--config` (the defaults without one).
pub(crate) fn file_config(args: &ClusterArgs) -> Result<crate::config::BasaltConfig, CliError> {
    match &args.config {
        Some(path) => crate::config::BasaltConfig::load(path),
        None => Ok(crate::config::BasaltConfig::default()),
    }
}

/// `[server]` of the file, listening where the flags say.
pub(crate) fn server_config(
    args: &ClusterArgs,
    port: u16,
    file: &crate::config::BasaltConfig,
) -> basalt_server::ServerConfig {
    basalt_server::ServerConfig {
        bind: args.bind.clone(),
        port,
        ..file.server.clone()
    }
}

#[derive(Debug, Args)]
pub struct MasterArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// The master's RPC port (HBase's 16000).
    #[arg(long, default_value_t = 16000)]
    pub port: u16,
    /// The web UI's port (HBase's 16010); 0 picks a free one, as --port 0 does.
    #[arg(long, default_value_t = 16010)]
    pub web_port: u16,
    /// Serve no web UI.
    #[arg(long)]
    pub no_web: bool,
    /// How often the balancer runs, in seconds (HBase's hbase.balancer.period, 300).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub balancer_period: u64,
    /// How often region sizes are checked for automatic splits, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub split_check_period: u64,
    /// Run a region server in this process too (a whole cluster in one process with
    /// `--coordinator local:///DIR`).
    #[arg(long)]
    pub with_regionserver: bool,
    /// The RPC port of the region server `--with-regionserver` runs (HBase's 16020).
    #[arg(long, default_value_t = 16020)]
    pub regionserver_port: u16,
    /// Serve HBase's native protocol on this port (MasterService, the 2.5 registry and
    /// `hbase:meta`); 0 picks a free one. Off without it (16000, HBase's master port, is
    /// this master's gRPC port by default). The file's `[hbase]` section holds the rest.
    /// With --with-regionserver, the region server serves its regions' ClientService and
    /// AdminService on a port of its own, --regionserver-hbase-port.
    #[arg(long, value_name = "PORT")]
    pub hbase_port: Option<u16>,
    /// With --with-regionserver and --hbase-port: the native port of the region server
    /// (clients find it in `hbase:meta`); 0, the default, picks a free one.
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub regionserver_hbase_port: u16,
    /// With --hbase-port: the read-only ZooKeeper responder's port, naming the active master
    /// and the live region servers [default: 2181]; 0 picks a free one.
    #[arg(long, value_name = "PORT")]
    pub zookeeper_port: Option<u16>,
    /// With --hbase-port: start no ZooKeeper responder.
    #[arg(long)]
    pub no_zookeeper: bool,
}

#[derive(Debug, Args)]
pub struct RegionServerArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// The region server's RPC port (HBase's 16020).
    #[arg(long, default_value_t = 16020)]
    pub port: u16,
    /// The web UI's port (HBase's 16030); 0 picks a free one, as --port 0 does. Registered
    /// for the master's page to link to.
    #[arg(long, default_value_t = 16030)]
    pub web_port: u16,
    /// Serve no web UI.
    #[arg(long)]
    pub no_web: bool,
    /// Serve HBase's native protocol (ClientService, AdminService) for this server's
    /// regions on this port (HBase's region server port is 16020, this server's gRPC port
    /// by default); 0 picks a free one. Off without it. The file's `[hbase]` section holds
    /// the rest (limits, `advertise_host`, the scanner lease).
    #[arg(long, value_name = "PORT")]
    pub hbase_port: Option<u16>,
}

/// `[hbase]` of the file, listening on `--bind` at `port`; `None` without a port.
fn hbase_config(
    args: &ClusterArgs,
    port: Option<u16>,
    file: &crate::config::BasaltConfig,
) -> Option<basalt_hbase::HbaseConfig> {
    port.map(|port| basalt_hbase::HbaseConfig {
        bind: args.bind.clone(),
        port,
        // With authentication required, SIMPLE (an asserted name) is refused.
        refuse_simple: security(args, file).required(),
        ..file.hbase.clone()
    })
}

/// `[security]`'s TLS (`tls`, from [`SecuritySection::server_tls`], which also puts
/// it on the process's calls to the others) on a master's or region server's gRPC and
/// HBase RPC listeners, and `auth` for HBase RPC to look a verified certificate's user up
/// in (a superuser's group).
///
/// [`SecuritySection::server_tls`]: crate::security::SecuritySection::server_tls
fn apply_tls(
    section: &crate::security::SecuritySection,
    tls: basalt_net::TlsSlot,
    server: &mut basalt_server::ServerConfig,
    hbase: &mut Option<basalt_hbase::HbaseConfig>,
    auth: Arc<basalt_auth::Authenticator>,
) -> Result<(), CliError> {
    server.tls = tls.clone();
    if let Some(hbase) = hbase {
        hbase.tls = tls;
        hbase.tls_plaintext = section.tls_plaintext();
        hbase.authenticator = basalt_auth::authenticator::AuthenticatorSlot(Some(auth));
    }
    Ok(())
}

/// Log lines (and warnings and errors) the web UI's logs page keeps.
const LOG_LINES_MAX: usize = 1000;
const LOG_PROBLEMS_MAX: usize = 100;

pub(crate) fn cluster_error(message: impl Into<String>) -> CliError {
    CliError::Cluster(message.into())
}

/// The bind rule ([`crate::bind_policy`]) over the process's listeners, all on --bind.
fn check_bind(
    args: &ClusterArgs,
    auth_required: bool,
    web: bool,
    native: bool,
) -> Result<(), CliError> {
    use crate::bind_policy::Listener;
    let on_bind = |name, authenticates| Listener {
        name,
        setting: "--bind",
        addr: args.bind.clone(),
        authenticates,
    };
    let mut listeners = vec![on_bind("gRPC", true)];
    if web {
        listeners.push(on_bind("web UI", true));
    }
    if native {
        listeners.push(on_bind("HBase RPC", false));
    }
    crate::bind_policy::enforce(&listeners, auth_required, args.insecure)
}

/// `[security]` of the file, with `--auth` over it.
pub(crate) fn security(
    args: &ClusterArgs,
    file: &crate::config::BasaltConfig,
) -> crate::security::SecuritySection {
    let mut section = file.security.clone();
    if args.auth {
        section.auth = crate::security::AuthMode::Required;
    }
    section
}

impl ClusterArgs {
    /// The arguments of a tool that only reads and writes the coordinator at `url`.
    pub(crate) fn for_coordinator(url: &str, prefix: &str) -> Self {
        Self {
            coordinator: url.to_string(),
            coordinator_ca: std::env::var_os("BASALT_ETCD_CA").map(PathBuf::from),
            coordinator_cert: std::env::var_os("BASALT_ETCD_CERT").map(PathBuf::from),
            coordinator_key: std::env::var_os("BASALT_ETCD_KEY").map(PathBuf::from),
            store: String::new(),
            store_endpoint: None,
            store_cache_dir: None,
            store_cache_mb: 1,
            store_encryption: None,
            store_kms_key_id: None,
            store_customer_key_file: None,
            cluster_prefix: prefix.to_string(),
            coordinator_timeout: 15,
            bind: "127.0.0.1".to_string(),
            insecure: false,
            auth: false,
            lease_ttl: basalt_coord::keeper::DEFAULT_TTL.as_secs(),
            log: None,
            config: None,
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .thread_name("basalt")
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}

/// A process's store (root and file system) and its log lines.
type Started = (PathBuf, Arc<dyn FileSystem>, Arc<LogBuffer>);

/// Logging (also kept for the web UI's logs page; audit events to `[security] audit_log`
/// when set), the bind check, the store.
fn init(
    args: &ClusterArgs,
    file: &crate::config::BasaltConfig,
    web: bool,
    native: bool,
) -> Result<Started, CliError> {
    let logs = LogBuffer::new(LOG_LINES_MAX, LOG_PROBLEMS_MAX);
    let security = security(args, file);
    crate::standalone::init_logging_with_audit(
        &log_filter(args),
        Some(&logs),
        security.audit_log.as_deref(),
    )?;
    check_bind(args, security.required(), web, native)?;
    let (root, fs) = open_store(args)?;
    Ok((root, fs, logs))
}

fn log_filter(args: &ClusterArgs) -> String {
    args.log
        .clone()
        .or_else(|| std::env::var("RUST_LOG").ok())
        .unwrap_or_else(|| "info".to_string())
}

pub(crate) fn init_logging_for(args: &ClusterArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&log_filter(args), None)
}

/// Prints a process's ready line (tests and scripts wait for it).
pub(crate) fn ready_line(line: &str) {
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The first signal stops gracefully; a second during that exits at once.
pub(crate) async fn signals() {
    shutdown_signal().await;
    tokio::spawn(async {
        shutdown_signal().await;
        eprintln!("basalt: second signal during shutdown: exiting now");
        std::process::exit(130);
    });
}

pub fn run_master(args: &MasterArgs) -> Result<(), CliError> {
    if args.with_regionserver {
        crate::cluster_local::create_store_folder(&args.cluster)?;
    }
    let file = file_config(&args.cluster)?;
    let (root, fs, logs) = init(
        &args.cluster,
        &file,
        !args.no_web,
        args.hbase_port.is_some(),
    )?;
    let runtime = runtime()?;
    runtime.block_on(async {
        let coord = match crate::cluster_local::local_dir(&args.cluster.coordinator) {
            Some(_) if !args.with_regionserver => {
                return Err(cluster_error(format!(
                    "coordinator {}: a local coordinator lives in this one process, so no \
                     region server could join it; add --with-regionserver, or use etcd://",
                    args.cluster.coordinator
                )))
            }
            Some(dir) => crate::cluster_local::open(dir?, &args.cluster).await?,
            None => connect_coordinator(&args.cluster).await?,
        };
        let auth =
            crate::security::authenticator(&security(&args.cluster, &file), coord.clone(), true)?;
        // TLS on the web UI too, from the same certificate as every listener.
        let tls = security(&args.cluster, &file).server_tls()?;
        let web = ClusterWeb::start(
            Kind::Master,
            &args.cluster,
            args.web_port,
            !args.no_web,
            logs,
            config_text(args),
            file.web.heat.clone(),
            Some(auth.clone()),
            tls.clone(),
        )?;
        let mut config = basalt_master::MasterConfig {
            store_root: root,
            web_port: web.as_ref().map_or(0, ClusterWeb::port),
            lease_ttl: Duration::from_secs(args.cluster.lease_ttl),
            balancer_period: Duration::from_secs(args.balancer_period.max(1)),
            split_check_period: Duration::from_secs(args.split_check_period.max(1)),
            // A cluster in one process owns its folder: what its catalog does not name
            // is set aside at start, as standalone does.
            set_aside_unknown_folders: args.with_regionserver
                && args.cluster.store.starts_with("file://"),
            ..basalt_master::MasterConfig::default()
        };
        config.server = server_config(&args.cluster, args.port, &file);
        config.server.auth = basalt_server::auth::AuthSlot(Some(auth.clone()));
        config.server.acl = crate::security::cluster_acl(&security(&args.cluster, &file), None);
        file.master.apply(&mut config);
        config.hbase = hbase_config(&args.cluster, args.hbase_port, &file).map(|mut hbase| {
            if let Some(port) = args.zookeeper_port {
                hbase.zookeeper_port = port;
            }
            hbase.zookeeper &= !args.no_zookeeper;
            hbase
        });
        apply_tls(
            &security(&args.cluster, &file),
            tls,
            &mut config.server,
            &mut config.hbase,
            auth,
        )?;
        let on_ready = |addr: std::net::SocketAddr| {
            if let Some(web) = &web {
                web.serving(addr);
            }
            ready_line(&format!("basalt master listening on {addr}"));
        };
        let ran = if args.with_regionserver {
            crate::cluster_local::run_with_region_server(args, config, coord, fs, on_ready).await
        } else {
            let on_ready = |addr: std::net::SocketAddr, master: &Arc<basalt_master::Master>| {
                native_ready_lines(master);
                on_ready(addr)
            };
            basalt_master::run::run_with(config, coord, fs, on_ready, signals())
                .await
                .map_err(|e| cluster_error(e.to_string()))
        };
        if let Some(web) = web {
            web.shutdown().await;
        }
        ran
    })
}

/// A region server's authorization: the grants followed from the coordinator (only
/// with authentication required; the watch starts on the current runtime).
pub(crate) fn region_server_acl(
    section: &crate::security::SecuritySection,
    coord: Arc<dyn basalt_coord::Coordinator>,
) -> basalt_server::authorize::AclSlot {
    if !section.required() {
        return basalt_server::authorize::AclSlot::default();
    }
    let grants = basalt_regionserver::grants::WatchedGrants::follow(coord);
    crate::security::cluster_acl(section, Some(grants))
}

/// The ready lines of a master's native listeners, when it has them.
pub(crate) fn native_ready_lines(master: &basalt_master::Master) {
    let native = *master.native_addresses.lock();
    if let Some(native) = native {
        ready_line(&format!("basalt hbase listening on {}", native.rpc));
        if let Some(zk) = native.zookeeper {
            ready_line(&format!("basalt zookeeper listening on {zk}"));
        }
    }
}

pub fn run_regionserver(args: &RegionServerArgs) -> Result<(), CliError> {
    if crate::cluster_local::local_dir(&args.cluster.coordinator).is_some() {
        return Err(cluster_error(format!(
            "coordinator {}: a local coordinator belongs to the one process that opened it; \
             use etcd://, or `basalt master --with-regionserver` for a cluster in one process",
            args.cluster.coordinator
        )));
    }
    let file = file_config(&args.cluster)?;
    let (root, fs, logs) = init(
        &args.cluster,
        &file,
        !args.no_web,
        args.hbase_port.is_some(),
    )?;
    let runtime = runtime()?;
    runtime.block_on(async {
        let coord = connect_coordinator(&args.cluster).await?;
        let auth =
            crate::security::authenticator(&security(&args.cluster, &file), coord.clone(), true)?;
        // TLS on the web UI too, from the same certificate as every listener.
        let tls = security(&args.cluster, &file).server_tls()?;
        let web = ClusterWeb::start(
            Kind::RegionServer,
            &args.cluster,
            args.web_port,
            !args.no_web,
            logs,
            config_text(args),
            file.web.heat.clone(),
            Some(auth.clone()),
            tls.clone(),
        )?;
        let mut config = basalt_regionserver::RegionServerConfig {
            store_root: root,
            web_port: web.as_ref().map_or(0, ClusterWeb::port),
            lease_ttl: Duration::from_secs(args.cluster.lease_ttl),
            ..basalt_regionserver::RegionServerConfig::default()
        };
        config.server = server_config(&args.cluster, args.port, &file);
        config.server.auth = basalt_server::auth::AuthSlot(Some(auth.clone()));
        config.server.acl = region_server_acl(&security(&args.cluster, &file), coord.clone());
        config.hbase = hbase_config(&args.cluster, args.hbase_port, &file);
        apply_tls(
            &security(&args.cluster, &file),
            tls,
            &mut config.server,
            &mut config.hbase,
            auth,
        )?;
        config.db = file.db_config();
        let on_ready = |name: &basalt_regionserver::ServerName, addr: std::net::SocketAddr| {
            if let Some(web) = &web {
                web.serving(addr);
            }
            ready_line(&format!("basalt regionserver {name} listening on {addr}"));
        };
        let ran = basalt_regionserver::run::run(config, coord, fs, on_ready, signals()).await;
        if let Some(web) = web {
            web.shutdown().await;
        }
        ran.map_err(|e| cluster_error(e.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_loopback_bind_needs_insecure() {
        let mut args = ClusterArgs {
            coordinator: "etcd://127.0.0.1:2379".into(),
            coordinator_ca: None,
            coordinator_cert: None,
            coordinator_key: None,
            store: "file:///tmp/x".into(),
            store_endpoint: None,
            store_cache_dir: None,
            store_cache_mb: 1,
            store_encryption: None,
            store_kms_key_id: None,
            store_customer_key_file: None,
            cluster_prefix: "/basalt/".into(),
            coordinator_timeout: 1,
            config: None,
            bind: "127.0.0.3".into(),
            insecure: false,
            auth: false,
            lease_ttl: 10,
            log: None,
        };
        assert!(check_bind(&args, false, true, false).is_ok());
        args.bind = "0.0.0.0".into();
        let refused = check_bind(&args, false, true, false).expect_err("refused");
        assert!(refused.to_string().contains("--insecure"), "{refused}");
        assert!(
            check_bind(&args, true, false, false).is_ok(),
            "gRPC alone, authenticated"
        );
        assert!(
            check_bind(&args, true, true, false).is_ok(),
            "the web UI authenticates (sign-in) too"
        );
        assert!(
            check_bind(&args, true, true, true).is_err(),
            "HBase RPC does not authenticate"
        );
        args.insecure = true;
        assert!(check_bind(&args, false, true, true).is_ok());
    }
}
