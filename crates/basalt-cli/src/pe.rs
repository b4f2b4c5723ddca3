//! `basalt pe`: HBase's PerformanceEvaluation and YCSB workloads (`basalt-pe`) against a
//! server (`--connect`) or a data folder opened in this process (`--data-dir`).

use crate::cli::PeCliArgs;
use crate::CliError;
use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use std::sync::Arc;

/// The server `basalt pe` talks to when told nothing else.
pub const DEFAULT_SERVER: &str = "localhost:16000";

/// Runs the benchmark and prints its report (text, or JSON with `--json`) on stdout.
pub fn run(args: &PeCliArgs) -> Result<(), CliError> {
    let options = args.pe.clone().validate()?;
    let conn: Arc<dyn Connection> = match &args.data_dir {
        Some(dir) => Arc::new(EmbeddedConnection::new(
            Database::open(dir, DbConfig::default()).map_err(CliError::Connect)?,
        )),
        None => {
            let address = args.connect.as_deref().unwrap_or(DEFAULT_SERVER);
            Arc::new(basalt_client::RemoteConnection::connect(address).map_err(CliError::Connect)?)
        }
    };
    let report = basalt_pe::run(conn, &options)?;
    if options.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
