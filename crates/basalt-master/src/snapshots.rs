//! Snapshots in a cluster: the master coordinates, the region servers flush, and the files
//! never move. The format and the steps are the embedded database's
//! ([`basalt_db::snapshot`]); what differs is who does each:
//!
//! | step | who |
//! |------|-----|
//! | flush each region (unless `SKIP_FLUSH`); compact one still holding split references | its region server, asked by the master |
//! | read each region's committed manifest on the store, link its files into `.tmp/<name>/` | the master (a file a compaction removed meanwhile: the region is read again) |
//! | write the manifest, rename the folder | the master |
//! | clone: region folders of links written, then HBase's `CreateTableProcedure` | the master, then the servers open them |
//! | restore: region folders of links written, then the truncate procedure's steps with them as the new regions; the table disabled again | the master |
//!
//! On a shared folder the links are the file system's; on an object store they are link
//! objects with back-references, and a file a link names is moved to the store's archive
//! when its table lets it go (`basalt_store::fs::links`). The master runs the archive's
//! cleaner with the snapshot TTL cleaner: an archived file goes once nothing names it.

use crate::catalog::new_record;
use crate::error;
use crate::master::Master;
use crate::table_procs::{TableKind, TableProcedure};
use basalt_api::{ApiError, ErrorKind, Result, SnapshotDescription, SnapshotOptions};
use basalt_db::meta::record::RegionRecord;
use basalt_db::snapshot::lineage::{self, Cause};
use basalt_db::snapshot::manifest::{SnapshotManifest, SnapshotRegion};
use basalt_db::snapshot::{clone as linked, pitr, take};
use basalt_storage::region::shared_files::write_linked_region;
use basalt_types::{TableDescriptor, TableName};
use std::path::Path;
use std::sync::Arc;

/// How many times a region's files are read again when one went before it was linked.
const LINK_ATTEMPTS: usize = 3;

fn check_user_table(name: &TableName) -> Result<()> {
    if name.is_system() {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            error::DO_NOT_RETRY,
            format!("{name} is a system table and cannot be changed"),
        ));
    }
    Ok(())
}

impl Master {
    fn store_root(&self) -> &Path {
        &self.config.store_root
    }

    /// `snapshot 't', 's'`.
    pub async fn snapshot(
        self: &Arc<Self>,
        table: &TableName,
        name: &str,
        options: &SnapshotOptions,
    ) -> Result<()> {
        check_user_table(table)?;
        basalt_db::snapshot::check_name(name)?;
        let _p = self.ddl_lock().await?;
        let (descriptor, enabled) = {
            let catalog = self.catalog.read();
            let t = catalog.table(table)?;
            (t.descriptor.clone(), t.enabled)
        };
        let regions: Vec<_> = self
            .catalog
            .read()
            .serving(table)
            .into_iter()
            .cloned()
            .collect();
        let now = self.now_ms();
        let tmp = take::begin_on(self.fs.as_ref(), self.store_root(), name, now)?;
        let mut taken = Vec::with_capacity(regions.len());
        for record in &regions {
            if enabled && !options.skip_flush {
                self.region_work(vec![record.encoded_name.clone()], None)
                    .await?;
            }
            let dir = self.table_dir(table).join(&record.encoded_name);
            let link_dir = tmp.join(&record.encoded_name);
            let mut attempt = 0;
            let families = loop {
                attempt += 1;
                let read = take::held_closed(self.fs.as_ref(), &dir, &descriptor);
                let read = match read {
                    Err(e) if enabled && e.message.contains("references") => {
                        // The region's server rewrites them into files of its own.
                        self.region_work(vec![record.encoded_name.clone()], Some((None, false)))
                            .await?;
                        take::held_closed(self.fs.as_ref(), &dir, &descriptor)
                    }
                    other => other,
                };
                match read.and_then(|held| take::link_all(self.fs.as_ref(), &link_dir, &held)) {
                    Ok(families) => break families,
                    Err(e) if attempt < LINK_ATTEMPTS && enabled => {
                        tracing::info!(region = %record.encoded_name, error = %e,
                            "a file went before it was linked (a compaction): reading the region again");
                        // Only the links this attempt made.
                        let _ = self.fs.remove_dir_all(&link_dir);
                    }
                    Err(e) => return Err(e),
                }
            };
            taken.push(SnapshotRegion {
                folder: record.encoded_name.clone(),
                start_key: record.start_key.clone(),
                end_key: record.end_key.clone(),
                families,
            });
        }
        let manifest = SnapshotManifest {
            name: name.to_string(),
            table: table.clone(),
            creation_ms: self.now_ms(),
            ttl_secs: options.ttl_secs.filter(|t| *t > 0),
            descriptor,
            regions: taken,
        };
        take::commit_on(self.fs.as_ref(), self.store_root(), &tmp, &manifest)
    }

