//! `basalt snapshot export` and `basalt snapshot import`: HBase's ExportSnapshot, a
//! snapshot's files copied whole to a folder or a bucket and brought into another data
//! folder or cluster store, where `clone_snapshot` and `restore_snapshot` then work.
//!
//! ```text
//! basalt snapshot export --snapshot S --to URL   (--data-dir DIR | --store URL) [--store-endpoint E] [--to-endpoint E]
//! basalt snapshot import --from URL [--snapshot S] (--data-dir DIR | --store URL) [--store-endpoint E] [--from-endpoint E]
//! ```
//!
//! # The story
//! The snapshot's files are read where the snapshot lives: a standalone's data folder
//! (`--data-dir`, running or not: the files a snapshot names never change) or a cluster's
//! store (`--store`, as `basalt master` takes it; on an object store its links are
//! followed). At `URL/<S>/` the export writes every store file under the same relative
//! path as in the snapshot's folder, reading each back to check its CRC-32C, then the
//! snapshot's manifest `SNAPSHOT`, then `CHECKSUMS` (every file's size and CRC), last: an
//! export without it is unfinished. A re-run skips each file already there whose size and
//! CRC match the source's, and copies the rest. Progress goes to stderr, one line a file.
//!
//! The import reads `CHECKSUMS`, then copies each file into the snapshot's folder being
//! built (`snapshots/.tmp/<S>/`, kept across re-runs, whose verified files are skipped),
//! checking each against its CRC; any mismatch is named, and the snapshot is not made.
//! Only then is the manifest written and the folder renamed into place, so a listed
//! snapshot is always whole. Into a running cluster it goes through the cluster's store
//! (`--store`): the master lists snapshots from there.
//!
//! # Layout
//! - [`checksums`]: the `CHECKSUMS` file (pure).
//! - [`copy`]: one file up or down, in chunks, with its CRC.
//! - [`export`], [`import`]: the two commands.

pub mod checksums;
pub mod copy;
pub mod export;
pub mod import;

use crate::export::fail;
use crate::CliError;
use basalt_storage::fs::{FileSystem, LocalFs};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(subcommand)]
    pub action: SnapshotAction,
}

#[derive(Debug, Subcommand)]
pub enum SnapshotAction {
    /// HBase's ExportSnapshot: a snapshot's files to file:///dir or s3://bucket/prefix.
    ///
    /// Every file is read back and its CRC-32C checked; a re-run skips the files already
    /// copied (and verifying) and copies the rest; CHECKSUMS is written last.
    Export(ExportSnapshotArgs),
    /// An exported snapshot into a data folder or a cluster's store, every file checked.
    ///
    /// A file whose checksum does not match is named and the snapshot is not made; a
    /// re-run skips the files already copied.
    Import(ImportSnapshotArgs),
}

/// The data folder or cluster store a snapshot is read from or written to.
#[derive(Debug, Args, Clone)]
pub struct Home {
    /// A standalone's data folder.
    #[arg(long, value_name = "DIR", conflicts_with = "store")]
    pub data_dir: Option<PathBuf>,
    /// A cluster's store, as `basalt master --store` takes it: file:///dir or s3://bucket/prefix.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// The endpoint of an S3-compatible service for every s3:// URL of the command
    /// (`http://host:port` allowed).
    #[arg(long, value_name = "URL")]
    pub store_endpoint: Option<String>,
    /// Log filter for stderr: a level or tracing directives, e.g. "info".
    #[arg(long, value_name = "FILTER", default_value = "warn")]
    pub log: String,
}

#[derive(Debug, Args)]
pub struct ExportSnapshotArgs {
    #[command(flatten)]
    pub home: Home,
    /// The snapshot to export.
    #[arg(long, value_name = "NAME")]
    pub snapshot: String,
    /// Where: file:///absolute/dir or s3://bucket/prefix (the snapshot goes under NAME/).
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// The endpoint for --to, when it differs from --store-endpoint.
    #[arg(long, value_name = "URL")]
    pub to_endpoint: Option<String>,
}

#[derive(Debug, Args)]
pub struct ImportSnapshotArgs {
    #[command(flatten)]
    pub home: Home,
    /// The export: file:///absolute/dir or s3://bucket/prefix.
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// The snapshot to import [default: the only one at --from].
    #[arg(long, value_name = "NAME")]
    pub snapshot: Option<String>,
    /// The endpoint for --from, when it differs from --store-endpoint.
    #[arg(long, value_name = "URL")]
    pub from_endpoint: Option<String>,
}

pub fn run(args: &SnapshotArgs) -> Result<(), CliError> {
    match &args.action {
        SnapshotAction::Export(a) => export::run(a),
        SnapshotAction::Import(a) => import::run(a),
    }
}

/// The file system and root the snapshots of `home` live under.
pub fn open_home(home: &Home) -> Result<(Arc<dyn FileSystem>, PathBuf), CliError> {
    if let Some(dir) = &home.data_dir {
        if !dir.is_dir() {
            return Err(fail(format!("{}: no such data folder", dir.display())));
        }
        return Ok((Arc::new(LocalFs), dir.clone()));
    }
    let Some(url) = &home.store else {
        return Err(fail(
            "say where the snapshots live: --data-dir DIR or --store URL",
        ));
    };
    if let Some(dir) = url.strip_prefix("file://") {
        return Ok((Arc::new(LocalFs), PathBuf::from(dir)));
    }
    if !url.starts_with("s3://") {
        return Err(fail(format!(
            "store URL {url}: expected file:///dir or s3://bucket/prefix"
        )));
    }
    let options = basalt_store::StoreOptions {
        endpoint: home.store_endpoint.clone(),
        ..basalt_store::StoreOptions::default()
    };
    let fs =
        basalt_store::StoreFs::open(url, options).map_err(|e| fail(format!("store {url}: {e}")))?;
    Ok((Arc::new(fs), PathBuf::from("/")))
}

/// A line of progress on stderr.
fn progress(line: &str) {
    use std::io::Write;
    let mut err = std::io::stderr();
    let _ = writeln!(err, "{line}");
    let _ = err.flush();
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1_048_576.0
}
