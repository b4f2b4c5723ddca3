//! `basalt pe`: HBase's PerformanceEvaluation and YCSB workloads (`basalt-pe`) against a
//! server (`--connect`) or a data folder opened in this process (`--data-dir`).

use crate::cli::PeCliArgs;
use crate::CliError;
use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
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
            let db = Database::open(dir, DbConfig::default()).map_err(CliError::Connect)?;
            let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(Arc::clone(&db)));
            let report = basalt_pe::run(conn, &options);
            db.close().map_err(CliError::Connect)?;
            report?
        }
        None => {
            let address = args.connect.as_deref().unwrap_or(DEFAULT_SERVER);
            let conn =
                basalt_client::RemoteConnection::connect(address).map_err(CliError::Connect)?;
            basalt_pe::run(Arc::new(conn), &options)?
        }
    };
    if options.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
