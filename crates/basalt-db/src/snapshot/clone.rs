//! A table from a snapshot: `clone_snapshot` makes a new one, `restore_snapshot` rolls a
//! disabled table back. Either way each region of the snapshot becomes a new region
//! (fresh id, same key range) whose folder holds links to the snapshot's files, written
//! and committed before the catalog names it:
//!
//! | step | after a crash here |
//! |------|--------------------|
//! | region folders written (links, manifest last) | folders the catalog does not name: set aside at the next open |
//! | catalog commit (new regions; a restore also drops the old ones and takes the snapshot's descriptor) | the new table (or the restored one) |
//! | a restore's old region folders deleted (logged) | left behind, set aside at the next open |
//!
//! The new table shares the snapshot's files until its compactions rewrite them; the
//! snapshot, the source table and the clone can each be dropped without the others.

use super::manifest::{SnapshotManifest, SnapshotRegion};
use super::snapshot_dir;
use crate::admin::tables::{check_user_table, remove_folder};
use crate::catalog::{RegionEntry, TableEntry};
use crate::database::Database;
use crate::error::{from_storage, table_not_found, TABLE_EXISTS, TABLE_NOT_DISABLED};
use crate::meta;
use crate::meta::record::{RegionRecord, RegionState};
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_storage::region::shared_files::write_linked_region;
use basalt_storage::store::family_dir_name;
use basalt_storage::store::file::file_name;
use basalt_types::{TableDescriptor, TableName};
use bytes::Bytes;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `clone_snapshot 's', 'new'`.
pub fn clone(db: &Database, name: &str, table: &TableName) -> Result<()> {
    check_user_table(table)?;
    let _ddl = db.ddl.write();
    let snapshot = super::read(db, name)?;
    {
        let catalog = db.catalog.read();
        catalog.require_meta()?;
        if !catalog.namespaces.contains_key(table.namespace()) {
            return Err(crate::admin::namespaces::not_found(table.namespace()));
        }
        if catalog.tables.contains_key(table) {
            return Err(ApiError::new(
                ErrorKind::AlreadyExists,
                TABLE_EXISTS,
                table.to_string(),
            ));
        }
    }
    let mut descriptor = snapshot.descriptor.clone();
    descriptor.name = table.clone();
    let records = write_regions(db, &snapshot, &descriptor, None)?;
    let mut changes: Vec<_> = records.iter().map(meta::put_region).collect();
    changes.push(meta::put_table(&descriptor, true));
    db.meta.commit(changes)?;
    let regions = db.open_regions(&descriptor, records);
    db.catalog.write().tables.insert(
        table.clone(),
        TableEntry {
            descriptor: Arc::new(descriptor),
            enabled: true,
            regions,
            retired: Vec::new(),
        },
    );
    tracing::info!(snapshot = %name, %table, "table cloned from a snapshot");
    Ok(())
}

/// `restore_snapshot 's'`: the snapshot's table must exist and be disabled; it stays
/// disabled, holding the snapshot's rows and descriptor.
pub fn restore(db: &Database, name: &str) -> Result<()> {
    restore_to(db, name, None)
}

