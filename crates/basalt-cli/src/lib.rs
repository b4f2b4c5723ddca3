//! The `basalt` binary's wiring: the command line, the configuration file and the
//! subcommands. No logic of its own: each command calls into a library crate.
//!
//! # Layout
//! - [`cli`]: the clap definitions (`basalt --help`, `basalt <command> --help`).
//! - [`config`]: `basalt.toml`, every setting with its default.
//! - [`standalone`]: `basalt standalone`, a master and a region server in one process;
//!   [`standalone_folder`]: its folder (format 2, the import of format 1);
//!   [`local_connection`]: the in-process connection its gateways use;
//!   [`in_process`]: a folder served inside a tool (`--data-dir`).
//! - [`shell`]: `basalt shell`.
//! - [`rest`]: `basalt rest` and standalone's REST sidecar.
//! - [`pe`]: `basalt pe`.
//! - [`pe_server_cpu`]: the server's CPU seconds from its `/metrics`, around each `pe` command.
//! - [`importtsv`]: `basalt importtsv`, rows from a file bulk-loaded into a table.
//! - [`export`]: `basalt export`, `basalt import` and `basalt copytable`, rows of a
//!   table to a folder or bucket and back, or to another table or cluster.
//! - [`restore`]: `basalt restore`, a snapshot restored and rolled forward to a time.
//! - [`snapshot`]: `basalt snapshot export` / `import`, a snapshot's files to a folder or
//!   bucket, checksummed and resumable, and into another data folder or cluster store.
//! - [`hbck`]: `basalt hbck`, checks and explicit fixes on a data folder or a server;
//!   [`rebuild_meta`]: `basalt hbck rebuild-meta`, a cluster's catalog rebuilt from its store.
//! - [`keydist`]: `basalt keydist`, a table's key distribution and suggested split points.
//! - [`itbll`]: `basalt itbll`, HBase's IntegrationTestBigLinkedList against a server.
//! - [`web`]: the web UI as a standalone sidecar; [`sidecar`]: a sidecar whose stop blocks.
//! - [`cluster`]: `basalt master` and `basalt regionserver` (`cluster::reach`: how they
//!   reach etcd and the store, checked at start); [`cluster_web`]: their web UIs;
//!   [`cluster_local`]: a whole cluster in one process (`--with-regionserver`).
//! - [`thrift`]: `basalt thrift` (Thrift1 or Thrift2, sockets or HTTP) and standalone's Thrift sidecars.
//! - [`passthrough`]: `basalt rest`/`basalt thrift` with `--auth`: each client's
//!   credentials passed to the server, one backend connection per credential; their TLS.
//! - [`hbase`]: standalone's HBase native RPC and ZooKeeper sidecars.
//! - [`security`]: `[security]` and `--auth`, the authenticator a process serves with;
//!   [`bind_policy`]: the one rule for every listener (loopback unless authenticated or
//!   `--insecure`); [`user`]: `basalt user` on a data folder or etcd, [`user_connect`]:
//!   the same through a running server (`--connect`, `--bootstrap-token`);
//!   [`credentials`]: `--user`/`--token-file` of the client commands.

pub mod bind_policy;
pub mod cli;
pub mod cluster;
pub mod cluster_local;
pub mod cluster_web;
pub mod config;
pub mod credentials;
pub mod export;
pub mod hbase;
pub mod hbck;
pub mod importtsv;
pub mod in_process;
pub mod itbll;
pub mod keydist;
pub mod local_connection;
pub mod migrate;
pub mod passthrough;
pub mod pe;
pub mod pe_server_cpu;
pub mod rebuild_meta;
pub mod rest;
pub mod restore;
pub mod security;
pub mod shell;
pub mod sidecar;
pub mod snapshot;
pub mod standalone;
pub mod standalone_folder;
pub mod thrift;
pub mod user;
pub mod user_connect;
pub mod web;

use std::path::PathBuf;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("cannot read the configuration file {path}: {source}")]
    ReadConfig {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid configuration file {path}: {message}")]
    BadConfig { path: PathBuf, message: String },
    #[error("invalid log filter {0}")]
    BadLogFilter(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Server(#[from] basalt_server::ServerError),
    #[error("{0}")]
    Connect(basalt_api::ApiError),
    #[error("cannot read {path}: {source}")]
    ReadScript {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Rest(#[from] basalt_rest::RestError),
    #[error(transparent)]
    Pe(#[from] basalt_pe::PeError),
    #[error("the Thrift gateway failed: {0}")]
    Thrift(String),
    #[error("importtsv: {0}")]
    Import(String),
    #[error("hbck: {0}")]
    Hbck(String),
    /// hbck ran and found this many problems.
    #[error("hbck found {0} problems")]
    HbckProblems(usize),
    #[error("{0}")]
    Cluster(String),
    #[error("keydist: {0}")]
    Keydist(String),
    #[error("{0}")]
    Export(String),
    #[error("itbll: {0}")]
    Itbll(String),
    /// The shell ran and ended with this exit status.
    #[error("the shell exited with status {0}")]
    ShellExit(i32),
}

/// Runs a parsed command line.
pub fn run(cli: cli::Cli) -> Result<(), CliError> {
    match cli.command {
        cli::Command::Standalone(args) => standalone::run(&args),
        cli::Command::Shell(args) => match shell::run(&args)? {
            0 => Ok(()),
            code => Err(CliError::ShellExit(code)),
        },
        cli::Command::Rest(args) => rest::run(&args),
        cli::Command::Pe(args) => pe::run(&args),
        cli::Command::Importtsv(args) => importtsv::run(&args),
        cli::Command::Export(args) => export::exporter::run(&args),
        cli::Command::Import(args) => export::importer::run(&args),
        cli::Command::Copytable(args) => export::copytable::run(&args),
        cli::Command::Restore(args) => restore::run(&args),
        cli::Command::Snapshot(args) => snapshot::run(&args),
        cli::Command::Hbck(cli::HbckArgs {
            action: Some(cli::HbckAction::RebuildMeta(args)),
            ..
        }) => match rebuild_meta::run(&args)? {
            0 => Ok(()),
            problems => Err(CliError::HbckProblems(problems)),
        },
        cli::Command::Hbck(args) => match hbck::run(&args)? {
            0 => Ok(()),
            problems => Err(CliError::HbckProblems(problems)),
        },
        cli::Command::Itbll(args) => itbll::run(&args),
        cli::Command::Keydist(args) => keydist::run(&args),
        cli::Command::Thrift(args) => thrift::run(&args),
        cli::Command::Master(args) => cluster::run_master(&args),
        cli::Command::Migrate(args) => migrate::run(&args),
        cli::Command::User(args) => user::run(&args),
        cli::Command::Regionserver(args) => cluster::run_regionserver(&args),
        cli::Command::Config => {
            print!("{}", config::EXAMPLE);
            Ok(())
        }
    }
}
