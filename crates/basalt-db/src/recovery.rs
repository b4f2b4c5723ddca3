//! Start-up recovery: the catalog first, whole, then clean-up that never deletes.
//!
//! | step | what | when it cannot be done |
//! |------|------|------------------------|
//! | 1 | open `hbase:meta` (its files and log edits) and read every row | meta is FAILED_OPEN: no table is served, steps 2–5 are skipped, nothing on disk changes |
//! | 2 | settle interrupted changes in meta (a split that did not commit serves again) | the start fails |
//! | 3 | move region folders meta does not name to `<root>/quarantine/` | logged; the folder stays where it is |
//! | 4 | open the regions of enabled tables | that region is FAILED_OPEN; the rest serve |
//! | 5 | release log edits of regions that will never open | — |
//!
//! Step 3 runs only once step 1 read the whole catalog, so a catalog that is incomplete
//! (meta damaged) never makes data look unnamed. Even then nothing is deleted: an unnamed
//! folder may be the remains of an interrupted create, drop, split or merge — or the data
//! of a table whose definition was lost — and only an operator can tell
//! (`basalt hbck --purge-quarantine`). Log edits of a quarantined region are kept too, for
//! as long as its folder is in the quarantine.

use crate::catalog::{RegionEntry, TableEntry};
use crate::database::Database;
use crate::error::from_storage;
use crate::health::OpenFailure;
use crate::meta::record::{RegionRecord, RegionState};
use crate::meta::{self, LoadError, Loaded, Meta};
use basalt_api::Result;
use basalt_storage::fs::LocalFs;
use basalt_storage::{Engine, Region, RegionInfo};
use basalt_types::{NamespaceDescriptor, TableName};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Opens the meta region and reads the whole catalog, or says why it cannot.
pub(crate) fn open_meta(
    engine: &Engine,
) -> std::result::Result<(Arc<Region>, Loaded), Arc<OpenFailure>> {
    let record = meta::meta_record();
    let region = engine
        .open_region(
            RegionInfo::whole(meta::META_REGION),
            meta::meta_descriptor(),
        )
        .map_err(|e| meta_failed(OpenFailure::of_storage(&record, &e)))?;
    match Meta::new(region.clone()).load() {
        Ok(loaded) => Ok((region, loaded)),
        Err(e) => {
            let failure = match &e {
                LoadError::Storage(e) => OpenFailure::of_storage(&record, e),
                LoadError::BadRow(message) => OpenFailure::new(&record, None, message.clone()),
            };
            // Closed so that no background compaction rewrites what could not be read.
            if let Err(e) = engine.close_region(meta::META_REGION) {
                tracing::warn!(error = %e, "closing hbase:meta after a failed read");
            }
            Err(meta_failed(failure))
        }
    }
}

fn meta_failed(failure: OpenFailure) -> Arc<OpenFailure> {
    tracing::error!(file = ?failure.file, error = %failure.cause,
        "hbase:meta FAILED_OPEN: no table is served and nothing is cleaned up until it opens; \
         `basalt hbck` reports it");
    Arc::new(failure)
}

impl Database {
    /// Meta could not be opened: the catalog stays empty and says why; no region opens, no
    /// folder moves and no log edit is released.
    pub(crate) fn recover_without_meta(&self, failure: Arc<OpenFailure>) {
        self.catalog.write().meta_failure = Some(failure);
    }

    pub(crate) fn recover(&self, loaded: Loaded) -> Result<()> {
        let mut changes = Vec::new();
        let mut namespaces = loaded.namespaces;
        for name in [
            basalt_types::name::DEFAULT_NAMESPACE,
            basalt_types::name::SYSTEM_NAMESPACE,
        ] {
            if !namespaces.contains_key(name) {
                let ns =
                    NamespaceDescriptor::new(name).expect("built-in namespace names are valid");
                changes.push(meta::put_namespace(&ns));
                namespaces.insert(name.to_string(), ns);
            }
        }
        // Ids must stay unique even if the clock is behind the last run's: a daughter with
        // its parent's start key and id would take the parent's folder and meta row.
        let highest_id = loaded.regions.iter().map(|r| r.region_id).max();
        *self.last_region_id.lock() = highest_id.unwrap_or(0);
        let mut tables: BTreeMap<_, TableEntry> = BTreeMap::new();
        for (name, (descriptor, enabled)) in loaded.tables {
            let entry = TableEntry {
                descriptor: Arc::new(descriptor),
                enabled,
                regions: BTreeMap::new(),
                retired: Vec::new(),
            };
            tables.insert(name, entry);
        }
        let mut orphans = Vec::new();
        for record in loaded.regions {
            let Some(table) = tables.get_mut(&record.table) else {
                // Creates and drops change a table's row and its regions' rows at once, so
                // this row outlived its table's row by damage: kept, and reported.
                tracing::warn!(region = %record.region_name(),
                    "hbase:meta has a region row of a table it does not define: kept, not served");
                orphans.push(record);
                continue;
            };
            if record.is_serving() {
                let mut record = record;
                if record.state == RegionState::Splitting {
                    // The split did not commit: the region keeps serving.
                    record.state = RegionState::Open;
                    changes.push(meta::put_region(&record));
                }
                table
                    .regions
                    .insert(record.start_key.clone(), RegionEntry::new(record, None));
            } else {
                table.retired.push(record);
            }
        }
        self.meta.commit(changes)?;
        for retired in tables.values().flat_map(|t| t.retired.iter()) {
            self.retire_in_log(retired);
        }
        let named: Vec<&RegionRecord> = orphans.iter().collect();
        self.quarantine_unknown_folders(&tables, &named);
        for entry in tables.values_mut().filter(|t| t.enabled) {
            let records = entry.regions.values().map(|e| e.record.clone()).collect();
            entry.regions = self.open_regions(&entry.descriptor, records);
        }
        self.discard_unclaimed_edits(&tables, &orphans)?;
        *self.orphan_rows.lock() = orphans;
        let meta_entry = RegionEntry::new(meta::meta_record(), Some(self.meta.region()?.clone()));
        tables.insert(
            meta::meta_table_name(),
            TableEntry {
                descriptor: Arc::new(meta::meta_descriptor()),
                enabled: true,
                regions: BTreeMap::from([(bytes::Bytes::new(), meta_entry)]),
                retired: Vec::new(),
            },
        );
        let mut catalog = self.catalog.write();
        catalog.namespaces = namespaces;
        catalog.tables = tables;
        Ok(())
    }

