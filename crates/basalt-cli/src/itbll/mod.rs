//! `basalt itbll`: HBase's IntegrationTestBigLinkedList as a tool a user runs against their
//! own Basalt (standalone or a cluster), through the public client API.
//!
//! ```text
//! basalt itbll generate --table T --generations G --width W [--regions N] [--seed S]
//!                       [--connect HOST:PORT]
//! basalt itbll verify   --table T [--connect HOST:PORT]
//! ```
//!
//! # The story
//! `generate` writes linked lists whose loss cannot hide. Every node is one row: its key is
//! 16 random bytes, and its `meta:prev` cell holds the key of a node written earlier. Nodes
//! are written a *generation* at a time, `--width` nodes each; node `i` of a generation
//! points at node `i` of the generation before, and the table is flushed after every
//! generation, so the lists run across many store files (and, with random keys, across
//! every region). The first generation is written pointing nowhere; once the last one is
//! written, the first is rewritten to point at the last, shifted by one place — node `i`
//! at node `i + 1` of the last generation — which closes all the lists into a single
//! circle. After a complete run every node is referenced by exactly one other node.
//!
//! `verify` scans the whole table and sorts every key into HBase's counters:
//! REFERENCED (exists, and some node points at it), UNREFERENCED (exists, nobody points at
//! it) and UNDEFINED (pointed at, but missing: lost data). A complete run leaves only
//! REFERENCED; a run that stopped part-way leaves its last generation UNREFERENCED and its
//! first without `meta:prev`; a lost row shows as one UNDEFINED key (and its own `prev` as
//! UNREFERENCED).
//!
//! # Layout
//! - [`generate`]: creating the table and writing the generations.
//! - [`verify`]: the scan, the counters and the verdict.

pub mod generate;
pub mod verify;

use crate::CliError;
use basalt_api::Connection;
use basalt_types::TableName;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// The family every node lives in.
pub const FAMILY: &[u8] = b"meta";
/// The key of the node this one points at (16 bytes).
pub const PREV: &[u8] = b"prev";
/// The node's place in its run, in decimal: `generation × width + index`.
pub const COUNT: &[u8] = b"count";
/// The run that wrote the node (16 hex digits).
pub const CLIENT: &[u8] = b"client";
/// A node's key length.
pub const KEY_LEN: usize = 16;
/// HBase's table name for the test.
pub const DEFAULT_TABLE: &str = "IntegrationTestBigLinkedList";

/// A node's key.
pub type Key = [u8; KEY_LEN];

#[derive(Debug, Args)]
pub struct ItbllArgs {
    #[command(subcommand)]
    pub command: ItbllCommand,
}

#[derive(Debug, Subcommand)]
pub enum ItbllCommand {
    /// Write --generations generations of --width linked nodes, flushing between them.
    ///
    /// Creates the table (family `meta`, pre-split into --regions regions) when missing.
    /// Each node is a row with a random 16-byte key whose `meta:prev` names a node of the
    /// generation before; the first generation is linked to the last at the end, closing
    /// one circle in which every node is referenced exactly once.
    Generate(GenerateArgs),
    /// Scan the table and count REFERENCED, UNREFERENCED and UNDEFINED nodes.
    ///
    /// UNDEFINED nodes are referenced but missing: lost data; the first few are listed in
    /// hex with the node that references them. Exits 1 unless every node is referenced and
    /// none is missing.
    Verify(VerifyArgs),
}

/// Where to connect, shared by both commands.
#[derive(Debug, Args)]
pub struct Target {
    /// The server, or a cluster's masters (host:port[,host:port…]) [default: localhost:16000].
    #[arg(long, visible_alias = "server", value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// The table holding the lists.
    #[arg(long, value_name = "TABLE", default_value = DEFAULT_TABLE)]
    pub table: String,
    /// Log filter for stderr: a level or tracing directives, e.g. "info".
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub log: String,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub target: Target,
    /// How many generations to write (at least 1).
    #[arg(long, value_name = "G")]
    pub generations: u64,
    /// Nodes per generation (at least 1).
    #[arg(long, value_name = "W")]
    pub width: u64,
    /// Regions a new table is pre-split into, evenly over the key space (1 for none).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub regions: u32,
    /// Seed of the random keys (printed in the summary, so a run can be repeated)
    /// [default: a fresh one].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub target: Target,
}

/// Runs `basalt itbll generate|verify`.
pub fn run(args: &ItbllArgs) -> Result<(), CliError> {
    match &args.command {
        ItbllCommand::Generate(args) => {
            crate::standalone::init_logging(&args.target.log, None)?;
            generate::run(args)
        }
        ItbllCommand::Verify(args) => {
            crate::standalone::init_logging(&args.target.log, None)?;
            verify::run(args)
        }
    }
}

fn fail(message: impl Into<String>) -> CliError {
    CliError::Itbll(message.into())
}

/// The connection and the table's name for `target`.
fn connect(target: &Target) -> Result<(basalt_client::RemoteConnection, TableName), CliError> {
    let table = TableName::parse(&target.table).map_err(|e| fail(format!("--table: {e}")))?;
    let address = target
        .connect
        .as_deref()
        .unwrap_or(crate::pe::DEFAULT_SERVER);
    let conn = basalt_client::RemoteConnection::connect(address)
        .map_err(|e| fail(format!("cannot connect to {address}: {}", e.message)))?;
    Ok((conn, table))
}

/// The table's handle, or an error saying it is missing.
fn open_table(
    conn: &dyn Connection,
    table: &TableName,
) -> Result<std::sync::Arc<dyn basalt_api::Table>, CliError> {
    conn.table(table).map_err(|e| match e.kind {
        basalt_api::ErrorKind::NotFound => fail(format!("table {table} does not exist")),
        _ => fail(format!("table {table}: {e}")),
    })
}

/// `key` in lower-case hex.
pub fn hex(key: &[u8]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// A progress bar on stderr when it is a terminal (hidden otherwise): `total` items, or a
/// counter when the total is unknown.
fn progress(message: &str, total: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = match total {
        Some(_) => "{msg:>16} [{bar:40}] {pos}/{len} nodes {per_sec} eta {eta}",
        None => "{msg:>16} {pos} nodes {per_sec}",
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(message.to_string());
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_lower_case_digits_per_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xab, 0xff]), "000fabff");
        assert_eq!(hex(&[]), "");
    }
}
