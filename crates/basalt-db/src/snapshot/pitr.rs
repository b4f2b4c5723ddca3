//! Point-in-time restore (beyond HBase): a snapshot's table rolled forward to a chosen
//! time with the edits its logs kept (`WAL_RETENTION_SECS`).
//!
//! **Which time.** An edit's time is when it was *logged* — the newest time mark before it
//! in its server's log (`basalt_storage::wal::timeline`) — not its cells' timestamps,
//! which a client may set to anything. Restoring to `T` (epoch ms) applies every edit
//! logged in millisecond `T` or before, and none logged after: an edit acknowledged before
//! `T` is in, one sent after `T` is out.
//!
//! **Which edits.** Those of the snapshot's regions (by folder, which is the region's
//! name in the log) above the highest sequence id in the region's snapshot files (what
//! the snapshot already holds), and all those of the regions descending from them by
//! splits and merges since ([`descent`], from the lineage records
//! [`super::lineage`] keeps) — including regions already gone again (split, then merged
//! back) — each once (a log read twice, from `wal/` and from the archive, gives the same
//! edit twice).
//!
//! **How they land.** Each cell goes to the snapshot region holding its row (the
//! restored table has the snapshot's boundaries). Edits get new sequence ids above the
//! snapshot's in replay order: by generation (a parent's edits were all logged before its
//! daughters took any), then by the region's own sequence ids, so a daughter's cell beats
//! its parent's at equal row, column and timestamp. Per region and family, one new store
//! file holds them, written under
//! `snapshots/.tmp/` and linked into the restored region's folder beside the snapshot's
//! files, *before* the catalog names the region: a crash before the commit leaves the old
//! table; after it, the table rolled forward. No region ever serves half of it.
//!
//! **Refusals** ([`check`], a pure rule with its table of cases in the tests): the table
//! must have retained its logs when the snapshot was taken and still retain them; the
//! time must not be before the snapshot; the logs after the snapshot must still be
//! within the retention window; no region of the table created after the snapshot and by
//! the time may be of another history (a restore, truncate or re-creation since: not the
//! snapshot's, not descending from them); and every edit needed must have a known time. [`roll_forward`] also refuses a
//! snapshot taken at or before the kept logs' expiry watermark
//! (`basalt_storage::wal::expire`).

pub mod descent;

use super::lineage::Lineage;
use super::manifest::SnapshotManifest;
use super::snapshot_dir;
use crate::error::{from_storage, io};
use basalt_api::{ApiError, Result};
use basalt_storage::fs::FileSystem;
use basalt_storage::hfile::{HFileReader, HFileWriter, WriterOptions};
use basalt_storage::store::family_dir_name;
use basalt_storage::store::file::file_name;
use basalt_storage::wal::timeline;
use basalt_types::{Cell, TableDescriptor};
use bytes::Bytes;
pub use descent::Generations;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Store files written for the roll-forward: snapshot region folder → (family, file).
pub type RolledFiles = HashMap<String, Vec<(Bytes, PathBuf)>>;

/// Whether `snapshot` can be rolled forward to `to_ms` (at `now_ms`), given the table's
/// current descriptor and regions (encoded name, region id; `None` when the table no
/// longer exists) and its regions' lineage records. Returns the regions whose edits the
/// roll-forward reads, with their generations ([`descent`]).
pub fn check(
    snapshot: &SnapshotManifest,
    current: Option<(&TableDescriptor, &[(String, u64)])>,
    lineage: &[Lineage],
    to_ms: i64,
    now_ms: i64,
) -> Result<Generations> {
    let (name, table) = (&snapshot.name, &snapshot.table);
    let Some(kept) = snapshot.descriptor.wal_retention_secs() else {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{name}' to a point in time: table '{table}' did not \
             retain its logs when it was taken (set WAL_RETENTION_SECS on the table, then \
             take a snapshot)"
        )));
    };
    if to_ms < snapshot.creation_ms {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{name}' to {to_ms}: it was taken later, at {}; choose \
             an older snapshot",
            snapshot.creation_ms
        )));
    }
    let oldest_kept_ms = now_ms.saturating_sub((kept as i64).saturating_mul(1000));
    if snapshot.creation_ms < oldest_kept_ms {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{name}' to a point in time: table '{table}' keeps its \
             logs for {kept} s and the snapshot is older ({} ms ago), so the edits after it \
             may be gone",
            now_ms - snapshot.creation_ms
        )));
    }
    let Some((descriptor, regions)) = current else {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{name}' to a point in time: table '{table}' no longer \
             exists, so nothing says its logs were kept; clone the snapshot instead"
        )));
    };
    if descriptor.wal_retention_secs().is_none() {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{name}' to a point in time: table '{table}' no longer \
             retains its logs (WAL_RETENTION_SECS was unset), so the edits after the \
             snapshot may be gone"
        )));
    }
    // A region id is its creation's millisecond (or a little after). The snapshot's
    // regions and their descendants by splits and merges took the edits to replay; a
    // region of another history (a restore, truncate or re-creation since) created by
    // `to_ms` took edits the roll-forward must not mix in, or leave out.
    let taken: Vec<&str> = snapshot.regions.iter().map(|r| r.folder.as_str()).collect();
    let generations = descent::generations(taken.iter().copied(), lineage);
    let other = descent::other_history(
        &taken,
        snapshot.creation_ms,
        &generations,
        regions,
        lineage,
        to_ms,
    );
    if let Some((other, _)) = other {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{name}' to a point in time: region {other} of table \
             '{table}' is not in the snapshot and was created before {to_ms}, and it does \
             not descend from the snapshot's regions by splits and merges (the table was \
             restored, truncated or re-created since the snapshot: another history); \
             choose an earlier time or a snapshot taken after that"
        )));
    }
    Ok(generations)
}

