//! The command line: `basalt <command> [flags]`.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Basalt: Apache HBase rebuilt in Rust.
///
/// Start a server with `basalt standalone`; see `basalt <command> --help` for each command.
#[derive(Debug, Parser)]
#[command(name = "basalt", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run master and region server in one process over one data folder.
    ///
    /// Serves gRPC on --port (default 16000) until SIGINT or SIGTERM, then stops accepting
    /// work, lets running calls finish, flushes every memstore and exits. Settings come from
    /// the defaults, then --config FILE, then BASALT_* environment variables, then flags.
    Standalone(StandaloneArgs),
    /// The HBase shell, against a running server or a data folder opened in this process.
    ///
    /// With FILE, or with piped input, runs the commands in order and prints what the HBase
    /// shell prints; on a terminal, an interactive shell with line editing and history.
    Shell(ShellArgs),
    /// The HBase REST gateway ("Stargate") over a running server.
    ///
    /// Serves HBase's REST API on --port (default 8080) until SIGINT or SIGTERM.
    Rest(RestArgs),
    /// Print the documented default configuration file (every setting, with its default).
    Config,
    /// HBase's Thrift1 gateway (happybase works unchanged) in front of a running server.
    ///
    /// Serves Thrift on --port (default 9090) until SIGINT or SIGTERM, buffered transport
    /// and binary protocol unless --framed / --compact.
    Thrift(ThriftArgs),
    /// HBase's PerformanceEvaluation and YCSB workloads, against a server or a data folder.
    ///
    /// Runs one command with --clients threads of --rows operations each, shows progress on
    /// a terminal, then prints ops/s, MB/s, latency percentiles and peak memory.
    Pe(PeCliArgs),
    /// HBase's ImportTsv with bulk output and completebulkload, on a data folder.
    ///
    /// Reads rows sorted by row key, one per line, fields split at --separator and mapped
    /// by --columns, writes them straight into store files (no write-ahead log, no
    /// memstore) and has the regions adopt the files once the whole file is read.
    Importtsv(ImportTsvArgs),
    /// HBase's Export: a table's cells to numbered, checksummed parts at a URL.
    ///
    /// Writes to file:///absolute/dir or s3://bucket/prefix the cells the filters take
    /// (one version unless --versions; delete markers too with --raw), then a manifest
    /// (descriptor, split points, totals, every part's checksum). A re-run of the same
    /// export keeps the parts already complete and goes on from there.
    Export(crate::export::ExportArgs),
    /// HBase's Import: an export's cells written back into a table at their timestamps.
    ///
    /// Verifies every part against its own checksum and the manifest's; a part that
    /// fails is named and nothing of it is written (the command then exits 1).
    Import(crate::export::ImportArgs),
    /// HBase's CopyTable: a table's cells to another table (--new-name) or cluster (--peer).
    ///
    /// The destination is created from the source's descriptor and split points when it
    /// is missing; the filters are export's.
    Copytable(crate::export::CopyTableArgs),
    /// Restore a snapshot's table, rolled forward to a point in time (beyond HBase).
    ///
    /// The table is disabled if needed, restored from the snapshot, given the edits its
    /// logs kept (WAL_RETENTION_SECS, set before the snapshot was taken) that were
    /// logged at or before --to-time, and enabled again if it was. Refused, naming why,
    /// when those logs were not kept.
    Restore(crate::restore::RestoreArgs),
    /// HBase's ExportSnapshot: `export` a snapshot's files to a folder or a bucket,
    /// `import` them into a data folder or a cluster's store.
    ///
    /// Every file's CRC-32C is checked on both sides and a mismatch named; both resume
    /// where an interrupted run stopped.
    Snapshot(crate::snapshot::SnapshotArgs),
    /// Check a database for damage and disagreements, like HBase's hbck; fix on request.
    ///
    /// With --data-dir (no server may have the folder open) it verifies every manifest and
    /// store file (trailer, index, bloom, every block's checksum), then opens the folder as
    /// a start does and reports regions that fail to open (FAILED_OPEN), quarantined items
    /// and catalog disagreements (holes, overlaps, folders meta does not name, rows with
    /// no folder). With --connect it asks a running server for the same report, without the
    /// file checks. Exits 1 when it finds problems. Nothing is deleted unless
    /// --purge-quarantine says so.
    Hbck(HbckArgs),
    /// HBase's IntegrationTestBigLinkedList against a running server or cluster.
    ///
    /// `generate` writes generations of linked nodes (random 16-byte keys, each naming a
    /// node of the generation before in `meta:prev`), flushing the table between them, and
    /// closes them into one circle; `verify` scans the table and counts REFERENCED,
    /// UNREFERENCED and UNDEFINED (referenced but missing: lost data) nodes, exiting 1
    /// unless every node is referenced and none is missing.
    Itbll(crate::itbll::ItbllArgs),
    /// A table's key distribution and split points that would spread its rows evenly.
    ///
    /// Samples row keys (each region's start key plus a reservoir sample of its rows),
    /// prints a histogram of their first bytes, and split points for `create ... SPLITS =>
    /// [...]` cutting the sampled rows into --regions runs of equal size.
    Keydist(KeydistArgs),
    /// A cluster's master: the catalog, DDL, assignment and balancing, on etcd.
    ///
    /// Serves on --port (16000) until SIGINT or SIGTERM. Several may run: one is active
    /// (elected through etcd), the others stand by and take over when it stops.
    Master(crate::cluster::MasterArgs),
    /// A cluster's region server: serves the regions the master assigns it.
    ///
    /// Serves on --port (16020) until SIGINT or SIGTERM; then the master moves its regions
    /// to the other servers before it exits.
    Regionserver(crate::cluster::RegionServerArgs),
    /// Move a standalone data folder into a cluster (no master may be running).
    ///
    /// Replays and flushes the folder, copies every region to the cluster's store and
    /// writes the catalog into etcd; the masters assign the regions when they start. The
    /// folder itself is left unchanged.
    Migrate(crate::migrate::MigrateArgs),
    /// The users a server authenticates: add, passwd, remove, list, token, revoke-tokens.
    ///
    /// On a standalone data folder (--data-dir, server stopped: how the first superuser is
    /// made) or a cluster's etcd (--coordinator). Passwords come from standard input when
    /// it is not a terminal, else from a prompt without echo.
    User(crate::user::UserArgs),
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct HbckArgs {
    #[command(subcommand)]
    pub action: Option<HbckAction>,
    /// The data folder to check (no server may have it open).
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with = "connect",
        required_unless_present = "connect"
    )]
    pub data_dir: Option<PathBuf>,
    /// Ask this running server instead (reports only; fixes need --data-dir).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// Take this damaged store file out of its region's manifest and move it to the
    /// quarantine, so that the region opens without it (its cells are lost; hbck says
    /// which). Repeatable. A path relative to the data folder, or absolute.
    #[arg(long, value_name = "PATH", requires = "data_dir")]
    pub quarantine_file: Vec<PathBuf>,
    /// Quarantine every store file that fails verification (as --quarantine-file each).
    #[arg(long, requires = "data_dir")]
    pub fix_damaged_files: bool,
    /// Delete everything in the quarantine folder (logged, item by item) before checking.
    #[arg(long, requires = "data_dir")]
    pub purge_quarantine: bool,
    /// Log filter for stderr: a level or tracing directives, e.g. "info".
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub log: String,
}

