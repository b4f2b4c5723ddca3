//! Damaged log segments, from replay to the regions they may cost.
//!
//! Replay returns the damaged segments; which regions need them depends on each region's
//! flushed sequence id, in its manifest. At open the engine reads the manifest of every
//! region folder under `data/`, and names a span's owner where its hint proves it (one
//! record, a region on disk, no other name near it): a damaged segment that none of them needs (the rule is in
//! [`crate::wal::damage`]) is moved to `wal/corrupt/` and forgotten. The others are kept,
//! in the log folder and in memory, and the open of each of those regions judges them: a
//! region that needs one fails to open, naming the segment, the offset and the cause; the
//! others open. A region whose folder did not exist when the engine opened (a new table, a
//! split's daughter) logged nothing before, so it needs nothing; its open logs a barrier,
//! so that after a restart it still needs nothing from before it. A segment set aside by
//! `--skip-corrupt-wal` is kept in memory only for each region to log what it may have
//! lost.

use crate::fs::FileSystem;
use crate::region::manifest::Manifest;
use crate::wal::corrupt;
use crate::wal::damage::{needed_by_any, proven_owner, DamagedSegment};
use crate::{Error, Result};
use std::collections::HashSet;
use std::path::Path;
use tracing::warn;

/// The damaged segments regions still judge at open, and which regions judge them.
#[derive(Debug, Default)]
pub(super) struct WalDamage {
    pub segments: Vec<DamagedSegment>,
    /// The regions whose folders existed when the engine opened.
    pub judges: HashSet<String>,
}

impl WalDamage {
    /// The damaged segments `region` must judge at its open.
    pub fn for_region(&self, region: &str) -> Vec<DamagedSegment> {
        match self.judges.contains(region) {
            true => self.segments.clone(),
            false => Vec::new(),
        }
    }

    /// Adds what an adopted log's replay left for regions to judge.
    pub fn absorb(&mut self, other: WalDamage) {
        self.segments.extend(other.segments);
        self.judges.extend(other.judges);
    }
}

/// Moves aside the damaged segments no region needs; returns the others.
pub(super) fn settle(
    fs: &dyn FileSystem,
    root: &Path,
    wal_dir: &Path,
    damaged: Vec<DamagedSegment>,
) -> Result<WalDamage> {
    if damaged.is_empty() {
        return Ok(WalDamage::default());
    }
    let regions = regions_on_disk(fs, root)?;
    let names = regions.iter().map(|(name, _)| name.as_str());
    let mut kept = Vec::new();
    for mut segment in damaged {
        for span in &mut segment.spans {
            span.owner = proven_owner(span, names.clone());
        }
        if segment.set_aside.is_some() || needed_by_any(&segment, &regions) {
            kept.push(segment);
            continue;
        }
        let to = corrupt::move_aside(fs, wal_dir, &segment.file)?;
        warn!(
            file = %segment.file.display(),
            moved_to = %to.display(),
            regions = regions.len(),
            "a damaged log segment holds nothing any region still needs: moved aside"
        );
    }
    Ok(WalDamage {
        segments: kept,
        judges: regions.into_iter().map(|(name, _)| name).collect(),
    })
}

/// Every region folder under `<root>/data/<namespace>/<table>/`, with the sequence id its
/// manifest says is flushed (0 if it cannot be read: nothing is known flushed).
fn regions_on_disk(fs: &dyn FileSystem, root: &Path) -> Result<Vec<(String, u64)>> {
    let list = |dir: &Path| {
        fs.list(dir)
            .map_err(|e| Error::io(format!("listing {}", dir.display()), e))
    };
    let data = root.join("data");
    let mut regions = Vec::new();
    for namespace in list(&data)? {
        for table in list(&data.join(&namespace))? {
            let table_dir = data.join(&namespace).join(&table);
            // Dot-files (`.tableinfo`) are the table's, not regions.
            for region in list(&table_dir)?
                .into_iter()
                .filter(|n| !n.starts_with('.'))
            {
                let flushed = match Manifest::load(fs, &table_dir.join(&region)) {
                    Ok(manifest) => flushed_seq(&manifest),
                    Err(e) => {
                        warn!(region = %region, error = %e, "cannot read a manifest: taking nothing as flushed");
                        0
                    }
                };
                regions.push((region, flushed));
            }
        }
    }
    Ok(regions)
}

/// The region's flush point: every edit at or below it is in files. Each flush records
/// the same id for every family, so this is the lowest family's; a family the manifest
/// does not list yet was added after the last flush and holds only edits above it.
pub(crate) fn flushed_seq(manifest: &Manifest) -> u64 {
    manifest
        .families
        .values()
        .map(|f| f.flushed_seq)
        .min()
        .unwrap_or(0)
}
