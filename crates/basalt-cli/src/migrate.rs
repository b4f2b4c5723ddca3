//! `basalt migrate`: a standalone data folder moves into a cluster, so a user who started
//! on a laptop grows onto a cluster without exporting.
//!
//! The folder is opened as a start does (its log replayed) and closed (every memstore
//! flushed), so that everything is in files; every region folder the catalog names is
//! copied to the cluster's store under the same path; then the catalog goes into the
//! coordinator in the cluster's own encoding, each region OFFLINE, for the master to
//! assign when it starts. The standalone folder is left exactly as it was (nothing is
//! deleted). No master may be running (it would not see the new tables), and no table may
//! already exist in the cluster.

use crate::cluster::{connect_coordinator, init_logging_for, open_store, ClusterArgs};
use crate::CliError;
use basalt_coord::{layout, Compare, Op, Txn};
use basalt_master::catalog::{ops, Assignment};
use basalt_storage::fs::FileSystem;
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The standalone data folder (no server may have it open).
    #[arg(long, value_name = "DIR")]
    pub data_dir: PathBuf,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

fn fail(message: impl Into<String>) -> CliError {
    CliError::Cluster(message.into())
}

/// Copies the files under `dir` (a region folder of `data_dir`) to the same relative path
/// under `root` on `fs`; returns the files and bytes copied.
fn copy_folder(
    data_dir: &Path,
    dir: &Path,
    fs: &dyn FileSystem,
    root: &Path,
) -> Result<(u64, u64), CliError> {
    let (mut files, mut bytes) = (0, 0);
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(fail(format!("cannot read {}: {e}", dir.display()))),
    };
    for entry in entries {
        let path = entry
            .map_err(|e| fail(format!("cannot read {}: {e}", dir.display())))?
            .path();
        if path.is_dir() {
            let (f, b) = copy_folder(data_dir, &path, fs, root)?;
            files += f;
            bytes += b;
            continue;
        }
        let relative = path
            .strip_prefix(data_dir)
            .map_err(|e| fail(e.to_string()))?;
        let target = root.join(relative);
        let content = std::fs::read(&path)
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?;
        if let Some(parent) = target.parent() {
            fs.create_dir_all(parent)
                .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
        }
        let mut out = fs
            .create(&target)
            .map_err(|e| fail(format!("cannot create {}: {e}", target.display())))?;
        out.write_all(&content)
            .and_then(|()| out.sync_data())
            .map_err(|e| fail(format!("cannot write {}: {e}", target.display())))?;
        files += 1;
        bytes += content.len() as u64;
    }
    Ok((files, bytes))
}

pub fn run(args: &MigrateArgs) -> Result<(), CliError> {
    init_logging_for(&args.cluster)?;
    crate::cluster_local::create_store_folder(&args.cluster)?;
    let (root, fs) = open_store(&args.cluster)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    // A local coordinator's folder is locked while its one-process cluster runs, so
    // opening it also proves no master is running.
    let coord = match crate::cluster_local::local_dir(&args.cluster.coordinator) {
        Some(dir) => runtime.block_on(crate::cluster_local::open(dir?, &args.cluster))?,
        None => runtime.block_on(connect_coordinator(&args.cluster))?,
    };
    let masters = runtime
        .block_on(coord.list(format!("election/{}/", layout::MASTER_ELECTION).as_bytes()))
        .map_err(|e| fail(e.to_string()))?;
    if !masters.kvs.is_empty() {
        return Err(fail("a master is running: stop every master of the cluster first (it would not see the migrated tables), then start them again after the migration"));
    }
    let export = match basalt_storage::engine::folder_version::read(
        &basalt_storage::fs::LocalFs,
        &args.data_dir,
    )
    .map_err(|e| fail(format!("{}: {e}", args.data_dir.display())))?
    {
        Some(basalt_storage::engine::folder_version::COORDINATED) => {
            export_coordinated(&args.data_dir, &runtime)?
        }
        _ => export_meta(&args.data_dir)?,
    };
    for (descriptor, _) in &export.tables {
        let existing = runtime
            .block_on(coord.get(&layout::table(&descriptor.name.to_string())))
            .map_err(|e| fail(e.to_string()))?;
        if existing.is_some() {
            return Err(fail(format!(
                "table {} already exists in the cluster: nothing was migrated",
                descriptor.name
            )));
        }
    }
    basalt_storage::engine::folder_version::check_or_create(fs.as_ref(), &root)
        .map_err(|e| fail(format!("the store is not usable: {e}")))?;
    let (mut files, mut bytes) = (0, 0);
    for (i, (record, dir)) in export.regions.iter().enumerate() {
        let (f, b) = copy_folder(&args.data_dir, dir, fs.as_ref(), &root)?;
        files += f;
        bytes += b;
        tracing::info!(region = %record.region_name(), files = f, bytes = b, done = i + 1, of = export.regions.len(), "copied a region");
    }
    runtime.block_on(write_catalog(coord.as_ref(), &export))?;
    let fs: Arc<dyn FileSystem> = fs;
    drop(fs);
    println!(
        "migrated {} tables ({} regions, {files} files, {bytes} bytes) from {}; the folder is unchanged. Start the masters: they assign the regions.",
        export.tables.len(),
        export.regions.len(),
        args.data_dir.display()
    );
    Ok(())
}