#[derive(Debug, Subcommand)]
pub enum HbckAction {
    /// Rebuild a cluster's catalog in etcd from its store alone (etcd's data lost).
    ///
    /// Reads every namespace, table and region the store describes (`namespaces/`,
    /// `.tableinfo`, `.regioninfo`) and the dead region servers' logs (`wal/<server>/`),
    /// prints them, and writes namespaces, tables and regions into the coordinator, every
    /// live region OFFLINE and naming those logs, so that the masters assign them and no
    /// unflushed edit is lost. Stop every master and region server first. Refused over an
    /// existing catalog unless --force; nothing is written while holes, overlaps or
    /// unreadable folders are found unless --accept-inconsistent. No file is changed.
    RebuildMeta(crate::rebuild_meta::RebuildMetaArgs),
}

#[derive(Debug, Args)]
pub struct ImportTsvArgs {
    /// The data folder to load into (no server may have it open).
    #[arg(long, value_name = "DIR")]
    pub data_dir: PathBuf,
    /// Where each field goes, in order: HBASE_ROW_KEY once, the rest family:qualifier
    /// (importtsv.columns).
    #[arg(long, value_name = "LIST")]
    pub columns: String,
    /// The field separator (importtsv.separator).
    #[arg(long, value_name = "TEXT", default_value = "\t")]
    pub separator: String,
    /// The cells' timestamp in ms (importtsv.timestamp) [default: the time of the import].
    #[arg(long, value_name = "MS")]
    pub timestamp: Option<i64>,
    /// Skip lines with the wrong number of fields instead of failing
    /// (importtsv.skip.bad.lines).
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Writer threads: store files of different regions and families are written at
    /// once, up to this many (1 to 256) [default: the machine's cores].
    #[arg(long, value_name = "N")]
    pub parallelism: Option<usize>,
    /// Log filter for stderr: a level or tracing directives, e.g. "info".
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub log: String,
    /// The table to load (it must exist and be enabled).
    pub table: String,
    /// The rows, one per line, sorted by row key.
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct PeCliArgs {
    /// The server to benchmark [default: localhost:16000].
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "data_dir")]
    pub connect: Option<String>,
    /// Open this data folder in process instead (no server may have it open).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The server's Prometheus metrics, whose process_cpu_seconds_total gives ops per server
    /// CPU-second [default: port 16010 on the --connect host].
    #[arg(long, value_name = "URL", conflicts_with = "data_dir")]
    pub server_metrics: Option<String>,
    /// Log filter for stderr: a level or tracing directives, e.g. "info".
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub log: String,
    #[command(flatten)]
    pub credentials: crate::credentials::CredentialArgs,
    #[command(flatten)]
    pub pe: basalt_pe::PeArgs,
}

