//! `basalt hbck`: HBase's hbck for Basalt — what is damaged, what failed to open, what is in
//! quarantine, where the catalog and the data folder disagree; and, only when told, the
//! fixes that move damaged store files aside or purge the quarantine.
//!
//! ```text
//! basalt hbck --data-dir DIR [--quarantine-file PATH]... [--fix-damaged-files]
//!                            [--purge-quarantine]
//! basalt hbck --connect HOST:PORT
//! basalt hbck rebuild-meta --coordinator etcd://… --store URL [--force] …
//! ```
//! (`rebuild-meta`, a cluster's catalog rebuilt from its store, is [`crate::rebuild_meta`].)
//! Offline, under the folder's lock: purge (if asked), verify every manifest and store file,
//! quarantine the files named (or every damaged one), verify again; then serve the folder
//! in this process as `basalt standalone` does (see [`crate::in_process`]) — the same
//! recovery, which deletes nothing — and report its health. Online,
//! the server's health report (no file verification: the server holds the folder). Ends
//! with `Status: OK`, or `Status: INCONSISTENT` and exit status 1.

use crate::cli::HbckArgs;
use crate::CliError;
use basalt_api::{ClusterHealth, Connection};
use basalt_db::hbck::{self, FileCheck, FileKind};
use basalt_db::lock::DataDirLock;
use basalt_db::DbConfig;
use std::path::{Path, PathBuf};

/// How often the split checker would run while hbck holds the folder open: never, in
/// practice (hbck must not split regions).
pub(crate) const SPLIT_CHECK_INTERVAL_MS: u64 = 24 * 3600 * 1000;

/// Runs hbck and prints its report; returns how many problems it found.
pub fn run(args: &HbckArgs) -> Result<usize, CliError> {
    crate::standalone::init_logging(&args.log, None)?;
    match (&args.data_dir, &args.connect) {
        (Some(dir), _) => offline(dir, args),
        (None, Some(address)) => online(address),
        (None, None) => Err(CliError::Hbck(
            "give --data-dir DIR or --connect HOST:PORT".into(),
        )),
    }
}

fn online(address: &str) -> Result<usize, CliError> {
    let conn = basalt_client::RemoteConnection::connect(address).map_err(CliError::Connect)?;
    let health = conn.admin().cluster_health().map_err(CliError::Connect)?;
    println!("basalt hbck: server {address}");
    print_health(&health);
    Ok(status(health.problem_count()))
}

fn offline(dir: &Path, args: &HbckArgs) -> Result<usize, CliError> {
    println!("basalt hbck: data folder {}", dir.display());
    let fail = |e: basalt_api::ApiError| CliError::Hbck(e.message);
    let check = {
        let _lock = DataDirLock::acquire(dir).map_err(|e| {
            CliError::Hbck(format!(
                "{}: stop the server first, or ask it with --connect",
                e.message
            ))
        })?;
        if args.purge_quarantine {
            purge(dir)?;
        }
        let mut check = hbck::verify(dir).map_err(fail)?;
        let mut targets = args.quarantine_file.clone();
        if args.fix_damaged_files {
            targets.extend(
                check
                    .problems
                    .iter()
                    .filter(|p| p.kind == FileKind::StoreFile)
                    .map(|p| p.path.clone()),
            );
        }
        if !targets.is_empty() {
            for target in &targets {
                let loss = hbck::quarantine_store_file(dir, target, now_ms()).map_err(fail)?;
                println!("Quarantined on request: {loss}");
            }
            check = hbck::verify(dir).map_err(fail)?;
        }
        check
    };
    print_files(dir, &check);
    let config = DbConfig {
        split_check_interval_ms: SPLIT_CHECK_INTERVAL_MS,
        ..DbConfig::default()
    };
    let served = crate::in_process::InProcess::start(dir, config)?;
    let health = served.connection().admin().cluster_health();
    let closed = served.close();
    let health = health.map_err(CliError::Connect)?;
    closed?;
    print_health(&health);
    Ok(status(check.problems.len() + health.problem_count()))
}

fn purge(dir: &Path) -> Result<(), CliError> {
    let purged = basalt_db::quarantine::purge(dir)
        .map_err(|e| CliError::Hbck(format!("purging the quarantine: {e}")))?;
    let bytes: u64 = purged.iter().map(|i| i.bytes).sum();
    println!(
        "Purged {} quarantined items ({bytes} bytes) on request:",
        purged.len()
    );
    for item in &purged {
        println!("  {} (was {})", item.path.display(), item.original);
    }
    Ok(())
}

fn print_files(dir: &Path, check: &FileCheck) {
    println!(
        "Verified {} regions: {} manifests, {} store files ({} bytes).",
        check.regions, check.manifests, check.store_files, check.store_file_bytes
    );
    println!("Damaged files: {}", check.problems.len());
    for p in &check.problems {
        let shown = relative(dir, &p.path);
        println!("  {} {}: {}", p.kind.name(), shown.display(), p.cause);
        if p.kind == FileKind::StoreFile {
            println!(
                "    to set it aside (its cells are lost): basalt hbck --data-dir {} --quarantine-file {}",
                dir.display(),
                shown.display()
            );
        }
    }
}

fn print_health(health: &ClusterHealth) {
    println!("Regions FAILED_OPEN: {}", health.failed_regions.len());
    for f in &health.failed_regions {
        println!("  {}: {}", f.region_name, f.cause);
    }
    println!(
        "Quarantined items: {} (kept until basalt hbck --purge-quarantine)",
        health.quarantined.len()
    );
    for q in &health.quarantined {
        println!(
            "  {} ({} bytes, was {}): {}",
            q.path, q.bytes, q.original, q.reason
        );
    }
    println!("Catalog inconsistencies: {}", health.inconsistencies.len());
    for i in &health.inconsistencies {
        println!("  {} {}: {}", i.kind.name(), i.table, i.detail);
    }
}

/// Prints the verdict line; returns `problems`.
fn status(problems: usize) -> usize {
    if problems == 0 {
        println!("Status: OK");
    } else {
        println!("{problems} inconsistencies detected.");
        println!("Status: INCONSISTENT");
    }
    problems
}

fn relative(dir: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(dir).unwrap_or(path).to_path_buf()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
