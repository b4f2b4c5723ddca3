//! `basalt export`, `basalt import` and `basalt copytable`: HBase's `Export`, `Import` and
//! `CopyTable`, row-level copies of a table through the public client API, against a
//! server (`--connect`) or a data folder opened in this process (`--data-dir`).
//!
//! ```text
//! basalt export    TABLE URL [--start-time MS] [--end-time MS] [--versions N]
//!                  [--start-row R] [--stop-row R] [--families f1,f2] [--raw]
//! basalt import    TABLE URL [--create]
//! basalt copytable SOURCE [--new-name NAME] [--peer HOST:PORT] [the filters above]
//! ```
//!
//! # The story
//! `export` scans the table (the versions, time range, rows and families asked for; delete
//! markers too with `--raw`, as HBase's `hbase.mapreduce.include.deleted.rows`) and writes
//! the cells, in scan order, into numbered part files at `URL` (`file:///dir` or
//! `s3://bucket/prefix`), each cut at a row boundary once it passes `--part-size`, each
//! carrying a CRC-32C and its last row. It writes the job (what was asked) first and the
//! manifest (table descriptor, split points, totals, every part's checksum) last: an
//! export without a manifest is incomplete. A re-run of the same job keeps the parts
//! already complete (their checksums verify) and scans on from the last one's last row.
//!
//! `import` reads the manifest, then each part: a part whose bytes do not verify, or whose
//! checksum differs from the manifest's, is named and nothing of it is written; the others
//! are written, row by row in batches, with their own timestamps (delete markers as
//! deletes at theirs). `--create` makes a missing table from the exported descriptor and
//! split points. `copytable` does the same scan and writes to another table of this
//! cluster (`--new-name`) or of another (`--peer`), creating it from the source's
//! descriptor and split points when missing.
//!
//! # Layout
//! - [`format`]: the bytes of a part (pure).
//! - [`manifest`]: the job and the manifest, text with a checksum (pure).
//! - [`target`]: the folder or bucket an export lives in.
//! - [`rows`]: connections, the scan a filter asks for, and writing cells back as
//!   puts and deletes in batches.
//! - [`exporter`]: `basalt export`; [`importer`]: `basalt import`;
//!   [`copytable`]: `basalt copytable`.

pub mod copytable;
pub mod exporter;
pub mod format;
pub mod importer;
pub mod manifest;
pub mod rows;
pub mod target;

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

pub(crate) fn fail(message: impl Into<String>) -> CliError {
    CliError::Export(message.into())
}

/// Where the table is.
#[derive(Debug, Args, Clone)]
pub struct Source {
    /// The server, or a cluster's masters (host:port[,host:port…]) [default: localhost:16000].
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "data_dir")]
    pub connect: Option<String>,
    /// Open this data folder in process instead (no server may have it open).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Log filter for stderr: a level or tracing directives, e.g. "info".
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub log: String,
}

/// Which cells a scan takes (HBase's Export and CopyTable options).
#[derive(Debug, Args, Clone)]
pub struct CellFilter {
    /// Only cells with a timestamp at or after this (ms since the epoch).
    #[arg(long, value_name = "MS")]
    pub start_time: Option<i64>,
    /// Only cells with a timestamp before this (ms since the epoch).
    #[arg(long, value_name = "MS")]
    pub end_time: Option<i64>,
    /// The most versions of each column to take.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub versions: u32,
    /// The first row (inclusive; HBase's binary escapes such as \x00 allowed).
    #[arg(long, value_name = "ROW")]
    pub start_row: Option<String>,
    /// The row to stop at (exclusive).
    #[arg(long, value_name = "ROW")]
    pub stop_row: Option<String>,
    /// Only these column families (comma-separated).
    #[arg(long, value_name = "F1,F2")]
    pub families: Option<String>,
    /// Take delete markers too (a raw scan), so that deletes are copied as deletes.
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub filter: CellFilter,
    /// A part is closed at the first row boundary past this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub part_size: usize,
    /// The endpoint of an S3-compatible service for s3:// URLs (`http://host:port` allowed).
    #[arg(long, value_name = "URL")]
    pub store_endpoint: Option<String>,
    /// The table to export.
    pub table: String,
    /// Where: file:///absolute/dir or s3://bucket/prefix.
    pub url: String,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub source: Source,
    /// Create the table from the export's descriptor and split points when it is missing.
    #[arg(long)]
    pub create: bool,
    /// Rows written per batch.
    #[arg(long, value_name = "ROWS", default_value_t = 500)]
    pub batch: usize,
    /// The endpoint of an S3-compatible service for s3:// URLs (`http://host:port` allowed).
    #[arg(long, value_name = "URL")]
    pub store_endpoint: Option<String>,
    /// The table to write into (it may differ from the exported table's name).
    pub table: String,
    /// The export: file:///absolute/dir or s3://bucket/prefix.
    pub url: String,
}

#[derive(Debug, Args)]
pub struct CopyTableArgs {
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub filter: CellFilter,
    /// The destination table's name [default: the source's; then --peer is needed].
    #[arg(long, value_name = "NAME")]
    pub new_name: Option<String>,
    /// The destination cluster (host:port[,host:port…]) [default: the source's].
    #[arg(long, value_name = "HOST:PORT")]
    pub peer: Option<String>,
    /// Rows written per batch.
    #[arg(long, value_name = "ROWS", default_value_t = 500)]
    pub batch: usize,
    /// The table to copy.
    pub table: String,
}
