//! `basalt pe`: HBase's PerformanceEvaluation and YCSB workloads (`basalt-pe`) against a
//! server (`--connect`) or a data folder in this process (`--data-dir`): the embedded
//! database (`basalt_db::Database`, the engine with no RPC between), or, for a folder
//! `basalt standalone` serves (format 2), that folder served as standalone serves it (see
//! [`crate::in_process`]). Against a server it also reads the server's CPU time around
//! each command ([`crate::pe_server_cpu`]) for ops per server CPU-second.

use crate::cli::PeCliArgs;
use crate::{pe_server_cpu, CliError};
use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::engine::folder_version::{self, COORDINATED};
use std::sync::Arc;

/// The server `basalt pe` talks to when told nothing else.
pub const DEFAULT_SERVER: &str = "localhost:16000";

/// Runs the benchmark and prints its report (text, or JSON with `--json`) on stdout. A data
/// folder is closed at the end (every region flushed), so `SKIP_WAL` writes are kept too.
pub fn run(args: &PeCliArgs) -> Result<(), CliError> {
    let options = args.pe.clone().validate()?;
    crate::standalone::init_logging(&args.log, None)?;
    let report = match &args.data_dir {
        Some(dir) => {
            let version = folder_version::read(&basalt_storage::fs::LocalFs, dir)
                .map_err(|e| CliError::Cluster(format!("{}: {e}", dir.display())))?;
            if version == Some(COORDINATED) {
                // A folder `basalt standalone` serves: served here the same way.
                let served = crate::in_process::InProcess::start(dir, DbConfig::default())?;
                let report = basalt_pe::run(served.connection(), &options);
                served.close()?;
                report?
            } else {
                // Any other folder: the embedded database, the engine with no RPC between.
                let db = Database::open(dir, DbConfig::default()).map_err(CliError::Connect)?;
                let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(Arc::clone(&db)));
                let report = basalt_pe::run(conn, &options);
                db.close().map_err(CliError::Connect)?;
                report?
            }
        }
        None => {
            let address = args.connect.as_deref().unwrap_or(DEFAULT_SERVER);
            let conn = args.credentials.connect(address)?;
            let url = pe_server_cpu::metrics_url(address, args.server_metrics.as_deref());
            match pe_server_cpu::read(&url) {
                Ok(_) => {
                    let read = || {
                        pe_server_cpu::read(&url)
                            .inspect_err(|e| tracing::warn!(error = %e, "server CPU not read"))
                            .ok()
                    };
                    let mut report = basalt_pe::run_measuring(Arc::new(conn), &options, &read)?;
                    report.server_cpu_source = Some(format!("process_cpu_seconds_total of {url}"));
                    report
                }
                Err(why) => {
                    let mut report = basalt_pe::run(Arc::new(conn), &options)?;
                    report.server_cpu_source = Some(format!(
                        "unknown ({why}; --server-metrics URL names the server's /metrics)"
                    ));
                    report
                }
            }
        }
    };
    if options.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
