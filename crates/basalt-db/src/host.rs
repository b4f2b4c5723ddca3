//! A region server's database: the engine over the cluster's shared folder, its own log,
//! and only the regions the master opened here.
//!
//! The master owns the catalog; a region server keeps no `hbase:meta` and makes no
//! catalog decision. It opens and closes regions by name when told to
//! ([`Database::host_open`], [`Database::host_close`]) and, for a split or merge the
//! master runs, writes the new regions' folders ([`Database::host_write_split`],
//! [`Database::host_write_merge`]) without committing anything: the master commits, then
//! opens the new regions and closes the old. A row of a region not open here answers
//! `NotServingRegionException`, and the client asks the master where it went.
//!
//! A scan here reads one region ([`crate::table::DbTable`] with
//! [`basalt_api::Table::scan_region`]): the client walks the table region by region.

use crate::catalog::{RegionEntry, TableEntry};
use crate::database::Database;
use crate::error::{from_storage, NOT_SERVING};
use crate::meta::record::RegionRecord;
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_types::TableDescriptor;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a request for a region not open here gets.
pub fn not_serving(message: &str) -> ApiError {
    ApiError::new(ErrorKind::RetryElsewhere, NOT_SERVING, message.to_string())
}

/// A region open here, as the master asks about it.
#[derive(Debug, Clone)]
pub struct Hosted {
    pub record: RegionRecord,
    pub region: Option<Arc<basalt_storage::Region>>,
    pub failure: Option<String>,
}

impl Database {
    fn require_host(&self) -> Result<()> {
        if !self.hosting {
            return Err(ApiError::invalid(
                "only a region server opens regions by name".to_string(),
            ));
        }
        Ok(())
    }

    /// Takes over a dead server's log folder before any of its regions opens here (see
    /// [`basalt_storage::Engine::adopt_log`]); how many edits it held.
    pub fn host_adopt_log(&self, dir: &std::path::Path) -> Result<usize> {
        self.require_host()?;
        self.engine.adopt_log(dir).map_err(from_storage)
    }

    /// Opens `record`'s region of `descriptor` here (creating its folder when new).
    /// Opening a region already open here succeeds (the master may repeat itself); a
    /// region that fails to open is filed FAILED_OPEN and the error returned.
    pub fn host_open(&self, record: RegionRecord, descriptor: TableDescriptor) -> Result<()> {
        self.require_host()?;
        let _ddl = self.ddl.read();
        let _region = self.open_stripe(&record.encoded_name).lock();
        if self
            .hosted_entry(&record.encoded_name)
            .is_some_and(|e| e.region.is_some())
        {
            return Ok(());
        }
        let opened = self.try_open_region(&record, &descriptor);
        let failure = opened.as_ref().err().map(|f| f.error());
        let mut catalog = self.catalog.write();
        let table = catalog
            .tables
            .entry(descriptor.name.clone())
            .or_insert_with(|| TableEntry {
                descriptor: Arc::new(descriptor.clone()),
                enabled: true,
                regions: BTreeMap::new(),
                retired: Vec::new(),
            });
        table.descriptor = Arc::new(descriptor);
        table.regions.insert(
            record.start_key.clone(),
            RegionEntry::opened(record, opened),
        );
        failure.map_or(Ok(()), Err)
    }

    /// Flushes and closes the region `encoded` if it is open here; its rows then answer
    /// NotServingRegion. Closing a region not open here succeeds.
    pub fn host_close(&self, encoded: &str) -> Result<()> {
        self.require_host()?;
        let _ddl = self.ddl.write();
        let Some(entry) = self.hosted_entry(encoded) else {
            return Ok(());
        };
        let table_entry = {
            let mut catalog = self.catalog.write();
            let table_entry = catalog.tables.get(&entry.record.table).cloned();
            if let Some(table) = catalog.tables.get_mut(&entry.record.table) {
                table.regions.remove(&entry.record.start_key);
                if table.regions.is_empty() {
                    catalog.tables.remove(&entry.record.table);
                }
            }
            table_entry
        };
        let closed = self
            .engine
            .close_region_or_keep(&entry.record.encoded_name)
            .map_err(from_storage);
        if closed.is_err() {
            // Its flush failed (a full disk): it stays open here and serves again.
            let mut catalog = self.catalog.write();
            if let Some(table_entry) = table_entry {
                let table = catalog
                    .tables
                    .entry(entry.record.table.clone())
                    .or_insert(table_entry);
                table
                    .regions
                    .insert(entry.record.start_key.clone(), entry.clone());
            }
        }
        closed
    }

