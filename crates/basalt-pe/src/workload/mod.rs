//! The commands' operations: one file per family of commands, each running one client's
//! share of a command against its own table handle.
//!
//! # Layout
//! - [`client`]: one client's state — its table, rows, random stream and counts.
//! - [`writer`]: direct or buffered (`BufferedMutator`) writes.
//! - [`writes`]: `sequentialWrite`, `randomWrite`.
//! - [`reads`]: `sequentialRead`, `randomRead`, `multiGet`.
//! - [`scans`]: `scan`, `randomSeekScan`, `scanRange10/100/1000`.
//! - [`counters`]: `increment`, `append`, `checkAndPut`.
//! - [`filter_scan`]: the `filterScan` command.
//! - [`ycsb`]: `ycsbLoad` and workloads A–F.

pub mod client;
pub mod counters;
pub mod filter_scan;
pub mod reads;
pub mod scans;
pub mod writer;
pub mod writes;
pub mod ycsb;

use crate::command::Command;
use crate::options::PeOptions;
use basalt_api::Result;
use basalt_types::RowResult;
pub use client::{Client, Shared};

/// Runs client `client`'s share of `command`.
pub fn run(command: Command, client: &mut Client<'_>) -> Result<()> {
    match command {
        Command::SequentialWrite => writes::sequential_write(client),
        Command::RandomWrite => writes::random_write(client),
        Command::SequentialRead => reads::sequential_read(client),
        Command::RandomRead | Command::MultiGet => reads::random_read(client),
        Command::RandomSeekScan => scans::random_seek_scan(client),
        Command::Scan => scans::scan(client),
        Command::ScanRange10 => scans::scan_range(client, 10),
        Command::ScanRange100 => scans::scan_range(client, 100),
        Command::ScanRange1000 => scans::scan_range(client, 1000),
        Command::Increment => counters::increment(client),
        Command::Append => counters::append(client),
        Command::CheckAndPut => counters::check_and_put(client),
        Command::FilterScan => filter_scan::filter_scan(client),
        Command::YcsbLoad => ycsb::load(client),
        Command::YcsbA
        | Command::YcsbB
        | Command::YcsbC
        | Command::YcsbD
        | Command::YcsbE
        | Command::YcsbF => ycsb::transactions(command, client),
    }
}

/// Operations one client runs for `command` (the progress bar's share).
pub fn planned_ops(command: Command, options: &PeOptions) -> u64 {
    match command {
        Command::FilterScan => filter_scan::scans_per_client(options),
        _ => options.rows_per_client,
    }
}

/// Value bytes of a row a read returned.
pub fn value_bytes(row: &RowResult) -> u64 {
    row.cells.iter().map(|c| c.value().len() as u64).sum()
}
