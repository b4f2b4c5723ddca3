//! Regions of a table: listing them with their metrics, flushing and compacting them.

use crate::database::Database;
use crate::error::from_storage;
use crate::meta::SERVER_NAME;
use basalt_api::{RegionReport, Result};
use basalt_storage::Region;
use basalt_types::TableName;
use std::sync::Arc;

pub fn list(db: &Database, table: &TableName) -> Result<Vec<RegionReport>> {
    let catalog = db.catalog.read();
    let entry = catalog.table(table)?;
    Ok(entry
        .regions
        .values()
        .map(|e| {
            let metrics = e.region.as_ref().map(|r| r.metrics()).unwrap_or_default();
            RegionReport {
                table: table.clone(),
                region_name: e.record.region_name(),
                encoded_name: e.record.encoded_name.clone(),
                start_key: e.record.start_key.clone(),
                end_key: e.record.end_key.clone(),
                server: SERVER_NAME.to_string(),
                store_files: metrics.store_files,
                store_file_bytes: metrics.store_file_bytes,
                memstore_bytes: metrics.memstore_bytes,
                read_requests: metrics.read_requests,
                write_requests: metrics.write_requests,
            }
        })
        .collect())
}

/// The open regions of an enabled table.
pub fn open_regions(db: &Database, table: &TableName) -> Result<Vec<Arc<Region>>> {
    let catalog = db.catalog.read();
    let entry = catalog.table(table)?;
    if !entry.enabled {
        return Err(crate::error::table_disabled(table));
    }
    Ok(entry
        .regions
        .values()
        .filter_map(|e| e.region.clone())
        .collect())
}

pub fn flush(db: &Database, table: &TableName) -> Result<()> {
    for region in open_regions(db, table)? {
        region.flush().map_err(from_storage)?;
    }
    Ok(())
}

pub fn compact(db: &Database, table: &TableName, major: bool) -> Result<()> {
    for region in open_regions(db, table)? {
        region.compact(major).map_err(from_storage)?;
    }
    Ok(())
}
