//! Merging two adjacent regions: the merged region's folder, whose manifest references
//! every file of both, whole.
//!
//! `A = [a, b)` and `B = [b, c)` of one table give `M = [a, c)`. Sequence ids of A's and
//! B's cells come from separate counters, which is harmless: they only ever order cells of
//! one row, and each row was in one of them. M's own writes start above both (its
//! manifest's flushed sequence id is the larger of the two).
//!
//! The catalog drives it as a split: `write_merge`, close both, record the merge, open M;
//! the janitor deletes A's and B's folders once M no longer references them.

use super::manifest::Manifest;
use super::nonces::RecentNonces;
use super::split::{add_family, check_new_sibling, check_replaceable, write_region_folder};
use super::Region;
use crate::store::reference::{RefRange, Reference};
use crate::{Error, Result};
use std::path::Path;

/// Stops writes to `a` and `b` (adjacent regions of one table, in either order), flushes
/// both, and writes the merged region's folder `merged_dir` (a sibling of theirs) whose
/// manifest references all their files. Reads of both keep working until they are closed;
/// their compactions stop. Idempotent: a retry replaces the merged folder, which must not
/// have been opened yet. On an error writes stay stopped: retry, or
/// [`Region::abort_split`] on both.
pub fn write_merge(a: &Region, b: &Region, merged_dir: &Path) -> Result<()> {
    let (low, high) = adjacent(a, b)?;
    low.check_open()?;
    high.check_open()?;
    let names = [low.folder_name()?, high.folder_name()?];
    check_new_sibling(&low.dir, merged_dir)?;
    if merged_dir == high.dir || low.dir.parent() != high.dir.parent() {
        return Err(Error::invalid(format!(
            "regions {} and {} and the merged folder {} must be siblings",
            low.info.name,
            high.info.name,
            merged_dir.display()
        )));
    }
    for region in [low, high] {
        if region.has_references() {
            return Err(Error::invalid(format!(
                "region {} still holds references to another region's files; compact it before merging",
                region.info.name
            )));
        }
    }
    check_replaceable(low.ctx.fs.as_ref(), merged_dir)?;
    let why = format!(
        "regions {} and {} are merging",
        low.info.name, high.info.name
    );
    low.stop_writes(why.clone());
    high.stop_writes(why);
    // Always the lower region first, so concurrent merges of neighbours cannot deadlock.
    let _low_compaction = low.compaction_lock.lock();
    let _high_compaction = high.compaction_lock.lock();
    low.flush()?;
    high.flush()?;
    let mut merged = Manifest::default();
    for (region, name) in [low, high].into_iter().zip(&names) {
        let committed = region.manifest.lock().clone();
        for store in &region.stores {
            let family = store.family().name.clone();
            let flushed_seq = committed.families.get(&family).map_or(0, |f| f.flushed_seq);
            let references = store
                .files()
                .iter()
                .map(|f| Reference {
                    region: name.clone(),
                    file_id: f.id,
                    range: RefRange::Whole,
                })
                .collect();
            add_family(&mut merged, family, flushed_seq, references);
        }
    }
    write_region_folder(low.ctx.fs.as_ref(), merged_dir, &merged)?;
    let mut nonces = low.nonces.flushed_entries(u64::MAX);
    nonces.extend(high.nonces.flushed_entries(u64::MAX));
    nonces.sort_by_key(|e| e.applied_ms);
    RecentNonces::write_for(low.ctx.fs.as_ref(), merged_dir, &nonces)
        .map_err(|e| Error::io(format!("writing the nonces of {}", merged_dir.display()), e))?;
    tracing::info!(low = %low.info.name, high = %high.info.name, merged = %merged_dir.display(),
        "wrote merged region");
    Ok(())
}

/// `(a, b)` ordered by key range; an error unless one ends where the other starts and
/// both belong to the same table.
fn adjacent<'a>(a: &'a Region, b: &'a Region) -> Result<(&'a Region, &'a Region)> {
    if a.table.name != b.table.name {
        return Err(Error::invalid(format!(
            "regions {} and {} belong to different tables",
            a.info.name, b.info.name
        )));
    }
    let meets = |low: &Region, high: &Region| {
        !low.info.end_key.is_empty() && low.info.end_key == high.info.start_key
    };
    if meets(a, b) {
        Ok((a, b))
    } else if meets(b, a) {
        Ok((b, a))
    } else {
        Err(Error::invalid(format!(
            "regions {} and {} are not adjacent",
            a.info.name, b.info.name
        )))
    }
}
