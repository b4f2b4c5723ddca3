//! `basalt hbck rebuild-meta`: a cluster's catalog rebuilt from its store alone, when
//! etcd's data was lost or restored from an old backup (HBase's offline meta repair).
//!
//! ```text
//! basalt hbck rebuild-meta --coordinator etcd://… --store URL [--force]
//!                          [--accept-inconsistent] [--dry-run]
//! ```
//! Reads the store ([`basalt_master::rebuild::scan`]), decides
//! ([`basalt_master::rebuild::plan`]), prints what it found, then writes namespaces,
//! tables, regions and assignments (every live region OFFLINE, naming the dead servers'
//! logs to replay) into the coordinator; the masters, started afterwards, assign them.
//! Refused while a master or region server runs; refused over an existing catalog unless
//! `--force`; nothing is written while part of the store cannot be served as it is
//! (holes, overlaps, unreadable folders) unless `--accept-inconsistent`. No file on the
//! store is changed.

use crate::cluster::{connect_coordinator, init_logging_for, open_store, ClusterArgs};
use crate::CliError;
use basalt_master::rebuild::plan::{self, Plan, Severity};
use basalt_master::rebuild::{scan, write};
use clap::Args;

#[derive(Debug, Args)]
pub struct RebuildMetaArgs {
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Replace a catalog the coordinator already holds (its keys the store does not back
    /// are removed, each printed). Never overrides a running master or region server.
    #[arg(long)]
    pub force: bool,
    /// Write the catalog even though some of the store cannot be served as it is (holes,
    /// overlaps, unreadable folders, listed as INCONSISTENT); those folders stay in place.
    #[arg(long)]
    pub accept_inconsistent: bool,
    /// Read the store and print what would be written; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

fn fail(message: impl Into<String>) -> CliError {
    CliError::Hbck(message.into())
}

/// Runs the rebuild; returns how many inconsistencies were found (0: written or clean).
pub fn run(args: &RebuildMetaArgs) -> Result<usize, CliError> {
    init_logging_for(&args.cluster)?;
    if crate::cluster_local::local_dir(&args.cluster.coordinator).is_some() {
        return Err(fail("rebuild-meta rebuilds an etcd cluster's catalog (etcd://…); a one-process cluster's catalog is in its folder"));
    }
    let (root, fs) = open_store(&args.cluster)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let coord = runtime.block_on(connect_coordinator(&args.cluster))?;
    // Checked before reading the store, and again just before writing.
    runtime
        .block_on(write::check(coord.as_ref(), args.force))
        .map_err(fail)?;
    println!(
        "basalt hbck rebuild-meta: reading the store {}",
        args.cluster.store
    );
    let found = scan::scan(fs.as_ref(), &root, &mut |t| {
        let readable = t.regions.iter().filter(|r| r.record.is_ok()).count();
        println!(
            "  read table {}: {} region folders ({readable} described)",
            t.name,
            t.regions.len()
        );
    })
    .map_err(fail)?;
    let plan = plan::plan(&found);
    print_plan(&plan);
    let inconsistent = plan.inconsistent();
    if args.dry_run {
        println!("Dry run: nothing was written.");
        return Ok(inconsistent);
    }
    if inconsistent > 0 && !args.accept_inconsistent {
        println!("{inconsistent} inconsistencies: nothing was written. Look at the folders named above; to write the catalog anyway (those folders stay in place, not served), run again with --accept-inconsistent.");
        println!("Status: INCONSISTENT");
        return Ok(inconsistent);
    }
    let existing = runtime
        .block_on(write::check(coord.as_ref(), args.force))
        .map_err(fail)?;
    let (ops, removed) = write::changes(&plan, &existing);
    for key in &removed {
        println!(
            "  removing catalog key the store does not back (--force): {}",
            String::from_utf8_lossy(key)
        );
    }
    runtime
        .block_on(write::write(coord.as_ref(), ops, &mut |done, total| {
            println!("  wrote {done} of {total} catalog changes");
        }))
        .map_err(fail)?;
    println!(
        "Catalog rebuilt: {} namespaces, {} tables, {} regions ({} live, OFFLINE until a master assigns them). Start the masters, then the region servers.",
        plan.namespaces.len(),
        plan.tables.len(),
        plan.regions.len(),
        plan.live().count()
    );
    println!(
        "Status: {}",
        if inconsistent == 0 {
            "OK"
        } else {
            "INCONSISTENT"
        }
    );
    Ok(inconsistent)
}

fn print_plan(plan: &Plan) {
    println!("Namespaces: {}", plan.namespaces.len());
    for ns in &plan.namespaces {
        println!("  {}", ns.name);
    }
    println!("Tables: {} (each comes back ENABLED)", plan.tables.len());
    for table in &plan.tables {
        let (mut live, mut retired) = (0, 0);
        for r in plan.regions.iter().filter(|r| r.table == table.name) {
            if r.is_serving() {
                live += 1;
            } else {
                retired += 1;
            }
        }
        println!(
            "  {}: {live} live regions, {retired} retired (split or merged parents)",
            table.name
        );
    }
    println!(
        "Logs to replay: {} (every live region reads them before it serves)",
        plan.recover_from.len()
    );
    for server in &plan.recover_from {
        println!("  wal/{server}/");
    }
    let doubtful: Vec<_> = plan.findings.iter().collect();
    println!("Findings: {}", doubtful.len());
    for f in doubtful {
        let label = match f.severity {
            Severity::Note => "NOTE",
            Severity::Inconsistent => "INCONSISTENT",
        };
        println!("  {label} {}", f.what);
    }
}
