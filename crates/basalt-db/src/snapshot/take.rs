//! Taking a snapshot, under the catalog lock (no split, merge, alter or drop meanwhile):
//!
//! | step | per region of an enabled table |
//! |------|--------------------------------|
//! | flush | unless `SKIP_FLUSH`: the memstore goes to a file |
//! | compact | only a region still holding split or merge references: they become its own files |
//! | link | with the region's compactions held off, each file linked as `.tmp/<name>/<region>/<family>/<id>.hfile` |
//! | commit | the manifest written (synced) in `.tmp/<name>/`, then the folder renamed to `<name>/` |
//!
//! Each region is captured at one point (its file list is taken whole), as HBase's flush
//! snapshot does. A disabled table's regions are closed: their committed manifests are
//! read and linked as they are. The time it takes and the bytes it writes do not depend on
//! the table's size beyond the flush: links and one manifest.

use super::manifest::{SnapshotFamily, SnapshotManifest, SnapshotRegion};
use super::{check_name, snapshot_dir, tmp_dir, MANIFEST};
use crate::admin::tables::check_user_table;
use crate::catalog::RegionEntry;
use crate::database::Database;
use crate::error::{from_storage, io};
use crate::failpoint;
use basalt_api::snapshot::{SNAPSHOT_CREATION, SNAPSHOT_EXISTS};
use basalt_api::{ApiError, ErrorKind, Result, SnapshotOptions};
use basalt_storage::fs::FileSystem;
use basalt_storage::region::manifest::Manifest;
use basalt_storage::region::shared_files::{HeldFamily, HeldFile};
use basalt_storage::store::family_dir_name;
use basalt_storage::store::file::file_name;
use basalt_types::{TableDescriptor, TableName};
use std::path::{Path, PathBuf};

/// `snapshot 't', 's'`.
pub fn take(db: &Database, table: &TableName, name: &str, options: &SnapshotOptions) -> Result<()> {
    check_name(name)?;
    check_user_table(table)?;
    let _ddl = db.ddl.write();
    let fs = db.engine.context().fs.clone();
    let entry = db.catalog.read().table(table)?.clone();
    let tmp = begin_on(fs.as_ref(), &db.root, name, db.clock.now_ms())?;
    let mut regions = Vec::with_capacity(entry.regions.len());
    for region in entry.regions.values() {
        let folder = region.record.encoded_name.clone();
        let families = if entry.enabled {
            held_open(region, options, |held| {
                link_all(fs.as_ref(), &tmp.join(&folder), held)
            })?
        } else {
            let dir = db.region_dir(&entry.descriptor, &region.record);
            let held = held_closed(fs.as_ref(), &dir, &entry.descriptor)?;
            link_all(fs.as_ref(), &tmp.join(&folder), &held)?
        };
        regions.push(SnapshotRegion {
            folder,
            start_key: region.record.start_key.clone(),
            end_key: region.record.end_key.clone(),
            families,
        });
    }
    let manifest = SnapshotManifest {
        name: name.to_string(),
        table: table.clone(),
        creation_ms: db.clock.now_ms(),
        ttl_secs: options.ttl_secs.filter(|t| *t > 0),
        descriptor: entry.descriptor.as_ref().clone(),
        regions,
    };
    commit_on(fs.as_ref(), &db.root, &tmp, &manifest)
}

/// Starts snapshot `name` under the data folder `root`: refuses a taken name, sets aside
/// (in the quarantine, never deleted) what an interrupted attempt left, and returns the
/// empty folder to build it in.
pub fn begin_on(fs: &dyn FileSystem, root: &Path, name: &str, now_ms: i64) -> Result<PathBuf> {
    check_name(name)?;
    let final_dir = snapshot_dir(root, name);
    let exists = |path: &Path| {
        fs.exists(path)
            .map_err(|e| io(format!("cannot check {}: {e}", path.display())))
    };
    if exists(&final_dir.join(MANIFEST))? {
        return Err(ApiError::new(
            ErrorKind::AlreadyExists,
            SNAPSHOT_EXISTS,
            format!("Snapshot '{name}' already stored on the filesystem."),
        ));
    }
    let tmp = tmp_dir(root, name);
    for (dir, reason) in [
        (
            &tmp,
            "an earlier attempt to take this snapshot did not finish",
        ),
        (&final_dir, "a snapshot folder without its manifest"),
    ] {
        if exists(dir)? {
            basalt_storage::quarantine::move_in(fs, root, dir, reason, now_ms)
                .map_err(from_storage)?;
        }
    }
    fs.create_dir_all(&tmp)
        .map_err(|e| io(format!("cannot create {}: {e}", tmp.display())))?;
    Ok(tmp)
}

