//! Table lifecycle: create (with pre-splits), enable, disable, delete, truncate, and the
//! questions about tables (exists, describe, list).

use crate::catalog::TableEntry;
use crate::database::Database;
use crate::error::{table_not_found, TABLE_EXISTS, TABLE_NOT_DISABLED, TABLE_NOT_ENABLED};
use crate::meta::record::{RegionRecord, RegionState};
use crate::{failpoint, meta};
use basalt_api::{ApiError, ErrorKind, PreSplit, Result};
use basalt_types::split::check_split_keys;
use basalt_types::{TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::Arc;

/// The region records of a new table cut at `keys` (sorted, unique).
fn records_for(db: &Database, table: &TableName, keys: &[Bytes]) -> Vec<RegionRecord> {
    let id = db.next_region_id();
    let mut bounds = vec![Bytes::new()];
    bounds.extend(keys.iter().cloned());
    bounds.push(Bytes::new());
    bounds
        .windows(2)
        .map(|w| {
            RegionRecord::new(
                table.clone(),
                id,
                w[0].clone(),
                w[1].clone(),
                RegionState::Open,
            )
        })
        .collect()
}

fn split_keys(split: &PreSplit) -> Result<Vec<Bytes>> {
    Ok(match split {
        PreSplit::None => Vec::new(),
        PreSplit::Keys(keys) => check_split_keys(keys.clone())?,
        PreSplit::Count { regions, algorithm } => algorithm.split_points(*regions)?,
    })
}

pub fn create(db: &Database, descriptor: &TableDescriptor, split: &PreSplit) -> Result<()> {
    descriptor.validate()?;
    if descriptor.name.is_system() {
        return Err(ApiError::invalid(format!(
            "Cannot create table {} in the system namespace",
            descriptor.name
        )));
    }
    let keys = split_keys(split)?;
    let _ddl = db.ddl.write();
    {
        let catalog = db.catalog.read();
        catalog.require_meta()?;
        if !catalog.namespaces.contains_key(descriptor.name.namespace()) {
            return Err(super::namespaces::not_found(descriptor.name.namespace()));
        }
        if catalog.tables.contains_key(&descriptor.name) {
            return Err(ApiError::new(
                ErrorKind::AlreadyExists,
                TABLE_EXISTS,
                descriptor.name.to_string(),
            ));
        }
    }
    let records = records_for(db, &descriptor.name, &keys);
    record_created(db, descriptor, &records)?;
    let mut changes: Vec<_> = records.iter().map(meta::put_region).collect();
    changes.push(meta::put_table(descriptor, true));
    db.meta.commit(changes)?;
    failpoint::hit("create.after_meta");
    let regions = db.open_regions(descriptor, records);
    let entry = TableEntry {
        descriptor: Arc::new(descriptor.clone()),
        enabled: true,
        regions,
        retired: Vec::new(),
    };
    db.catalog
        .write()
        .tables
        .insert(descriptor.name.clone(), entry);
    Ok(())
}

/// Whether the table exists; unknowable (an error naming meta's damage) while meta is
/// FAILED_OPEN.
pub fn exists(db: &Database, name: &TableName) -> Result<bool> {
    let catalog = db.catalog.read();
    catalog.require_meta()?;
    Ok(catalog.tables.contains_key(name))
}

pub fn describe(db: &Database, name: &TableName) -> Result<TableDescriptor> {
    Ok(db.catalog.read().table(name)?.descriptor.as_ref().clone())
}

pub fn list(db: &Database, pattern: Option<&str>) -> Result<Vec<TableName>> {
    let matcher = match pattern {
        Some(p) => Some(
            regex::Regex::new(&format!("^(?:{p})$"))
                .map_err(|e| ApiError::invalid(format!("bad table pattern '{p}': {e}")))?,
        ),
        None => None,
    };
    let catalog = db.catalog.read();
    catalog.require_meta()?;
    Ok(catalog
        .tables
        .keys()
        .filter(|t| !t.is_system())
        .filter(|t| matcher.as_ref().is_none_or(|m| m.is_match(&t.to_string())))
        .cloned()
        .collect())
}

pub fn is_enabled(db: &Database, name: &TableName) -> Result<bool> {
    Ok(db.catalog.read().table(name)?.enabled)
}

pub fn enable(db: &Database, name: &TableName) -> Result<()> {
    check_user_table(name)?;
    let _ddl = db.ddl.write();
    let entry = db.catalog.read().table(name)?.clone();
    if entry.enabled {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            TABLE_NOT_DISABLED,
            name.to_string(),
        ));
    }
    db.meta
        .commit(vec![meta::put_table(&entry.descriptor, true)])?;
    let records = entry.regions.into_values().map(|e| e.record).collect();
    let regions = db.open_regions(&entry.descriptor, records);
    let mut catalog = db.catalog.write();
    let table = catalog.table_mut(name)?;
    table.regions = regions;
    table.enabled = true;
    Ok(())
}

