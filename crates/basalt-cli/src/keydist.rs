//! `basalt keydist TABLE`: a table's key distribution, from a running server or a data
//! folder opened in this process: region boundaries plus a reservoir sample of each
//! region's row keys (`basalt_api::keydist`), a histogram of the keys' first bytes, and
//! split points that would spread the same rows evenly, printed as `SPLITS => [...]` for
//! the shell's `create`.

use crate::cli::KeydistArgs;
use crate::CliError;
use basalt_api::keydist::{histogram, sample, shell_literal, suggest_splits};
use basalt_api::Connection;
use basalt_db::DbConfig;
use basalt_types::TableName;
use std::fmt::Write as _;
use std::sync::Arc;

/// The widest histogram bar.
const BAR_MAX: f64 = 50.0;

pub fn run(args: &KeydistArgs) -> Result<(), CliError> {
    let served = match &args.data_dir {
        Some(dir) => Some(crate::in_process::InProcess::start(
            dir,
            DbConfig::default(),
        )?),
        None => None,
    };
    let conn: Arc<dyn Connection> = match &served {
        Some(served) => served.connection(),
        None => {
            let address = args
                .connect
                .as_deref()
                .unwrap_or(crate::shell::DEFAULT_SERVER);
            Arc::new(basalt_client::RemoteConnection::connect(address).map_err(CliError::Connect)?)
        }
    };
    let table = TableName::parse(&args.table)
        .map_err(|e| CliError::Keydist(format!("bad table name '{}': {e}", args.table)))?;
    let keys = sample(conn.as_ref(), &table).map_err(CliError::Connect)?;
    let regions = args.regions.unwrap_or(keys.boundaries.len().max(2));
    print!("{}", report(&table, &keys, regions));
    Ok(())
}

/// What `keydist` prints.
pub fn report(table: &TableName, keys: &basalt_api::keydist::KeySample, regions: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Table {table}: {} regions, {} rows scanned, {} keys sampled",
        keys.boundaries.len(),
        keys.rows,
        keys.keys.len()
    );
    let _ = writeln!(out, "First byte of the row key (estimated rows):");
    let counts = histogram(keys);
    let max = counts.iter().map(|c| c.1).fold(0.0, f64::max);
    for (byte, rows) in &counts {
        let shown = if byte.is_ascii_graphic() {
            (*byte as char).to_string()
        } else {
            " ".to_string()
        };
        let bar = "#".repeat(((rows / max) * BAR_MAX).ceil() as usize);
        let _ = writeln!(out, "  0x{byte:02X} {shown} {rows:>12.0} {bar}");
    }
    let splits = suggest_splits(keys, regions);
    let literals: Vec<String> = splits.iter().map(|s| shell_literal(s)).collect();
    let _ = writeln!(out, "Suggested split points for {regions} regions:");
    let _ = writeln!(out, "SPLITS => [{}]", literals.join(", "));
    out
}