    pub fn list_snapshots(&self, pattern: Option<&str>) -> Result<Vec<SnapshotDescription>> {
        self.require_active()?;
        basalt_db::snapshot::list_on(self.fs.as_ref(), self.store_root(), pattern)
    }

    pub async fn delete_snapshot(self: &Arc<Self>, name: &str) -> Result<()> {
        let _p = self.ddl_lock().await?;
        basalt_db::snapshot::delete_on(
            self.fs.as_ref(),
            self.store_root(),
            name,
            "deleted by request",
        )
    }

    /// The cleaner: drops the snapshots whose TTL ran out (each logged).
    pub async fn expire_snapshots(self: &Arc<Self>) -> Result<usize> {
        let now = self.now_ms();
        let expired = basalt_db::snapshot::expired_on(self.fs.as_ref(), self.store_root(), now)?;
        if expired.is_empty() {
            return Ok(0);
        }
        let _p = self.ddl_lock().await?;
        for (name, why) in &expired {
            basalt_db::snapshot::delete_on(self.fs.as_ref(), self.store_root(), name, why)?;
        }
        Ok(expired.len())
    }

    /// The archive cleaner (an object store's; a shared folder has none): deletes the
    /// archived store files no snapshot or clone names any more.
    pub async fn clean_archive(self: &Arc<Self>) -> Result<usize> {
        let _p = self.ddl_lock().await?;
        let removed = self
            .fs
            .clean_archive()
            .map_err(|e| basalt_db::error::io(format!("archive cleaner: {e}")))?;
        if removed > 0 {
            tracing::info!(
                files = removed,
                "archive cleaner: files no snapshot or clone names were deleted"
            );
        }
        Ok(removed)
    }

    /// Removes kept log segments (`oldWALs/retained/`) past the longest
    /// `WAL_RETENTION_SECS` of the tables that retain their logs now (none: nothing goes);
    /// see `basalt_storage::wal::expire`. Returns how many went.
    pub fn expire_kept_logs(&self) -> Result<usize> {
        let keep_secs = basalt_db::snapshot::longest_retention(
            self.catalog.read().tables.values().map(|t| &t.descriptor),
        );
        basalt_db::snapshot::expire_kept_logs_on(
            self.fs.as_ref(),
            self.store_root(),
            keep_secs,
            self.now_ms(),
        )
    }

    /// Writes a region folder of links for each of the snapshot's regions, for table
    /// `descriptor`; returns their records.
    fn write_linked_regions(
        &self,
        snapshot: &SnapshotManifest,
        descriptor: &TableDescriptor,
        rolled: Option<&pitr::RolledFiles>,
    ) -> Result<Vec<basalt_db::meta::record::RegionRecord>> {
        let id = self.next_region_id();
        let dir = basalt_db::snapshot::snapshots_dir(self.store_root()).join(&snapshot.name);
        let mut records = Vec::with_capacity(snapshot.regions.len());
        for region in &snapshot.regions {
            let record = new_record(
                &descriptor.name,
                id,
                region.start_key.clone(),
                region.end_key.clone(),
            );
            let mut sources = linked::sources(&dir, region, descriptor);
            if let Some(rolled) = rolled {
                pitr::add_sources(&mut sources, rolled, &region.folder);
            }
            lineage::record_children(
                self.fs.as_ref(),
                self.store_root(),
                descriptor,
                Cause::FromSnapshot,
                &[&record],
                &[],
            )?;
            let region_dir = self.table_dir(&descriptor.name).join(&record.encoded_name);
            write_linked_region(self.fs.as_ref(), &region_dir, &sources)
                .map_err(basalt_db::error::from_storage)?;
            records.push(record);
        }
        Ok(records)
    }

    /// Records the lineage of regions `children` of `table`, made by `cause` from
    /// `parents`, on the store when the table keeps its logs (see
    /// `basalt_db::snapshot::lineage`): before the commit that names them.
    pub(crate) fn record_lineage(
        &self,
        table: &TableName,
        cause: Cause,
        children: &[&RegionRecord],
        parents: &[&RegionRecord],
    ) -> Result<()> {
        let descriptor = self.catalog.read().table(table)?.descriptor.clone();
        lineage::record_children(
            self.fs.as_ref(),
            self.store_root(),
            &descriptor,
            cause,
            children,
            parents,
        )
    }

