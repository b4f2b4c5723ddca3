//! `basalt restore --snapshot s --to-time T`: point-in-time restore from the command line
//! (beyond HBase). The snapshot's table is disabled if it is not already, restored from
//! the snapshot, rolled forward with the edits its logs kept (`WAL_RETENTION_SECS`) up to
//! `T` (epoch milliseconds or RFC 3339; see
//! `basalt_db::snapshot::pitr` for what "time" means), and enabled again if it was
//! enabled before. Against a server (`--connect`) or a data folder (`--data-dir`).

use crate::export::rows::Opened;
use crate::export::Source;
use crate::CliError;
use clap::Args;

#[derive(Debug, Args, Clone)]
pub struct RestoreArgs {
    #[command(flatten)]
    pub source: Source,
    /// The snapshot to restore.
    #[arg(long, value_name = "NAME")]
    pub snapshot: String,
    /// Roll forward to this time: epoch milliseconds or RFC 3339
    /// (2026-11-27T04:30:00Z). Without it, the snapshot alone is restored.
    #[arg(long, value_name = "MS|RFC3339")]
    pub to_time: Option<String>,
}

fn fail(message: impl Into<String>) -> CliError {
    CliError::Export(format!("restore: {}", message.into()))
}

/// Runs the restore and prints what it did.
pub fn run(args: &RestoreArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.source.log, None)?;
    let to_ms = match &args.to_time {
        Some(text) => {
            Some(basalt_shell::commands::restore_snapshot::parse_time_ms(text).map_err(fail)?)
        }
        None => None,
    };
    let opened = Opened::open(&args.source)?;
    let result = restore(&opened, &args.snapshot, to_ms);
    let closed = opened.close();
    let summary = result?;
    closed?;
    println!("{summary}");
    Ok(())
}

fn restore(opened: &Opened, name: &str, to_ms: Option<i64>) -> Result<String, CliError> {
    let admin = opened.conn.admin();
    let snapshot = admin
        .list_snapshots(Some(&regex_escape(name)))
        .map_err(|e| fail(e.to_string()))?
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| fail(format!("snapshot '{name}' doesn't exist")))?;
    let table = snapshot.table;
    let enabled = admin
        .is_table_enabled(&table)
        .map_err(|e| fail(format!("table {table}: {e}")))?;
    if enabled {
        eprintln!("restore: disabling {table}");
        admin
            .disable_table(&table)
            .map_err(|e| fail(e.to_string()))?;
    }
    let restored = match to_ms {
        Some(ms) => admin.restore_snapshot_to(name, ms),
        None => admin.restore_snapshot(name),
    };
    if let Err(e) = restored {
        if enabled {
            // The table is as it was (a refused restore changes nothing): serve it again.
            let _ = admin.enable_table(&table);
        }
        return Err(fail(e.to_string()));
    }
    if enabled {
        admin
            .enable_table(&table)
            .map_err(|e| fail(e.to_string()))?;
    }
    Ok(match to_ms {
        Some(ms) => format!("restored {table} from snapshot {name}, rolled forward to {ms}"),
        None => format!("restored {table} from snapshot {name}"),
    })
}

/// `name` as a regular expression matching itself (snapshot names hold `.`).
fn regex_escape(name: &str) -> String {
    name.replace('.', "\\.")
}
