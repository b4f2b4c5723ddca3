//! Runs a command: prepares the table, starts `--clients` threads over one connection (each
//! with its own table handle), shows progress, merges the clients' counts into a report.

use crate::command::Command;
use crate::error::{PeError, Result};
use crate::options::PeOptions;
use crate::report::Report;
use crate::stats::{ClientStats, PhaseStats};
use crate::workload::{self, Client, Shared};
use crate::{memory, table_setup};
use basalt_api::{ApiError, Connection};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Runs `options.command` (after `ycsbLoad` when a YCSB workload finds its table empty)
/// and reports what it measured.
pub fn run(conn: Arc<dyn Connection>, options: &PeOptions) -> Result<Report> {
    run_measuring(conn, options, &|| None)
}

/// As [`run`], with `server_cpu` read before and after each phase: the server's CPU
/// seconds so far (None when they cannot be read), for ops per server CPU-second.
pub fn run_measuring(
    conn: Arc<dyn Connection>,
    options: &PeOptions,
    server_cpu: &dyn Fn() -> Option<f64>,
) -> Result<Report> {
    table_setup::ensure_table(conn.as_ref(), options)?;
    let mut phases = Vec::new();
    if options.command.is_ycsb_transactions() {
        let table = conn
            .table(&options.table)
            .map_err(|source| PeError::Table {
                table: options.table.to_string(),
                source,
            })?;
        let empty = table_setup::is_empty(table.as_ref()).map_err(|source| PeError::Table {
            table: options.table.to_string(),
            source,
        })?;
        if empty {
            tracing::info!(table = %options.table, "table is empty: loading YCSB records first");
            phases.push(run_phase(&conn, options, Command::YcsbLoad, server_cpu)?);
        }
    }
    phases.push(run_phase(&conn, options, options.command, server_cpu)?);
    Ok(Report::new(options, &phases, memory::peak_rss_bytes()))
}

fn progress_bar(command: Command, total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{msg:>16} [{bar:40}] {pos}/{len} ops {per_sec} eta {eta}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(command.name());
    bar
}

/// Runs one command on every client and merges their counts.
fn run_phase(
    conn: &Arc<dyn Connection>,
    options: &PeOptions,
    command: Command,
    server_cpu: &dyn Fn() -> Option<f64>,
) -> Result<PhaseStats> {
    let planned = workload::planned_ops(command, options) * u64::from(options.clients);
    let progress = progress_bar(command, planned);
    let shared = Shared::new(options);
    tracing::info!(
        command = command.name(),
        clients = options.clients,
        ops = planned,
        "starting"
    );
    let cpu_before = server_cpu();
    let started = Instant::now();
    let outcomes: Vec<Result<ClientStats>> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for index in 0..options.clients {
            let (shared, progress) = (&shared, &progress);
            let handle = std::thread::Builder::new()
                .name(format!("pe-client-{index}"))
                .spawn_scoped(
                    scope,
                    move || -> std::result::Result<ClientStats, ApiError> {
                        let table = conn.table(&options.table)?;
                        let mut client = Client::new(index, table, options, shared, progress);
                        match workload::run(command, &mut client) {
                            Ok(()) => Ok(client.finish()),
                            Err(e) => {
                                shared.stop.store(true, Ordering::Relaxed);
                                Err(e)
                            }
                        }
                    },
                );
            match handle {
                Ok(handle) => handles.push((index, handle)),
                Err(e) => {
                    shared.stop.store(true, Ordering::Relaxed);
                    return vec![Err(PeError::Spawn(e))];
                }
            }
        }
        handles
            .into_iter()
            .map(|(index, handle)| match handle.join() {
                Ok(Ok(stats)) => Ok(stats),
                Ok(Err(source)) => Err(PeError::Operation {
                    command: command.name(),
                    source,
                }),
                Err(_) => Err(PeError::ClientPanicked(index)),
            })
            .collect()
    });
    let elapsed = started.elapsed();
    let server_cpu_secs = cpu_before
        .zip(server_cpu())
        .map(|(before, after)| (after - before).max(0.0));
    progress.finish_and_clear();
    let mut stats = ClientStats::default();
    for outcome in outcomes {
        stats.merge(&outcome?);
    }
    tracing::info!(
        command = command.name(),
        ops = stats.total.ops(),
        secs = elapsed.as_secs_f64(),
        "finished"
    );
    Ok(PhaseStats {
        command: command.name(),
        elapsed,
        stats,
        server_cpu_secs,
    })
}