/// The catalog of a folder of format 1 (in `hbase:meta`), its log replayed and flushed.
fn export_meta(data_dir: &Path) -> Result<basalt_db::host::CatalogExport, CliError> {
    tracing::info!(data_dir = %data_dir.display(), "opening the standalone folder (its log is replayed)");
    let db = basalt_db::Database::open(data_dir, basalt_db::DbConfig::default())
        .map_err(|e| fail(format!("cannot open {}: {e}", data_dir.display())))?;
    let export = db.export_catalog().map_err(|e| fail(e.to_string()));
    db.close().map_err(|e| {
        fail(format!(
            "cannot flush and close {}: {e}",
            data_dir.display()
        ))
    })?;
    drop(db);
    export
}

/// The catalog of a folder `basalt standalone` serves (format 2, in `coordinator/`): the
/// folder is served once in this process and stopped, so that its logs are replayed and
/// everything is in files, then its coordinator is read.
fn export_coordinated(
    data_dir: &Path,
    runtime: &tokio::runtime::Runtime,
) -> Result<basalt_db::host::CatalogExport, CliError> {
    tracing::info!(data_dir = %data_dir.display(), "serving the standalone folder once (its logs are replayed and flushed)");
    let config = basalt_db::DbConfig {
        split_check_interval_ms: crate::hbck::SPLIT_CHECK_INTERVAL_MS,
        ..basalt_db::DbConfig::default()
    };
    crate::in_process::InProcess::start(data_dir, config)?.close()?;
    let dir = crate::standalone_folder::coordinator_dir(data_dir);
    let coord = basalt_coord::LocalCoordinator::open(&dir)
        .map_err(|e| fail(format!("coordinator {}: {e}", dir.display())))?;
    let catalog = runtime
        .block_on(basalt_master::catalog::Catalog::load(&coord))
        .map_err(|e| fail(format!("the catalog in {}: {e}", dir.display())))?;
    let mut export = basalt_db::host::CatalogExport {
        namespaces: catalog.namespaces.values().cloned().collect(),
        ..Default::default()
    };
    for (name, table) in &catalog.tables {
        if !name.is_system() {
            export
                .tables
                .push((table.descriptor.clone(), table.enabled));
        }
    }
    for record in catalog.regions.values() {
        if record.table.is_system() {
            continue;
        }
        let dir = data_dir
            .join("data")
            .join(record.table.namespace())
            .join(record.table.qualifier())
            .join(&record.encoded_name);
        export.regions.push((record.clone(), dir));
    }
    Ok(export)
}

/// Writes `export` (a standalone folder's catalog) into `coord` in the cluster's own
/// encoding, each serving region OFFLINE for the master to assign; refused, changing
/// nothing, when one of its tables exists there already.
pub(crate) async fn write_catalog(
    coord: &dyn basalt_coord::Coordinator,
    export: &basalt_db::host::CatalogExport,
) -> Result<(), CliError> {
    let mut changes: Vec<Op> = Vec::new();
    let mut compares = Vec::new();
    let existing_ns = coord
        .list(layout::NAMESPACES.as_bytes())
        .await
        .map_err(|e| fail(e.to_string()))?;
    for ns in &export.namespaces {
        let key = layout::namespace(&ns.name);
        if !existing_ns.kvs.iter().any(|kv| kv.key == key) {
            changes.push(ops::put_namespace(ns));
        }
    }
    for (descriptor, enabled) in &export.tables {
        compares.push(Compare::absent(layout::table(&descriptor.name.to_string())));
        changes.push(ops::put_table(descriptor));
        changes.push(ops::table_state(&descriptor.name, *enabled));
    }
    for (record, _) in &export.regions {
        changes.push(ops::put_region(record));
        if record.is_serving() {
            changes.push(ops::put_assignment(
                &record.encoded_name,
                &Assignment::default(),
            ));
        }
    }
    for chunk in changes.chunks(100) {
        let txn = Txn {
            compares: compares.clone(),
            success: chunk.to_vec(),
            failure: vec![],
        };
        compares.clear();
        let done = coord.txn(txn).await.map_err(|e| fail(e.to_string()))?;
        if !done.succeeded {
            return Err(fail("a table appeared in the cluster meanwhile: the migration stopped before changing its catalog"));
        }
    }
    Ok(())
}
