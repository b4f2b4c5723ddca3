//! Alter: table options and families changed while the table stays online. Each region is
//! closed (flushing it) and reopened with the new descriptor in turn; writers that meet a
//! region in between are re-routed and retried.

use crate::database::Database;
use crate::meta;
use basalt_api::{ApiError, Result};
use basalt_types::{FamilyDescriptor, TableDescriptor, TableName};
use std::sync::Arc;

pub fn modify_table(db: &Database, descriptor: &TableDescriptor) -> Result<()> {
    super::tables::check_user_table(&descriptor.name)?;
    descriptor.validate()?;
    let _ddl = db.ddl.write();
    let entry = db.catalog.read().table(&descriptor.name)?.clone();
    let dropped: Vec<_> = entry
        .descriptor
        .families
        .iter()
        .filter(|f| descriptor.family(&f.name).is_none())
        .map(|f| f.name.clone())
        .collect();
    db.meta
        .commit(vec![meta::put_table(descriptor, entry.enabled)])?;
    meta::folder_info::ensure_table_info(&db.table_dir(&descriptor.name), descriptor);
    let descriptor = Arc::new(descriptor.clone());
    db.catalog.write().table_mut(&descriptor.name)?.descriptor = descriptor.clone();
    for region in entry.regions.values() {
        if entry.enabled {
            db.close_region(&region.record)?;
        }
        for family in &dropped {
            let dir = db
                .region_dir(&descriptor, &region.record)
                .join(basalt_storage::store::family_dir_name(family));
            super::tables::remove_folder(&dir)?;
        }
        if entry.enabled {
            // A region that fails to reopen is FAILED_OPEN; the others carry on.
            let reopened = db.try_open_region(&region.record, &descriptor);
            let mut catalog = db.catalog.write();
            let table = catalog.table_mut(&descriptor.name)?;
            if let Some(slot) = table.regions.get_mut(&region.record.start_key) {
                *slot = crate::catalog::RegionEntry::opened(region.record.clone(), reopened);
            }
        }
    }
    Ok(())
}

fn with_families(
    db: &Database,
    table: &TableName,
    change: impl FnOnce(&mut Vec<FamilyDescriptor>) -> Result<()>,
) -> Result<()> {
    let mut descriptor = db.catalog.read().table(table)?.descriptor.as_ref().clone();
    change(&mut descriptor.families)?;
    modify_table(db, &descriptor)
}

fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

pub fn add_family(db: &Database, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
    with_families(db, table, |families| {
        if families.iter().any(|f| f.name == family.name) {
            return Err(ApiError::invalid(format!(
                "Family '{}' already exists in table '{table}'",
                shown(&family.name)
            )));
        }
        families.push(family.clone());
        Ok(())
    })
}

pub fn modify_family(db: &Database, table: &TableName, family: &FamilyDescriptor) -> Result<()> {
    with_families(db, table, |families| {
        let slot = families
            .iter_mut()
            .find(|f| f.name == family.name)
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "Family '{}' does not exist in table '{table}'",
                    shown(&family.name)
                ))
            })?;
        *slot = family.clone();
        Ok(())
    })
}

pub fn delete_family(db: &Database, table: &TableName, family: &[u8]) -> Result<()> {
    with_families(db, table, |families| {
        if !families.iter().any(|f| f.name.as_ref() == family) {
            return Err(ApiError::invalid(format!(
                "Family '{}' does not exist in table '{table}'",
                shown(family)
            )));
        }
        if families.len() == 1 {
            return Err(ApiError::invalid(format!(
                "Family '{}' is the only column family in the table, so it cannot be deleted",
                shown(family)
            )));
        }
        families.retain(|f| f.name.as_ref() != family);
        Ok(())
    })
}
