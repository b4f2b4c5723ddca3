//! Regions of a table: listing them with their state and metrics, flushing and compacting
//! them.

use crate::database::Database;
use crate::error::from_storage;
use basalt_api::{RegionLocation, RegionReport, RegionState, Result};
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
            let state = match (&e.region, &e.failure) {
                (_, Some(_)) => RegionState::FailedOpen,
                (Some(_), None) => RegionState::Open,
                (None, None) => RegionState::Closed,
            };
            RegionReport {
                table: table.clone(),
                region_name: e.record.region_name(),
                encoded_name: e.record.encoded_name.clone(),
                start_key: e.record.start_key.clone(),
                end_key: e.record.end_key.clone(),
                server: db.server_name.clone(),
                store_files: metrics.store_files,
                store_file_bytes: metrics.store_file_bytes,
                memstore_bytes: metrics.memstore_bytes,
                read_requests: metrics.read_requests,
                write_requests: metrics.write_requests,
                state,
                failure: e.failure.as_ref().map(|f| f.cause.clone()),
            }
        })
        .collect())
}

/// The region holding `row` of `table`, enabled or not.
pub fn locate(db: &Database, table: &TableName, row: &[u8]) -> Result<RegionLocation> {
    let catalog = db.catalog.read();
    let entry = catalog.table(table)?;
    let region = entry.region_for(row).ok_or_else(|| {
        if db.hosting {
            return crate::host::not_serving(&format!(
                "no region of {table} holding row {} is open on this server",
                basalt_types::escape::to_string_binary(row)
            ));
        }
        crate::error::io(format!(
            "no region of {table} holds row {}",
            basalt_types::escape::to_string_binary(row)
        ))
    })?;
    Ok(RegionLocation {
        region_name: region.record.region_name(),
        start_key: region.record.start_key.clone(),
        end_key: region.record.end_key.clone(),
        server: db.server_name.clone(),
    })
}

/// The open regions of an enabled table (FAILED_OPEN ones are left out).
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

pub fn compact_family(db: &Database, table: &TableName, family: &[u8], major: bool) -> Result<()> {
    for region in open_regions(db, table)? {
        region.compact_family(family, major).map_err(from_storage)?;
    }
    Ok(())
}

/// The open region named `name`: its encoded name, or HBase's full region name
/// (`table,start,id.encoded.`).
pub fn region_named(db: &Database, name: &str) -> Result<Arc<Region>> {
    let encoded = name
        .trim_end_matches('.')
        .rsplit('.')
        .next()
        .unwrap_or(name);
    let catalog = db.catalog.read();
    let found = catalog
        .tables
        .values()
        .flat_map(|t| t.regions.values())
        .find(|e| e.record.encoded_name == encoded || e.record.encoded_name == name);
    if let Some(failure) = found.and_then(|e| e.failure.as_ref()) {
        return Err(failure.error());
    }
    found.and_then(|e| e.region.clone()).ok_or_else(|| {
        basalt_api::ApiError::new(
            basalt_api::ErrorKind::NotFound,
            crate::error::UNKNOWN_REGION,
            name.to_string(),
        )
    })
}

pub fn flush_region(db: &Database, name: &str) -> Result<()> {
    region_named(db, name)?
        .flush()
        .map(|_| ())
        .map_err(from_storage)
}

pub fn compact_region(db: &Database, name: &str, family: Option<&[u8]>, major: bool) -> Result<()> {
    let region = region_named(db, name)?;
    match family {
        Some(family) => region.compact_family(family, major),
        None => region.compact(major),
    }
    .map(|_| ())
    .map_err(from_storage)
}