/// Commits a snapshot built in `tmp`: its manifest written and synced there, then the
/// folder renamed to its name in one step.
pub fn commit_on(
    fs: &dyn FileSystem,
    root: &Path,
    tmp: &Path,
    manifest: &SnapshotManifest,
) -> Result<()> {
    failpoint::hit("snapshot.before_manifest");
    let file = tmp.join(MANIFEST);
    basalt_storage::fs::write_atomic(fs, &file, &manifest.encode())
        .map_err(|e| io(format!("cannot write {}: {e}", file.display())))?;
    failpoint::hit("snapshot.before_commit");
    let final_dir = snapshot_dir(root, &manifest.name);
    fs.rename(tmp, &final_dir).map_err(|e| {
        io(format!(
            "cannot rename {} to {}: {e}",
            tmp.display(),
            final_dir.display()
        ))
    })?;
    let parent = super::snapshots_dir(root);
    fs.sync_dir(&parent)
        .map_err(|e| io(format!("cannot sync {}: {e}", parent.display())))?;
    tracing::info!(snapshot = %manifest.name, table = %manifest.table,
        regions = manifest.regions.len(), bytes = manifest.size_bytes(), "snapshot taken");
    Ok(())
}

/// An open region's files after the flush, held while `link` runs.
fn held_open(
    entry: &RegionEntry,
    options: &SnapshotOptions,
    link: impl FnOnce(&[HeldFamily]) -> Result<Vec<SnapshotFamily>>,
) -> Result<Vec<SnapshotFamily>> {
    let region = match (&entry.region, &entry.failure) {
        (Some(region), _) => region,
        (None, Some(failure)) => return Err(creation_failed(&failure.error().to_string())),
        (None, None) => return Err(creation_failed("a region of the table is not open")),
    };
    if !options.skip_flush {
        region.flush().map_err(from_storage)?;
    }
    if region.has_references() {
        region.compact(false).map_err(from_storage)?;
    }
    region
        .with_files_held(|held| Ok(link(held)))
        .map_err(from_storage)?
}

/// A closed region's files, as its committed manifest names them.
pub fn held_closed(
    fs: &dyn FileSystem,
    dir: &Path,
    descriptor: &TableDescriptor,
) -> Result<Vec<HeldFamily>> {
    let manifest = Manifest::load(fs, dir).map_err(from_storage)?;
    if manifest.has_references() {
        return Err(creation_failed(&format!(
            "region {} still holds references to its parent's files; enable the table and \
             compact it first",
            dir.display()
        )));
    }
    Ok(descriptor
        .families
        .iter()
        .map(|family| {
            let name = bytes::Bytes::copy_from_slice(family.name.as_ref());
            let family_dir = dir.join(family_dir_name(&name));
            let ids = manifest
                .families
                .get(&name)
                .map(|f| f.own_file_ids())
                .unwrap_or_default();
            HeldFamily {
                family: name,
                files: ids
                    .into_iter()
                    .map(|id| {
                        let path = family_dir.join(file_name(id));
                        let size_bytes = fs.open(&path).map_or(0, |f| f.len());
                        HeldFile {
                            id,
                            path,
                            size_bytes,
                        }
                    })
                    .collect(),
            }
        })
        .collect())
}

/// Links every held file under `dir` (`<family>/<id>.hfile`).
pub fn link_all(
    fs: &dyn FileSystem,
    dir: &Path,
    held: &[HeldFamily],
) -> Result<Vec<SnapshotFamily>> {
    let mut families = Vec::with_capacity(held.len());
    for family in held {
        let family_dir = dir.join(family_dir_name(&family.family));
        fs.create_dir_all(&family_dir)
            .map_err(|e| io(format!("cannot create {}: {e}", family_dir.display())))?;
        for file in &family.files {
            let link = family_dir.join(file_name(file.id));
            fs.hard_link(&file.path, &link).map_err(|e| {
                creation_failed(&format!(
                    "cannot link {} as {}: {e}",
                    file.path.display(),
                    link.display()
                ))
            })?;
        }
        fs.sync_dir(&family_dir)
            .map_err(|e| io(format!("cannot sync {}: {e}", family_dir.display())))?;
        families.push(SnapshotFamily {
            name: family.family.clone(),
            files: family.files.iter().map(|f| (f.id, f.size_bytes)).collect(),
        });
    }
    Ok(families)
}

fn creation_failed(why: &str) -> ApiError {
    ApiError::new(
        ErrorKind::InvalidRequest,
        SNAPSHOT_CREATION,
        why.to_string(),
    )
}