    /// The regions open here (or FAILED_OPEN here).
    pub fn hosted(&self) -> Vec<Hosted> {
        let catalog = self.catalog.read();
        catalog
            .tables
            .values()
            .flat_map(|t| t.regions.values())
            .map(|e| Hosted {
                record: e.record.clone(),
                region: e.region.clone(),
                failure: e.failure.as_ref().map(|f| f.cause.clone()),
            })
            .collect()
    }

    fn hosted_entry(&self, encoded: &str) -> Option<RegionEntry> {
        let catalog = self.catalog.read();
        catalog
            .tables
            .values()
            .flat_map(|t| t.regions.values())
            .find(|e| e.record.encoded_name == encoded)
            .cloned()
    }

    fn hosted_region(&self, encoded: &str) -> Result<(RegionEntry, Arc<basalt_storage::Region>)> {
        let entry = self
            .hosted_entry(encoded)
            .ok_or_else(|| not_serving(&format!("region {encoded} is not open on this server")))?;
        match entry.region.clone() {
            Some(region) => Ok((entry, region)),
            None => Err(not_serving(&format!(
                "region {encoded} failed to open here"
            ))),
        }
    }

    /// Whether the region `encoded` (open here) still refers to another region's files.
    pub fn host_has_references(&self, encoded: &str) -> Result<bool> {
        Ok(self.hosted_region(encoded)?.1.has_references())
    }

    /// Where `parent` would split by itself (its midpoint), if it has one.
    pub fn host_split_point(&self, encoded: &str) -> Result<Option<bytes::Bytes>> {
        Ok(self.hosted_region(encoded)?.1.split_point())
    }

    /// Writes the daughters of `parent` (open here) cut at `split_key`: the parent is
    /// flushed and stops taking writes; the daughters' folders refer to its files. Nothing
    /// is committed: the master commits the split, then opens the daughters and closes
    /// the parent — or calls [`Database::host_abort_split`].
    pub fn host_write_split(
        &self,
        parent: &str,
        split_key: &[u8],
        bottom: &RegionRecord,
        top: &RegionRecord,
    ) -> Result<()> {
        self.require_host()?;
        let _ddl = self.ddl.write();
        let (entry, region) = self.hosted_region(parent)?;
        let descriptor = region.table().as_ref().clone();
        let (bottom_dir, top_dir) = (
            self.region_dir(&descriptor, bottom),
            self.region_dir(&descriptor, top),
        );
        if let Err(e) = region.write_split(split_key, &bottom_dir, &top_dir) {
            for dir in [&bottom_dir, &top_dir] {
                self.remove_store_folder(dir)?;
            }
            region.abort_split();
            return Err(from_storage(e));
        }
        let fs = self.engine.context().fs.clone();
        for (dir, record) in [(&bottom_dir, bottom), (&top_dir, top)] {
            crate::meta::folder_info::ensure_region_info_on(fs.as_ref(), dir, record, &descriptor);
        }
        tracing::info!(region = %entry.record.region_name(), "daughters written; waiting for the master's commit");
        Ok(())
    }

    /// Undoes [`Database::host_write_split`] before a commit: removes the daughters'
    /// folders and lets the parent take writes again.
    pub fn host_abort_split(
        &self,
        parent: &str,
        bottom: &RegionRecord,
        top: &RegionRecord,
    ) -> Result<()> {
        let _ddl = self.ddl.write();
        let (_, region) = self.hosted_region(parent)?;
        let descriptor = region.table().as_ref().clone();
        for record in [bottom, top] {
            self.remove_store_folder(&self.region_dir(&descriptor, record))?;
        }
        region.abort_split();
        Ok(())
    }

