//! Merges: two adjacent regions of a table become one that refers to both's files.
//! Committed in one atomic meta change (both parents `MERGED`, the new region `OPEN`);
//! before it, a crash leaves the parents serving and the new folder removed.

use super::abandon;
use crate::catalog::RegionEntry;
use crate::database::Database;
use crate::error::{from_storage, DO_NOT_RETRY, UNKNOWN_REGION};
use crate::meta::record::{RegionRecord, RegionState};
use crate::{failpoint, meta};
use basalt_api::{ApiError, ErrorKind, Result};

fn find(db: &Database, encoded: &str) -> Result<RegionEntry> {
    let catalog = db.catalog.read();
    catalog
        .tables
        .values()
        .flat_map(|t| t.regions.values())
        .find(|e| e.record.encoded_name == encoded)
        .cloned()
        .ok_or_else(|| ApiError::new(ErrorKind::NotFound, UNKNOWN_REGION, encoded.to_string()))
}

pub fn merge(db: &Database, a: &str, b: &str) -> Result<()> {
    let _ddl = db.ddl.write();
    let (mut low, mut high) = (find(db, a)?, find(db, b)?);
    if low.record.start_key > high.record.start_key {
        std::mem::swap(&mut low, &mut high);
    }
    let table = low.record.table.clone();
    crate::admin::tables::check_user_table(&table)?;
    let descriptor = db.catalog.read().table(&table)?.descriptor.clone();
    if high.record.table != table || low.record.end_key != high.record.start_key {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            DO_NOT_RETRY,
            format!(
                "Unable to merge not adjacent regions {} and {}",
                low.record.region_name(),
                high.record.region_name()
            ),
        ));
    }
    if !descriptor.merge_enabled {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            DO_NOT_RETRY,
            format!("Merge is disabled for table {table}"),
        ));
    }
    let (Some(low_region), Some(high_region)) = (low.region.clone(), high.region.clone()) else {
        return Err(crate::error::table_disabled(&table));
    };
    let merged = RegionRecord::new(
        table.clone(),
        db.next_region_id(),
        low.record.start_key.clone(),
        high.record.end_key.clone(),
        RegionState::Open,
    );
    // Before anything changes: the merged region must never take an edit unrecorded.
    crate::snapshot::lineage::record_children(
        db.engine.context().fs.as_ref(),
        &db.root,
        &descriptor,
        crate::snapshot::lineage::Cause::Merge,
        &[&merged],
        &[&low.record, &high.record],
    )?;
    let merged_dir = db.region_dir(&descriptor, &merged);
    let merged_name = merged.encoded_name.clone();
    if let Err(e) =
        basalt_storage::region::merge::write_merge(&low_region, &high_region, &merged_dir)
    {
        abandon(db, &low.record, &[&merged_dir], &low_region)?;
        abandon(db, &high.record, &[], &high_region)?;
        return Err(from_storage(e));
    }
    failpoint::hit("merge.after_folder");
    let retire = |record: &RegionRecord| {
        let mut r = record.clone();
        r.state = RegionState::Merged {
            into: merged.encoded_name.clone(),
        };
        r
    };
    let (low_retired, high_retired) = (retire(&low.record), retire(&high.record));
    db.meta.commit(vec![
        meta::put_region(&low_retired),
        meta::put_region(&high_retired),
        meta::put_region(&merged),
    ])?;
    failpoint::hit("merge.after_commit");
    // A merged region that fails to open is FAILED_OPEN; the merge stays committed.
    let region = db.try_open_region(&merged, &descriptor);
    {
        let mut catalog = db.catalog.write();
        let entry = catalog.table_mut(&table)?;
        entry.regions.remove(&low.record.start_key);
        entry.regions.remove(&high.record.start_key);
        entry.retired.extend([low_retired, high_retired]);
        entry.regions.insert(
            merged.start_key.clone(),
            RegionEntry::opened(merged, region),
        );
    }
    db.close_region(&low.record)?;
    db.close_region(&high.record)?;
    db.retire_in_log(&low.record);
    db.retire_in_log(&high.record);
    db.engine.context().jobs.request_compaction(&merged_name);
    Ok(())
}