/// The highest sequence id in each snapshot region's files: what the snapshot holds.
fn snapshot_seq_ids(
    fs: &dyn FileSystem,
    root: &Path,
    s: &SnapshotManifest,
) -> Result<HashMap<String, u64>> {
    let cache = Arc::new(basalt_storage::block_cache::BlockCache::new(1 << 20));
    let dir = snapshot_dir(root, &s.name);
    let mut out = HashMap::new();
    for region in &s.regions {
        let mut max = 0;
        for family in &region.families {
            let family_dir = dir.join(&region.folder).join(family_dir_name(&family.name));
            for (n, (id, _)) in family.files.iter().enumerate() {
                let path = family_dir.join(file_name(*id));
                let reader =
                    HFileReader::open(fs, &path, n as u64, cache.clone()).map_err(from_storage)?;
                max = max.max(reader.info().max_seq_id);
            }
        }
        out.insert(region.folder.clone(), max);
    }
    Ok(out)
}

/// Reads the kept logs under `root` and writes, under `staging`, a store file per region
/// and family of `s` holding the edits logged after the snapshot up to `to_ms` by the
/// regions of `generations` (from [`check`]), each cell in the snapshot region holding
/// its row. Returns the files and how many edits they hold.
pub fn roll_forward(
    fs: &dyn FileSystem,
    root: &Path,
    s: &SnapshotManifest,
    generations: &Generations,
    to_ms: i64,
    staging: &Path,
) -> Result<(RolledFiles, usize)> {
    let expired = basalt_storage::wal::expire::expired_before(fs, root).map_err(from_storage)?;
    if let Some(before) = expired.filter(|t| s.creation_ms <= i64::try_from(*t).unwrap_or(i64::MAX))
    {
        return Err(ApiError::invalid(format!(
            "cannot restore snapshot '{}' to a point in time: kept logs up to {before} ms \
             have expired (past every table's WAL_RETENTION_SECS) and the snapshot was taken \
             at {}, so edits after it may be gone",
            s.name, s.creation_ms
        )));
    }
    let flushed = snapshot_seq_ids(fs, root, s)?;
    // A snapshot's region: the edits its files do not hold; a descendant: all of them.
    // Never a barrier (no cells: a flush's or a close's record), which may carry the
    // sequence id of the edit before it and would replace that edit below.
    let keep = |e: &basalt_storage::wal::WalEdit| match generations.get(&e.region) {
        _ if e.cells.is_empty() => false,
        Some(0) => flushed.get(&e.region).is_some_and(|max| e.seq_id > *max),
        Some(_) => true,
        None => false,
    };
    // (generation, region) → seq → cells; a BTreeMap keeps one copy of an edit read twice.
    let mut edits: BTreeMap<(u32, String), BTreeMap<u64, Vec<Cell>>> = BTreeMap::new();
    for (server, segments) in timeline::segments(fs, root).map_err(from_storage)? {
        for timed in timeline::read_server(fs, &server, &segments, &keep).map_err(from_storage)? {
            let Some(ms) = timed.time_ms else {
                return Err(ApiError::invalid(format!(
                    "cannot restore snapshot '{}' to a point in time: the log of {server} \
                     holds edit {} of region {} with no time mark before it (a segment \
                     before it is missing)",
                    s.name, timed.edit.seq_id, timed.edit.region
                )));
            };
            if ms as i64 <= to_ms {
                let generation = generations.get(&timed.edit.region).copied().unwrap_or(0);
                edits
                    .entry((generation, timed.edit.region.clone()))
                    .or_default()
                    .insert(timed.edit.seq_id, timed.edit.cells);
            }
        }
    }
    // New sequence ids in replay order (generation, then the region's own order), above
    // everything the snapshot holds: a daughter's cell beats its parent's at equal
    // coordinates, and every rolled cell beats the snapshot's.
    let mut seq = flushed.values().copied().max().unwrap_or(0);
    let mut count = 0;
    let mut cells: BTreeMap<(usize, Bytes), Vec<Cell>> = BTreeMap::new();
    for by_seq in edits.into_values() {
        count += by_seq.len();
        for edit in by_seq.into_values() {
            seq += 1;
            for cell in edit {
                let region = region_of(s, cell.row());
                cells
                    .entry((region, cell.family_bytes()))
                    .or_default()
                    .push(cell.with_seq(seq));
            }
        }
    }
    let files = write_rolled(fs, s, staging, cells)?;
    tracing::info!(snapshot = %s.name, to_ms, edits = count, regions = generations.len(), "edits gathered from the kept logs to roll the restore forward");
    Ok((files, count))
}

