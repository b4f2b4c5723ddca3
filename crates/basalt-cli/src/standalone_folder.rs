//! A standalone data folder, made ready to be served as a cluster in one process
//! (folder format 2): its catalog in the in-process coordinator's `coordinator/`, its
//! files where they always were (the folder is the store), and a log folder per
//! region-server incarnation under `wal/`.
//!
//! [`open`] brings any folder there:
//! - a new or empty folder gets an empty coordinator, then `VERSION` 2;
//! - a folder of format 1 (catalog in `hbase:meta`, written by an earlier Basalt or by the
//!   embedded [`basalt_db::Database`]) is imported in place: opened as before (its log
//!   replayed), closed (every memstore flushed, so everything is in files), its catalog
//!   written into the coordinator with every region OFFLINE for the master to assign, and
//!   only then `VERSION` 2. Nothing is moved or deleted; `hbase:meta`'s files stay.
//!   A crash during the import leaves the folder at format 1: the next start sets the
//!   half-written coordinator aside (`coordinator.aside-<ms>`) and imports again;
//! - a folder of format 2 opens its coordinator; one whose coordinator is missing is
//!   refused (its catalog is gone: nothing is guessed from the folders).
//!
//! `<root>/LOCK` is held while the folder is served, as it always was, so that an older
//! tool that does not know format 2 cannot open it beside the server.

use crate::CliError;
use basalt_coord::{Coordinator, LocalCoordinator};
use basalt_db::lock::DataDirLock;
use basalt_db::{Database, DbConfig};
use basalt_storage::engine::folder_version::{self, COORDINATED};
use basalt_storage::fs::LocalFs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How long the in-process leases live: nothing outside this process watches them, and
/// the coordinator drops them all at the next start, so only a stall longer than this
/// would cost anything (the region server would stop serving).
const LEASE_TTL: std::time::Duration = std::time::Duration::from_secs(120);

/// The master and region server serving `data_dir`: the master on `server`'s address and
/// port, the region server on the same address and a free port, both with its limits.
pub fn configs(
    data_dir: &Path,
    server: &basalt_server::ServerConfig,
    db: DbConfig,
) -> (
    basalt_master::MasterConfig,
    basalt_regionserver::RegionServerConfig,
) {
    let split_check = std::time::Duration::from_millis(db.split_check_interval_ms.max(1));
    let mut master = basalt_master::MasterConfig {
        store_root: data_dir.to_path_buf(),
        web_port: 0,
        lease_ttl: LEASE_TTL,
        split_check_period: split_check,
        set_aside_unknown_folders: true,
        ..basalt_master::MasterConfig::default()
    };
    master.server = server.clone();
    let mut region_server = basalt_regionserver::RegionServerConfig {
        store_root: data_dir.to_path_buf(),
        web_port: 0,
        db,
        lease_ttl: LEASE_TTL,
        // Every other log under wal/ is a previous incarnation of this process's region
        // server (the folder's lock proves it is gone): read them before serving.
        adopt_logs: true,
        ..basalt_regionserver::RegionServerConfig::default()
    };
    region_server.server = server.clone();
    region_server.server.port = 0;
    (master, region_server)
}

/// The coordinator's folder inside a data folder.
pub const COORDINATOR: &str = "coordinator";

fn fail(message: impl Into<String>) -> CliError {
    CliError::Cluster(message.into())
}

/// A data folder ready to serve: its coordinator, and the folder's lock, held until drop.
pub struct Prepared {
    pub coord: Arc<dyn Coordinator>,
    pub lock: DataDirLock,
}

/// The coordinator folder of `data_dir`.
pub fn coordinator_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(COORDINATOR)
}

/// Whether `data_dir` holds anything of an earlier format (a catalog, a log, data).
fn has_legacy_content(data_dir: &Path, version: Option<u32>) -> bool {
    version.is_some() || data_dir.join("data").exists() || data_dir.join("wal").exists()
}

/// Brings `data_dir` to format 2 (see the module's story) and opens its coordinator.
/// `db` is used to replay a format-1 folder's log while importing it.
pub fn open(data_dir: &Path, db: &DbConfig) -> Result<Prepared, CliError> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| fail(format!("cannot create {}: {e}", data_dir.display())))?;
    let version = folder_version::read(&LocalFs, data_dir)
        .map_err(|e| fail(format!("data folder {}: {e}", data_dir.display())))?;
    let dir = coordinator_dir(data_dir);
    if version == Some(COORDINATED) {
        if !dir.exists() {
            return Err(fail(format!(
                "data folder {} is of format {COORDINATED} but {} is missing: the catalog is \
                 gone (restore that folder from a backup; nothing was changed)",
                data_dir.display(),
                dir.display()
            )));
        }
        let lock = lock(data_dir)?;
        return Ok(Prepared {
            coord: open_coordinator(&dir)?,
            lock,
        });
    }
    if dir.exists() {
        set_aside_interrupted(&dir)?;
    }
    if has_legacy_content(data_dir, version) {
        import(data_dir, &dir, db)?;
    }
    let lock = lock(data_dir)?;
    let coord = open_coordinator(&dir)?;
    folder_version::write(&LocalFs, data_dir, COORDINATED)
        .map_err(|e| fail(format!("data folder {}: {e}", data_dir.display())))?;
    Ok(Prepared { coord, lock })
}

fn lock(data_dir: &Path) -> Result<DataDirLock, CliError> {
    DataDirLock::acquire(data_dir).map_err(|e| fail(e.to_string()))
}

fn open_coordinator(dir: &Path) -> Result<Arc<dyn Coordinator>, CliError> {
    let opened = LocalCoordinator::open(dir)
        .map_err(|e| fail(format!("coordinator {}: {e}", dir.display())))?;
    Ok(Arc::new(opened))
}

/// A coordinator beside a format-1 folder is an import cut short: kept, renamed aside.
fn set_aside_interrupted(dir: &Path) -> Result<(), CliError> {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let aside = dir.with_file_name(format!("{COORDINATOR}.aside-{millis}"));
    std::fs::rename(dir, &aside).map_err(|e| {
        fail(format!(
            "cannot set aside {} (an import cut short): {e}",
            dir.display()
        ))
    })?;
    tracing::warn!(from = %dir.display(), to = %aside.display(), "an earlier import of this folder was cut short: its coordinator is set aside and the import runs again");
    Ok(())
}

/// Imports a format-1 folder's catalog into a new coordinator at `dir`, in place.
fn import(data_dir: &Path, dir: &Path, db: &DbConfig) -> Result<(), CliError> {
    tracing::info!(data_dir = %data_dir.display(), "importing the folder's catalog (format 1: hbase:meta) into its coordinator; its log is replayed first");
    let database = Database::open(data_dir, db.clone())
        .map_err(|e| fail(format!("cannot open {}: {e}", data_dir.display())))?;
    let export = database.export_catalog();
    database.close().map_err(|e| {
        fail(format!(
            "cannot flush and close {}: {e}",
            data_dir.display()
        ))
    })?;
    drop(database);
    let export = export.map_err(|e| fail(format!("{}: {e}", data_dir.display())))?;
    let coord = open_coordinator(dir)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(crate::migrate::write_catalog(coord.as_ref(), &export))?;
    tracing::info!(
        tables = export.tables.len(),
        regions = export.regions.len(),
        "imported the catalog; hbase:meta's files are left in place"
    );
    Ok(())
}