pub fn disable(db: &Database, name: &TableName) -> Result<()> {
    check_user_table(name)?;
    let _ddl = db.ddl.write();
    let entry = db.catalog.read().table(name)?.clone();
    if !entry.enabled {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            TABLE_NOT_ENABLED,
            name.to_string(),
        ));
    }
    db.meta
        .commit(vec![meta::put_table(&entry.descriptor, false)])?;
    {
        let mut catalog = db.catalog.write();
        let table = catalog.table_mut(name)?;
        table.enabled = false;
        for region in table.regions.values_mut() {
            region.region = None;
            region.failure = None;
        }
    }
    for region in entry.regions.values() {
        db.close_region(&region.record)?;
    }
    Ok(())
}

/// Refuses schema and lifecycle changes to system tables.
pub(crate) fn check_user_table(name: &TableName) -> Result<()> {
    if name.is_system() {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            crate::error::DO_NOT_RETRY,
            format!("{name} is a system table and cannot be changed"),
        ));
    }
    Ok(())
}

fn require_disabled(entry: &TableEntry, name: &TableName) -> Result<()> {
    if entry.enabled {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            TABLE_NOT_DISABLED,
            name.to_string(),
        ));
    }
    Ok(())
}

pub fn delete(db: &Database, name: &TableName) -> Result<()> {
    check_user_table(name)?;
    let _ddl = db.ddl.write();
    let entry = db
        .catalog
        .read()
        .tables
        .get(name)
        .cloned()
        .ok_or_else(|| table_not_found(name))?;
    require_disabled(&entry, name)?;
    let mut changes = vec![meta::delete_table(name)];
    changes.extend(
        entry
            .regions
            .values()
            .map(|e| meta::delete_region(&e.record)),
    );
    changes.extend(entry.retired.iter().map(meta::delete_region));
    db.meta.commit(changes)?;
    failpoint::hit("delete.after_meta");
    db.catalog.write().tables.remove(name);
    for record in entry
        .regions
        .values()
        .map(|e| &e.record)
        .chain(entry.retired.iter())
    {
        db.retire_in_log(record);
    }
    crate::acl::drop_table(db, name)?;
    remove_folder(&db.table_dir(name))
}

pub fn truncate(db: &Database, name: &TableName, preserve_splits: bool) -> Result<()> {
    check_user_table(name)?;
    let _ddl = db.ddl.write();
    let entry = db.catalog.read().table(name)?.clone();
    require_disabled(&entry, name)?;
    let keys: Vec<Bytes> = if preserve_splits {
        entry.regions.keys().skip(1).cloned().collect()
    } else {
        Vec::new()
    };
    let records = records_for(db, name, &keys);
    record_created(db, &entry.descriptor, &records)?;
    let mut changes: Vec<_> = entry
        .regions
        .values()
        .map(|e| meta::delete_region(&e.record))
        .collect();
    changes.extend(entry.retired.iter().map(meta::delete_region));
    changes.extend(records.iter().map(meta::put_region));
    changes.push(meta::put_table(&entry.descriptor, true));
    db.meta.commit(changes)?;
    for old in entry
        .regions
        .values()
        .map(|e| &e.record)
        .chain(entry.retired.iter())
    {
        db.retire_in_log(old);
        remove_folder(&db.region_dir(&entry.descriptor, old))?;
    }
    let regions = db.open_regions(&entry.descriptor, records);
    let mut catalog = db.catalog.write();
    let table = catalog.table_mut(name)?;
    table.regions = regions;
    table.retired.clear();
    table.enabled = true;
    Ok(())
}

/// Deletes a folder a procedure has just taken out of the catalog (a dropped table, a
/// truncated region, a deleted family, a parent the janitor cleans): explicit, logged.
/// Records new empty regions' lineage (no parents: a history of their own) when the table
/// keeps its logs, before the catalog names them.
fn record_created(
    db: &Database,
    descriptor: &TableDescriptor,
    records: &[RegionRecord],
) -> Result<()> {
    let children: Vec<&RegionRecord> = records.iter().collect();
    crate::snapshot::lineage::record_children(
        db.engine.context().fs.as_ref(),
        &db.root,
        descriptor,
        crate::snapshot::lineage::Cause::Created,
        &children,
        &[],
    )
}

pub(crate) fn remove_folder(dir: &std::path::Path) -> Result<()> {
    tracing::info!(folder = %dir.display(), "deleting a folder the catalog no longer names");
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(crate::error::io(format!(
            "cannot remove {}: {e}",
            dir.display()
        ))),
        _ => Ok(()),
    }
}
