//! Automatic splits in a cluster: the master looks at the region servers' reports every
//! `split_check_period` and splits each region whose files passed HBase's stepping policy
//! (`basalt_db::split::policy`, counted over the table's regions in the whole cluster).
//! The split itself is the one `split` runs: the region's server writes the daughters, the
//! master commits. The same pass runs the catalog janitor ([`crate::janitor`]) and
//! releases the logs of recovered regions that flushed ([`crate::recovered_flush`]).
//!
//! Tables with `LOAD_SPLIT_ENABLED => 'true'` also split for their load: the reports'
//! write counters and load medians go through [`basalt_api::load_split`], and a region
//! that stayed hot is split at its load median.

use crate::catalog::AssignState;
use crate::master::Master;
use basalt_api::load_split::{self, LoadSplitConfig, RegionLoad, Verdict};
use basalt_api::RegionReport;
use basalt_db::split::policy::split_threshold_bytes;
use basalt_proto::pb;
use bytes::Bytes;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

impl Master {
    /// The regions to split now: (encoded name, table), from the servers' reports.
    fn split_candidates(&self, reports: &[RegionReport]) -> Vec<String> {
        let catalog = self.catalog.read();
        let mut per_table: BTreeMap<&basalt_types::TableName, usize> = BTreeMap::new();
        for region in catalog.regions.values().filter(|r| r.is_serving()) {
            *per_table.entry(&region.table).or_insert(0) += 1;
        }
        reports
            .iter()
            .filter(|r| !r.table.is_system())
            .filter(|r| catalog.assignment(&r.encoded_name).state == AssignState::Open)
            .filter_map(|r| {
                let table = catalog.tables.get(&r.table)?;
                if !table.enabled || !table.descriptor.split_enabled {
                    return None;
                }
                let regions = per_table.get(&r.table).copied().unwrap_or(1);
                let threshold = split_threshold_bytes(
                    &table.descriptor,
                    table.descriptor.memstore_flush_size_bytes,
                    regions,
                );
                (r.store_file_bytes > threshold).then(|| r.encoded_name.clone())
            })
            .collect()
    }

    /// The regions of load-split tables to split for their load now: (encoded name, key).
    fn load_split_candidates(
        &self,
        reports: &[RegionReport],
        loads: Vec<pb::RegionLoad>,
    ) -> Vec<(String, Bytes)> {
        let mut loads: HashMap<String, pb::RegionLoad> = loads
            .into_iter()
            .map(|l| (l.encoded_name.clone(), l))
            .collect();
        let tables: Vec<Vec<RegionLoad>> = {
            let catalog = self.catalog.read();
            let mut per_table: BTreeMap<&basalt_types::TableName, Vec<RegionLoad>> =
                BTreeMap::new();
            for r in reports.iter().filter(|r| !r.table.is_system()) {
                let Some(table) = catalog.tables.get(&r.table) else {
                    continue;
                };
                let open = catalog.assignment(&r.encoded_name).state == AssignState::Open;
                if !open || !table.enabled || !table.descriptor.split_enabled {
                    continue;
                }
                if !load_split::enabled(&table.descriptor.metadata) {
                    continue;
                }
                let load = loads.remove(&r.encoded_name).unwrap_or_default();
                per_table.entry(&r.table).or_default().push(RegionLoad {
                    encoded_name: r.encoded_name.clone(),
                    start_key: r.start_key.clone(),
                    end_key: r.end_key.clone(),
                    writes: r.write_requests,
                    sampled_writes: load.sampled_writes,
                    top_row_count: load.hot_rows.first().map_or(0, |h| h.count),
                    load_median: Some(load.load_median).filter(|m| !m.is_empty()),
                });
            }
            per_table.into_values().collect()
        };
        let verdicts = self
            .load_split
            .lock()
            .check(&tables, &LoadSplitConfig::default());
        verdicts
            .into_iter()
            .filter_map(|(region, verdict)| match verdict {
                Verdict::Split(key) => Some((region, key)),
                Verdict::HotRow | Verdict::MedianAtEdge | Verdict::NoMedian => {
                    tracing::debug!(region = %region, ?verdict, "hot, but not split for its load");
                    None
                }
                _ => None,
            })
            .collect()
    }

    /// One pass of the automatic split check.
    pub async fn check_splits(self: &Arc<Self>) {
        if !self.is_active() {
            return;
        }
        let all = self.reports().await;
        self.release_flushed_recoveries(&all).await;
        let reports: Vec<RegionReport> = all
            .values()
            .flat_map(|r| r.regions.clone())
            .filter_map(|r| RegionReport::try_from(r).ok())
            .collect();
        let loads: Vec<pb::RegionLoad> = all.values().flat_map(|r| r.loads.clone()).collect();
        let sized = self.split_candidates(&reports);
        let by_load: Vec<(String, Bytes)> = self
            .load_split_candidates(&reports, loads)
            .into_iter()
            .filter(|(region, _)| !sized.contains(region))
            .collect();
        for (region, key) in by_load {
            match self.split_region(&region, Some(key.clone())).await {
                Ok(true) => {
                    tracing::info!(region = %region, split_key = ?key, "split for its load at its load median")
                }
                Ok(false) => {}
                Err(e) if e.message.contains("references") => {
                    tracing::debug!(region = %region, "not split for its load yet: {e}")
                }
                Err(e) => tracing::warn!(region = %region, error = %e, "load-based split failed"),
            }
        }
        for region in sized {
            match self.split_region(&region, None).await {
                Ok(true) => {
                    tracing::info!(region = %region, "split automatically: its files passed the split size")
                }
                Ok(false) => {}
                // Daughters still referring to their parent's files split once compacted.
                Err(e) if e.message.contains("references") => {
                    tracing::debug!(region = %region, "not split yet: {e}")
                }
                Err(e) => tracing::warn!(region = %region, error = %e, "automatic split failed"),
            }
        }
        if let Err(e) = self.run_janitor().await {
            tracing::warn!(error = %e, "catalog janitor failed");
        }
        if let Err(e) = self.expire_snapshots().await {
            tracing::warn!(error = %e, "snapshot cleaner failed");
        }
        if let Err(e) = self.clean_archive().await {
            tracing::warn!(error = %e, "archive cleaner failed");
        }
        if let Err(e) = self.expire_kept_logs() {
            tracing::warn!(error = %e, "kept logs' expiry failed");
        }
    }
}