    /// Releases the replayed log edits of regions that will never open: those of dropped
    /// tables and split or merged parents (flushed before their split or merge committed).
    /// Otherwise the segments holding them would stay, and be replayed into memory, at
    /// every open. Kept: regions of disabled tables (for the enable), regions that failed
    /// to open (for the next attempt), regions meta still has a row of, and regions whose
    /// folder is in the quarantine (until an operator purges it).
    fn discard_unclaimed_edits(
        &self,
        tables: &BTreeMap<TableName, TableEntry>,
        orphans: &[RegionRecord],
    ) -> Result<()> {
        let mut waiting: HashSet<String> = tables
            .values()
            .flat_map(|t| t.regions.values())
            .filter(|e| e.region.is_none())
            .map(|e| e.record.encoded_name.clone())
            .collect();
        waiting.extend(orphans.iter().map(|r| r.encoded_name.clone()));
        waiting.extend(quarantined_regions(&self.root));
        for region in self.engine.regions_with_pending_edits() {
            if waiting.contains(&region) {
                tracing::info!(region, "keeping the log edits of a region that is not open");
            } else {
                self.engine.discard_edits(&region).map_err(from_storage)?;
            }
        }
        Ok(())
    }

    /// Moves region folders no record names (serving, retired, or an orphan row) to the
    /// quarantine: the remains of creates, drops, splits or merges interrupted before or
    /// after their commit, or data whose catalog rows were lost. A folder that cannot be
    /// moved is left where it is (logged): it is harmless there.
    fn quarantine_unknown_folders(
        &self,
        tables: &BTreeMap<TableName, TableEntry>,
        orphans: &[&RegionRecord],
    ) {
        let known: HashSet<PathBuf> = tables
            .values()
            .flat_map(|t| {
                let records = t
                    .regions
                    .values()
                    .map(|e| &e.record)
                    .chain(t.retired.iter());
                records
                    .map(|r| self.engine.region_dir(&t.descriptor, &r.encoded_name))
                    .collect::<Vec<_>>()
            })
            .chain(
                orphans
                    .iter()
                    .map(|r| self.table_dir(&r.table).join(&r.encoded_name)),
            )
            .collect();
        let folders = match crate::health::region_folders(&self.root) {
            Ok(folders) => folders,
            Err(e) => {
                tracing::error!(error = %e, "cannot list the region folders: none is quarantined");
                return;
            }
        };
        for dir in folders.into_iter().filter(|d| !known.contains(d)) {
            let reason = "hbase:meta names no region for this folder (an interrupted create, \
                          drop, split or merge, or a region whose catalog rows were lost)";
            let now_ms = self.clock.now_ms();
            if let Err(e) =
                basalt_storage::quarantine::move_in(&LocalFs, &self.root, &dir, reason, now_ms)
            {
                tracing::error!(folder = %dir.display(), error = %e, "cannot quarantine a region folder meta does not name: left in place");
            }
        }
    }
}

/// Encoded names of the region folders in the quarantine
/// (`quarantine/data/<ns>/<table>/<region>[~N]`).
fn quarantined_regions(root: &Path) -> Vec<String> {
    let items = basalt_storage::quarantine::list(root).unwrap_or_default();
    items
        .iter()
        .filter_map(|item| {
            let parts: Vec<_> = Path::new(&item.original).iter().collect();
            (parts.len() == 4 && parts[0] == "data")
                .then(|| parts[3].to_string_lossy().into_owned())
        })
        .collect()
}