/// The index of the snapshot region holding `row` (regions tile the key space in
/// start-key order).
fn region_of(s: &SnapshotManifest, row: &[u8]) -> usize {
    s.regions
        .partition_point(|r| r.start_key.as_ref() <= row)
        .saturating_sub(1)
}

/// Writes one store file per (snapshot region index, family) of `cells` under `staging`.
fn write_rolled(
    fs: &dyn FileSystem,
    s: &SnapshotManifest,
    staging: &Path,
    cells: BTreeMap<(usize, Bytes), Vec<Cell>>,
) -> Result<RolledFiles> {
    let mut files = RolledFiles::new();
    fs.create_dir_all(staging)
        .map_err(|e| io(format!("cannot create {}: {e}", staging.display())))?;
    for ((index, family), mut cells) in cells {
        let (Some(region), Some(fd)) = (s.regions.get(index), s.descriptor.family(&family)) else {
            continue;
        };
        cells.sort_by(|a, b| a.cmp_key(b));
        let path = staging.join(format!(
            "{}-{}.hfile",
            region.folder,
            family_dir_name(&family)
        ));
        let options = WriterOptions {
            block_size_bytes: fd.block_size_bytes,
            compression: fd.compression,
            encoding: fd.data_block_encoding,
            bloom: fd.bloom_filter,
            ..WriterOptions::default()
        };
        let mut writer = HFileWriter::create(fs, &path, options).map_err(from_storage)?;
        for cell in &cells {
            writer.append(cell).map_err(from_storage)?;
        }
        writer.finish().map_err(from_storage)?;
        files
            .entry(region.folder.clone())
            .or_default()
            .push((family, path));
    }
    Ok(files)
}

/// Where a roll-forward of snapshot `name` stages its files (under `snapshots/.tmp/`).
pub fn staging_dir(root: &Path, name: &str, now_ms: i64) -> PathBuf {
    super::snapshots_dir(root)
        .join(".tmp")
        .join(format!("{name}.pitr-{now_ms}"))
}

/// Adds the rolled-forward files of snapshot region `folder` to its families' sources
/// (newest last).
pub fn add_sources(sources: &mut Vec<(Bytes, Vec<PathBuf>)>, rolled: &RolledFiles, folder: &str) {
    for (family, file) in rolled.get(folder).into_iter().flatten() {
        match sources.iter_mut().find(|(f, _)| f == family) {
            Some((_, files)) => files.push(file.clone()),
            None => sources.push((family.clone(), vec![file.clone()])),
        }
    }
}

/// Removes the staging folder once its files are linked into the restored regions (their
/// bytes stay under those names). Logged.
pub fn remove_staging(fs: &dyn FileSystem, staging: &Path) {
    tracing::info!(dir = %staging.display(), "removing a point-in-time restore's staging folder: its files are linked into the restored regions");
    if let Err(e) = fs.remove_dir_all(staging) {
        tracing::warn!(dir = %staging.display(), error = %e, "could not remove the staging folder");
    }
}

#[cfg(test)]
mod tests;
