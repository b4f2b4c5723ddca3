//! Splits: a region cut in two at a key, without copying data.
//!
//! The steps, each durable before the next, and what a crash after each leaves:
//!
//! | step | durable state | after a crash |
//! |------|---------------|---------------|
//! | 1. meta: parent `SPLITTING` | parent still serves | recovery sets it `OPEN`; daughter folders (none yet) removed |
//! | 2. daughters written (parent flushed, writes stopped) | folders not in meta | recovery removes them; the parent serves |
//! | 3. meta: parent `SPLIT`, daughters `OPEN` (one atomic commit) | the split happened | the daughters open; the parent stays for the janitor |
//! | 4. daughters opened, parent closed | — | — |
//!
//! Until the janitor finds no daughter referring to the parent's files, the parent's
//! folder stays (its record `SPLIT`).
//!
//! # Layout
//! - [`policy`]: when regions split by themselves.
//! - [`merge`]: two adjacent regions made one.
//! - [`janitor`]: removing parents nothing refers to.
//! - [`checker`]: the background thread that splits regions past their size.
//! - [`load`]: which regions of load-split tables split for their load, and where.

pub mod checker;
pub mod janitor;
pub mod load;
pub mod merge;
pub mod policy;

use crate::catalog::RegionEntry;
use crate::database::Database;
use crate::error::{from_storage, DO_NOT_RETRY};
use crate::meta::record::{RegionRecord, RegionState};
use crate::{failpoint, meta};
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_types::TableName;
use bytes::Bytes;

/// Splits every region of `table` at its midpoint, or the region holding `key` at `key`.
pub fn split_table(db: &Database, table: &TableName, key: Option<&[u8]>) -> Result<()> {
    crate::admin::tables::check_user_table(table)?;
    let starts: Vec<Bytes> = {
        let catalog = db.catalog.read();
        let entry = catalog.table(table)?;
        if !entry.enabled {
            return Err(crate::error::table_disabled(table));
        }
        if !entry.descriptor.split_enabled {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                DO_NOT_RETRY,
                format!("Split is disabled for table {table}"),
            ));
        }
        match key {
            Some(key) => entry
                .region_for(key)
                .map(|e| e.record.start_key.clone())
                .into_iter()
                .collect(),
            None => entry.regions.keys().cloned().collect(),
        }
    };
    for start in starts {
        split_region(db, table, &start, key.map(Bytes::copy_from_slice))?;
    }
    Ok(())
}

/// Splits the region of `table` starting at `start_key`, at `key` or its midpoint.
/// Returns false when there was nothing to split (no midpoint yet).
pub fn split_region(
    db: &Database,
    table: &TableName,
    start_key: &Bytes,
    key: Option<Bytes>,
) -> Result<bool> {
    let _ddl = db.ddl.write();
    let (parent, descriptor) = {
        let catalog = db.catalog.read();
        let entry = catalog.table(table)?;
        let parent = entry
            .regions
            .get(start_key)
            .cloned()
            .ok_or_else(|| crate::error::io("the region moved"))?;
        (parent, entry.descriptor.clone())
    };
    let Some(region) = parent.region.clone() else {
        return Ok(false);
    };
    let Some(split_key) = key.or_else(|| region.split_point()) else {
        return Ok(false);
    };
    if !parent.record.contains_row(&split_key) || split_key == parent.record.start_key {
        return Err(ApiError::invalid(format!(
            "Split key {} is not inside region {}",
            basalt_types::escape::to_string_binary(&split_key),
            parent.record.region_name()
        )));
    }
    let id = db.next_region_id();
    let bottom = RegionRecord::new(
        table.clone(),
        id,
        parent.record.start_key.clone(),
        split_key.clone(),
        RegionState::Open,
    );
    let top = RegionRecord::new(
        table.clone(),
        id,
        split_key.clone(),
        parent.record.end_key.clone(),
        RegionState::Open,
    );
    // Before anything changes: a daughter must never take an edit unrecorded.
    crate::snapshot::lineage::record_children(
        db.engine.context().fs.as_ref(),
        &db.root,
        &descriptor,
        crate::snapshot::lineage::Cause::Split,
        &[&bottom, &top],
        &[&parent.record],
    )?;
    let mut splitting = parent.record.clone();
    splitting.state = RegionState::Splitting;
    db.meta.commit(vec![meta::put_region(&splitting)])?;
    failpoint::hit("split.after_mark");
    let (bottom_dir, top_dir) = (
        db.region_dir(&descriptor, &bottom),
        db.region_dir(&descriptor, &top),
    );
    if let Err(e) = region.write_split(&split_key, &bottom_dir, &top_dir) {
        abandon(db, &parent.record, &[&bottom_dir, &top_dir], &region)?;
        return Err(from_storage(e));
    }
    failpoint::hit("split.after_daughters");
    let mut split = parent.record.clone();
    let split_names = (bottom.encoded_name.clone(), top.encoded_name.clone());
    split.state = RegionState::Split {
        daughters: (bottom.encoded_name.clone(), top.encoded_name.clone()),
    };
    db.meta.commit(vec![
        meta::put_region(&split),
        meta::put_region(&bottom),
        meta::put_region(&top),
    ])?;
    failpoint::hit("split.after_commit");
    // A daughter that fails to open is FAILED_OPEN; the split stays committed.
    let opened = [bottom, top].map(|record| {
        let region = db.try_open_region(&record, &descriptor);
        (record, region)
    });
    {
        let mut catalog = db.catalog.write();
        let entry = catalog.table_mut(table)?;
        entry.regions.remove(&parent.record.start_key);
        entry.retired.push(split);
        for (record, region) in opened {
            entry.regions.insert(
                record.start_key.clone(),
                RegionEntry::opened(record, region),
            );
        }
    }
    db.close_region(&parent.record)?;
    db.retire_in_log(&parent.record);
    for name in [&split_names.0, &split_names.1] {
        db.engine.context().jobs.request_compaction(name);
    }
    failpoint::hit("split.after_open");
    tracing::info!(region = %parent.record.region_name(), "split");
    Ok(true)
}

/// Undoes a split or merge that failed before its commit: removes the new folders, lets
/// the regions write again, and marks them serving.
pub(crate) fn abandon(
    db: &Database,
    record: &RegionRecord,
    folders: &[&std::path::Path],
    region: &basalt_storage::Region,
) -> Result<()> {
    for folder in folders {
        crate::admin::tables::remove_folder(folder)?;
    }
    region.abort_split();
    let mut open = record.clone();
    open.state = RegionState::Open;
    db.meta.commit(vec![meta::put_region(&open)])
}