#[derive(Debug, Args)]
pub struct KeydistArgs {
    /// The server to ask [default: localhost:16000].
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "data_dir")]
    pub connect: Option<String>,
    /// Open this data folder in process instead (no server may have it open).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Suggest splits for this many regions [default: the table's region count, at least 2].
    #[arg(long, value_name = "N")]
    pub regions: Option<usize>,
    /// The table.
    pub table: String,
}

#[derive(Debug, Args)]
pub struct ShellArgs {
    /// The server to talk to [default: localhost:16000].
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "data_dir")]
    pub connect: Option<String>,
    /// Open this data folder in process instead (no server may have it open).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Stop at the first error with a non-zero exit status, like `hbase shell -n`.
    #[arg(short = 'n', long)]
    pub non_interactive: bool,
    /// Print cell timestamps as epoch milliseconds instead of ISO local date-times (HBase's
    /// `hbase.shell.timestamp.format.epoch = true`).
    #[arg(long)]
    pub timestamp_format_epoch: bool,
    /// A TOML configuration file; its `[shell]` section applies.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A script of shell commands to run.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub credentials: crate::credentials::CredentialArgs,
}

#[derive(Debug, Args)]
pub struct RestArgs {
    /// The server to serve [default: localhost:16000].
    #[arg(long, value_name = "HOST:PORT", default_value = "localhost:16000")]
    pub connect: String,
    #[command(flatten)]
    pub credentials: crate::credentials::CredentialArgs,
    /// Require authentication (`[security] auth = "required"`): each client's
    /// credentials are passed to the server, which checks them and HBase's ACLs.
    #[arg(long)]
    pub auth: bool,
    /// Allow a non-loopback --bind without --auth (warned on every start).
    #[arg(long)]
    pub insecure: bool,

    /// REST port; 0 picks a free one [default: 8080].
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// Address to listen on [default: 127.0.0.1].
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Refuse every write with 403 Forbidden.
    #[arg(long)]
    pub read_only: bool,
    /// A TOML configuration file; its `[rest]` and `[security]` sections apply.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log filter [default: info].
    #[arg(long, value_name = "FILTER")]
    pub log: Option<String>,
}

