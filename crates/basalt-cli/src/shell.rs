//! `basalt shell`: the HBase shell over a server connection, or over a data folder served
//! in this process (`--data-dir`, see [`crate::in_process`]).

use crate::cli::ShellArgs;
use crate::CliError;
use basalt_api::Connection;
use basalt_db::DbConfig;
use basalt_shell::{Shell, ShellOptions, TimestampFormat};
use std::io::{IsTerminal, Read};
use std::sync::Arc;

/// The server `basalt shell` talks to when told nothing else.
pub const DEFAULT_SERVER: &str = "localhost:16000";

/// Runs the shell; returns its exit status.
pub fn run(args: &ShellArgs) -> Result<i32, CliError> {
    let config = match &args.config {
        Some(path) => crate::config::BasaltConfig::load(path)?,
        None => crate::config::BasaltConfig::default(),
    };
    let epoch = args.timestamp_format_epoch || config.shell.timestamp_format_epoch;
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
            let address = args.connect.as_deref().unwrap_or(DEFAULT_SERVER);
            Arc::new(args.credentials.connect(address)?)
        }
    };
    let options = ShellOptions {
        non_interactive: args.non_interactive,
        timestamps: TimestampFormat::from_epoch_flag(epoch),
        ..ShellOptions::default()
    };
    let mut shell = Shell::new(conn, options);
    let script = match &args.file {
        Some(path) => {
            Some(
                std::fs::read_to_string(path).map_err(|source| CliError::ReadScript {
                    path: path.clone(),
                    source,
                })?,
            )
        }
        None if !std::io::stdin().is_terminal() => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|source| CliError::ReadScript {
                    path: "standard input".into(),
                    source,
                })?;
            Some(text)
        }
        None => None,
    };
    let code = match script {
        Some(text) => shell.run_script(&text, &mut std::io::stdout().lock()).code,
        None => {
            let history = std::env::var_os("HOME")
                .map(|home| std::path::PathBuf::from(home).join(".basalt_history"));
            basalt_shell::repl::run_editor(&mut shell, history.as_deref())
        }
    };
    drop(shell);
    if let Some(served) = served {
        served.close()?;
    }
    Ok(code)
}