/// `restore_snapshot 's', {TIMESTAMP => ms}`: as [`restore`], then rolled forward to
/// `to_ms` with the edits the table's logs kept ([`super::pitr`]).
pub fn restore_to(db: &Database, name: &str, to_ms: Option<i64>) -> Result<()> {
    let _ddl = db.ddl.write();
    let snapshot = super::read(db, name)?;
    let table = snapshot.table.clone();
    check_user_table(&table)?;
    let entry = db
        .catalog
        .read()
        .tables
        .get(&table)
        .cloned()
        .ok_or_else(|| table_not_found(&table))?;
    if entry.enabled {
        // HBase's SnapshotManager refuses it with these words.
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            TABLE_NOT_DISABLED,
            format!("Table '{table}' must be disabled in order to perform a restore operation."),
        ));
    }
    let descriptor = snapshot.descriptor.clone();
    let fs = db.engine.context().fs.clone();
    let rolled = match to_ms {
        None => None,
        Some(to_ms) => {
            let regions: Vec<(String, u64)> = entry
                .regions
                .values()
                .map(|e| (e.record.encoded_name.clone(), e.record.region_id))
                .collect();
            let now = db.clock.now_ms();
            let lineage = super::lineage::read_table_on(fs.as_ref(), &db.root, &table)?;
            let current = Some((entry.descriptor.as_ref(), regions.as_slice()));
            let generations = super::pitr::check(&snapshot, current, &lineage, to_ms, now)?;
            let staging = super::pitr::staging_dir(&db.root, name, now);
            let (files, _) = super::pitr::roll_forward(
                fs.as_ref(),
                &db.root,
                &snapshot,
                &generations,
                to_ms,
                &staging,
            )?;
            Some((files, staging))
        }
    };
    let records = write_regions(db, &snapshot, &descriptor, rolled.as_ref().map(|r| &r.0))?;
    if let Some((_, staging)) = &rolled {
        super::pitr::remove_staging(fs.as_ref(), staging);
    }
    let mut changes: Vec<_> = entry
        .regions
        .values()
        .map(|e| meta::delete_region(&e.record))
        .collect();
    changes.extend(entry.retired.iter().map(meta::delete_region));
    changes.extend(records.iter().map(meta::put_region));
    changes.push(meta::put_table(&descriptor, false));
    db.meta.commit(changes)?;
    tracing::info!(snapshot = %name, %table, "table restored from a snapshot: deleting its \
        previous region folders");
    for old in entry
        .regions
        .values()
        .map(|e| &e.record)
        .chain(entry.retired.iter())
    {
        db.retire_in_log(old);
        remove_folder(&db.region_dir(&entry.descriptor, old))?;
    }
    let mut catalog = db.catalog.write();
    let t = catalog.table_mut(&table)?;
    t.descriptor = Arc::new(descriptor);
    t.regions = records
        .into_iter()
        .map(|r| (r.start_key.clone(), RegionEntry::new(r, None)))
        .collect();
    t.retired.clear();
    t.enabled = false;
    Ok(())
}

/// Writes a region folder for each of the snapshot's regions (links to its files), for
/// table `descriptor`; returns their records.
fn write_regions(
    db: &Database,
    snapshot: &SnapshotManifest,
    descriptor: &TableDescriptor,
    rolled: Option<&super::pitr::RolledFiles>,
) -> Result<Vec<RegionRecord>> {
    let id = db.next_region_id();
    let fs = db.engine.context().fs.clone();
    let dir = snapshot_dir(&db.root, &snapshot.name);
    let mut records = Vec::with_capacity(snapshot.regions.len());
    for region in &snapshot.regions {
        let record = RegionRecord::new(
            descriptor.name.clone(),
            id,
            region.start_key.clone(),
            region.end_key.clone(),
            RegionState::Open,
        );
        let mut families = sources(&dir, region, descriptor);
        if let Some(rolled) = rolled {
            super::pitr::add_sources(&mut families, rolled, &region.folder);
        }
        super::lineage::record_children(
            fs.as_ref(),
            &db.root,
            descriptor,
            super::lineage::Cause::FromSnapshot,
            &[&record],
            &[],
        )?;
        write_linked_region(fs.as_ref(), &db.region_dir(descriptor, &record), &families)
            .map_err(from_storage)?;
        records.push(record);
    }
    Ok(records)
}

/// The snapshot files each family of `region` gets (families `descriptor` still has),
/// oldest first; `dir` is the snapshot's folder.
pub fn sources(
    dir: &Path,
    region: &SnapshotRegion,
    descriptor: &TableDescriptor,
) -> Vec<(Bytes, Vec<PathBuf>)> {
    region
        .families
        .iter()
        .filter(|f| descriptor.family(&f.name).is_some())
        .map(|f| {
            let family_dir = dir.join(&region.folder).join(family_dir_name(&f.name));
            let files = f
                .files
                .iter()
                .map(|(file, _)| family_dir.join(file_name(*file)))
                .collect();
            (f.name.clone(), files)
        })
        .collect()
}