#[derive(Debug, Args)]
pub struct StandaloneArgs {
    /// Where data lives [default: ./basalt-data].
    #[arg(long, value_name = "DIR", env = "BASALT_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// gRPC port; 0 picks a free one [default: 16000].
    #[arg(long, value_name = "PORT", env = "BASALT_PORT")]
    pub port: Option<u16>,
    /// Address every listener binds — gRPC, Thrift, REST, HBase RPC, ZooKeeper and the web UI — 0.0.0.0 for
    /// every interface [default: 127.0.0.1, or each section's `bind` in the file].
    #[arg(long, value_name = "ADDR", env = "BASALT_BIND")]
    pub bind: Option<String>,
    /// Address of the gRPC listener alone (over --bind).
    #[arg(long, value_name = "ADDR")]
    pub grpc_bind: Option<String>,
    /// Address of the Thrift gateway alone (over --bind).
    #[arg(long, value_name = "ADDR")]
    pub thrift_bind: Option<String>,
    /// Address of the REST gateway alone (over --bind).
    #[arg(long, value_name = "ADDR")]
    pub rest_bind: Option<String>,
    /// Address of the web UI alone (over --bind).
    #[arg(long, value_name = "ADDR")]
    pub web_bind: Option<String>,
    /// A TOML configuration file (`basalt config` prints one with every setting).
    #[arg(long, value_name = "FILE", env = "BASALT_CONFIG")]
    pub config: Option<PathBuf>,
    /// Log filter: a level or tracing directives, e.g. "info,basalt_server=debug"
    /// [default: info, or RUST_LOG].
    #[arg(long, value_name = "FILTER", env = "BASALT_LOG")]
    pub log: Option<String>,
    /// HBase REST gateway port; 0 picks a free one [default: 8080].
    #[arg(long, value_name = "PORT")]
    pub rest_port: Option<u16>,
    /// Do not start the REST gateway (wins over --rest-port).
    #[arg(long)]
    pub no_rest: bool,
    /// Web UI and metrics port; 0 picks a free one [default: 16010].
    #[arg(long, value_name = "PORT", env = "BASALT_WEB_PORT")]
    pub web_port: Option<u16>,
    /// Do not start the web UI.
    #[arg(long)]
    pub no_web: bool,
    /// Thrift gateway port; 0 picks a free one [default: 9090].
    #[arg(long, value_name = "PORT")]
    pub thrift_port: Option<u16>,
    /// Do not start the Thrift gateway.
    #[arg(long)]
    pub no_thrift: bool,
    /// Framed transport for the Thrift gateway (HBase's -f).
    #[arg(long)]
    pub thrift_framed: bool,
    /// Compact protocol for the Thrift gateway (HBase's -c).
    #[arg(long)]
    pub thrift_compact: bool,
    /// Thrift over HTTP for the Thrift gateways (HBase's hbase.regionserver.thrift.http):
    /// each call an HTTP POST of one message.
    #[arg(long)]
    pub thrift_http: bool,
    /// Also serve HBase's Thrift2 service (THBaseService) on PORT; 0 picks a free one
    /// [default: off].
    #[arg(long, value_name = "PORT")]
    pub thrift2_port: Option<u16>,
    /// HBase native RPC port (HBase's own clients); 0 picks a free one [default: 16020].
    #[arg(long, value_name = "PORT")]
    pub hbase_port: Option<u16>,
    /// Port of the read-only ZooKeeper responder HBase clients discover the RPC port
    /// through; 0 picks a free one [default: 2181].
    #[arg(long, value_name = "PORT")]
    pub zookeeper_port: Option<u16>,
    /// Address of the HBase RPC and ZooKeeper listeners alone (over --bind).
    #[arg(long, value_name = "ADDR")]
    pub hbase_bind: Option<String>,
    /// Do not start HBase's native protocol (nor the ZooKeeper responder).
    #[arg(long)]
    pub no_hbase: bool,
    /// Do not start the ZooKeeper responder (HBase's RPC still starts).
    #[arg(long)]
    pub no_zookeeper: bool,
    /// Start even if write-ahead log segments are damaged: each is moved to wal/corrupt/,
    /// its readable edits are kept, every region opens, and what each may have lost is
    /// logged (HBase's hbase.hlog.split.skip.errors). For this start only.
    #[arg(long)]
    pub skip_corrupt_wal: bool,
    /// Require authentication on every call, loopback included (`[security] auth =
    /// "required"`): a user's password or a token (`basalt user`); REST checks each
    /// request, the web UI asks a superuser to sign in. Listeners that cannot check
    /// credentials yet (Thrift, HBase RPC) stay off.
    #[arg(long)]
    pub auth: bool,
    /// Allow listeners beyond loopback that do not authenticate (warned on every start).
    #[arg(long)]
    pub insecure: bool,
}

#[derive(Debug, Args)]
pub struct ThriftArgs {
    /// The Basalt server to serve [default: localhost:16000].
    #[arg(long, value_name = "HOST:PORT", default_value = "localhost:16000")]
    pub connect: String,
    #[command(flatten)]
    pub credentials: crate::credentials::CredentialArgs,
    /// Require authentication (`[security] auth = "required"`): each client's
    /// credentials are passed to the server, which checks them and HBase's ACLs.
    #[arg(long)]
    pub auth: bool,
    /// Allow a non-loopback --bind without --auth (warned on every start).
    #[arg(long)]
    pub insecure: bool,

    /// Thrift port; 0 picks a free one [default: 9090].
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// Address to listen on [default: 127.0.0.1].
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Framed transport instead of buffered (HBase's -f).
    #[arg(long)]
    pub framed: bool,
    /// Compact protocol instead of binary (HBase's -c).
    #[arg(long)]
    pub compact: bool,
    /// Thrift over HTTP: each call an HTTP POST of one message (HBase's
    /// hbase.regionserver.thrift.http).
    #[arg(long)]
    pub http: bool,
    /// Serve HBase's Thrift2 service (THBaseService) instead of Thrift1 (Hbase).
    #[arg(long)]
    pub thrift2: bool,
    /// A TOML configuration file; its [thrift] and [security] sections apply.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log filter [default: info].
    #[arg(long, value_name = "FILTER")]
    pub log: Option<String>,
}