    /// Writes the region `merged` of two adjacent regions open here; as a split, nothing
    /// is committed.
    pub fn host_write_merge(&self, low: &str, high: &str, merged: &RegionRecord) -> Result<()> {
        self.require_host()?;
        let _ddl = self.ddl.write();
        let (_, low_region) = self.hosted_region(low)?;
        let (_, high_region) = self.hosted_region(high)?;
        let descriptor = low_region.table().as_ref().clone();
        let dir = self.region_dir(&descriptor, merged);
        if let Err(e) = basalt_storage::region::merge::write_merge(&low_region, &high_region, &dir)
        {
            self.remove_store_folder(&dir)?;
            low_region.abort_split();
            high_region.abort_split();
            return Err(from_storage(e));
        }
        let fs = self.engine.context().fs.clone();
        crate::meta::folder_info::ensure_region_info_on(fs.as_ref(), &dir, merged, &descriptor);
        Ok(())
    }

    /// Undoes [`Database::host_write_merge`] before a commit: removes the merged region's
    /// folder and lets both regions take writes again. Either region may be gone already
    /// (closed, or never opened here after a restart): then there is nothing to let go.
    pub fn host_abort_merge(&self, low: &str, high: &str, merged: &RegionRecord) -> Result<()> {
        let _ddl = self.ddl.write();
        let hosted = [low, high].map(|name| self.hosted_region(name).ok());
        if let Some((_, region)) = hosted.iter().flatten().next() {
            let descriptor = region.table().as_ref().clone();
            self.remove_store_folder(&self.region_dir(&descriptor, merged))?;
        }
        for (_, region) in hosted.iter().flatten() {
            region.abort_split();
        }
        Ok(())
    }

    /// Removes the folder of a split or merge that did not happen (nothing refers to it),
    /// on the store the engine writes to: explicit and logged.
    fn remove_store_folder(&self, dir: &std::path::Path) -> Result<()> {
        tracing::info!(folder = %dir.display(), "removing the folder of an abandoned split or merge");
        match self.engine.context().fs.remove_dir_all(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(crate::error::io(format!(
                "cannot remove {}: {e}",
                dir.display()
            ))),
            _ => Ok(()),
        }
    }

    /// A retired region (split or merged away and closed) never replays its log again.
    pub fn host_retire(&self, record: &RegionRecord) {
        self.retire_in_log(record);
    }
}

impl Database {
    /// Stops serving every region at once, without flushing or closing (the lease is lost:
    /// another server may be opening them). Requests then answer NotServingRegion.
    pub fn stop_serving(&self) {
        let mut catalog = self.catalog.write();
        catalog.tables.clear();
    }
}

/// A database's catalog as plain data, for moving it elsewhere (`basalt migrate`).
#[derive(Debug, Clone, Default)]
pub struct CatalogExport {
    pub namespaces: Vec<basalt_types::NamespaceDescriptor>,
    /// User tables: descriptor and whether enabled.
    pub tables: Vec<(TableDescriptor, bool)>,
    /// Every region record of the user tables, serving and retired (split or merged
    /// parents still referred to), with its folder.
    pub regions: Vec<(RegionRecord, std::path::PathBuf)>,
}

impl Database {
    /// The catalog of user tables, as plain data (nothing of `hbase:meta`).
    pub fn export_catalog(&self) -> Result<CatalogExport> {
        let catalog = self.catalog.read();
        catalog.require_meta()?;
        let mut export = CatalogExport {
            namespaces: catalog.namespaces.values().cloned().collect(),
            ..CatalogExport::default()
        };
        for (name, table) in &catalog.tables {
            if name.is_system() {
                continue;
            }
            export
                .tables
                .push((table.descriptor.as_ref().clone(), table.enabled));
            for record in table
                .regions
                .values()
                .map(|e| &e.record)
                .chain(table.retired.iter())
            {
                let dir = self.region_dir(&table.descriptor, record);
                export.regions.push((record.clone(), dir));
            }
        }
        Ok(export)
    }
}
