//! The catalog janitor: once no region refers to a split or merged parent's files, the
//! parent's folder and record go.

use crate::database::Database;
use crate::error::from_storage;
use crate::meta;
use crate::meta::record::RegionState;
use basalt_api::Result;
use basalt_storage::fs::LocalFs;
use std::path::PathBuf;

/// Cleans every parent nothing refers to; returns how many.
pub fn run(db: &Database) -> Result<usize> {
    let _ddl = db.ddl.write();
    let tables: Vec<_> = db.catalog.read().tables.values().cloned().collect();
    let mut cleaned = 0;
    for table in tables {
        for parent in &table.retired {
            let children: Vec<String> = match &parent.state {
                RegionState::Split { daughters } => vec![daughters.0.clone(), daughters.1.clone()],
                RegionState::Merged { into } => vec![into.clone()],
                RegionState::Open | RegionState::Splitting => continue,
            };
            // A child that failed to open may hold references its damaged manifest no
            // longer shows: its parent stays until the child opens.
            let failed_child = table
                .regions
                .values()
                .any(|e| e.failure.is_some() && children.contains(&e.record.encoded_name));
            if failed_child {
                tracing::warn!(region = %parent.region_name(), "janitor keeps a parent while a child region is FAILED_OPEN");
                continue;
            }
            let table_dir = db.table_dir(&table.descriptor.name);
            let child_dirs: Vec<PathBuf> = children.iter().map(|c| table_dir.join(c)).collect();
            let parent_dir = db.region_dir(&table.descriptor, parent);
            if basalt_storage::region::janitor::references_into(&LocalFs, &child_dirs, &parent_dir)
                .map_err(from_storage)?
            {
                continue;
            }
            db.meta.commit(vec![meta::delete_region(parent)])?;
            crate::admin::tables::remove_folder(&parent_dir)?;
            if let Ok(entry) = db.catalog.write().table_mut(&table.descriptor.name) {
                entry
                    .retired
                    .retain(|r| r.encoded_name != parent.encoded_name);
            }
            cleaned += 1;
            tracing::info!(region = %parent.region_name(), "janitor removed a parent region");
        }
    }
    Ok(cleaned)
}