    /// Records new empty regions (a create's or a truncate's) as a history of their own
    /// when `descriptor` keeps its logs, before the catalog names them.
    pub(crate) fn record_created(
        &self,
        descriptor: &TableDescriptor,
        regions: &[RegionRecord],
    ) -> Result<()> {
        let children: Vec<&RegionRecord> = regions.iter().collect();
        lineage::record_children(
            self.fs.as_ref(),
            self.store_root(),
            descriptor,
            Cause::Created,
            &children,
            &[],
        )
    }

    /// Checks that `snapshot` can be rolled forward to `to_ms` and writes the kept edits
    /// as store files under a staging folder (returned with them).
    fn roll_snapshot_forward(
        &self,
        snapshot: &SnapshotManifest,
        to_ms: i64,
    ) -> Result<(pitr::RolledFiles, std::path::PathBuf)> {
        let table = &snapshot.table;
        let descriptor = self.catalog.read().table(table)?.descriptor.clone();
        let regions: Vec<(String, u64)> = self
            .all_regions(table)
            .into_iter()
            .map(|r| (r.encoded_name, r.region_id))
            .collect();
        let now = self.now_ms();
        let lineage = lineage::read_table_on(self.fs.as_ref(), self.store_root(), table)?;
        let current = Some((&descriptor, regions.as_slice()));
        let generations = pitr::check(snapshot, current, &lineage, to_ms, now)?;
        let staging = pitr::staging_dir(self.store_root(), &snapshot.name, now);
        let (files, _) = pitr::roll_forward(
            self.fs.as_ref(),
            self.store_root(),
            snapshot,
            &generations,
            to_ms,
            &staging,
        )?;
        Ok((files, staging))
    }

    /// `clone_snapshot 's', 'new'`: HBase's `CreateTableProcedure` over region folders of
    /// links.
    pub async fn clone_snapshot(self: &Arc<Self>, name: &str, table: &TableName) -> Result<()> {
        check_user_table(table)?;
        let _p = self.ddl_lock().await?;
        let snapshot = basalt_db::snapshot::read_on(self.fs.as_ref(), self.store_root(), name)?;
        {
            let catalog = self.catalog.read();
            if !catalog.namespaces.contains_key(table.namespace()) {
                return Err(crate::ddl::namespace_not_found(table.namespace()));
            }
            if catalog.tables.contains_key(table) {
                return Err(ApiError::new(
                    ErrorKind::AlreadyExists,
                    error::TABLE_EXISTS,
                    table.to_string(),
                ));
            }
        }
        let mut descriptor = snapshot.descriptor.clone();
        descriptor.name = table.clone();
        let regions = self.write_linked_regions(&snapshot, &descriptor, None)?;
        let id = self.next_region_id().to_string();
        let kind = TableKind::Create { regions };
        self.run_table_procedure(TableProcedure::new(id, descriptor, kind))
            .await?;
        tracing::info!(snapshot = %name, %table, "table cloned from a snapshot");
        Ok(())
    }

    /// `restore_snapshot 's'`: the table must be disabled; its regions are replaced by the
    /// snapshot's (HBase's `RestoreSnapshotProcedure`: the truncate procedure's steps with
    /// the table disabled throughout, and after: nothing opens until it is enabled). With
    /// `to_ms`, the new regions' folders also hold the edits the table's logs kept up to
    /// that time ([`pitr`]), written before the procedure starts.
    pub async fn restore_snapshot(self: &Arc<Self>, name: &str, to_ms: Option<i64>) -> Result<()> {
        let _p = self.ddl_lock().await?;
        let snapshot = basalt_db::snapshot::read_on(self.fs.as_ref(), self.store_root(), name)?;
        let table = snapshot.table.clone();
        check_user_table(&table)?;
        if self.catalog.read().table(&table)?.enabled {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                error::TABLE_NOT_DISABLED,
                format!(
                    "Table '{table}' must be disabled in order to perform a restore \
                     operation."
                ),
            ));
        }
        let old = self
            .all_regions(&table)
            .into_iter()
            .map(|r| r.encoded_name)
            .collect();
        let rolled = match to_ms {
            None => None,
            Some(to_ms) => Some(self.roll_snapshot_forward(&snapshot, to_ms)?),
        };
        let new = self.write_linked_regions(
            &snapshot,
            &snapshot.descriptor,
            rolled.as_ref().map(|r| &r.0),
        )?;
        if let Some((_, staging)) = &rolled {
            pitr::remove_staging(self.fs.as_ref(), staging);
        }
        let id = self.next_region_id().to_string();
        let kind = TableKind::Restore { old, new };
        self.run_table_procedure(TableProcedure::new(id, snapshot.descriptor.clone(), kind))
            .await?;
        tracing::info!(snapshot = %name, %table, "table restored from a snapshot (still disabled)");
        Ok(())
    }
}
