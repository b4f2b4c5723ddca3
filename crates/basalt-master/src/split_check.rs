//! Automatic splits in a cluster: the master looks at the region servers' reports every
//! `split_check_period` and splits each region whose files passed HBase's stepping policy
//! (`basalt_db::split::policy`, counted over the table's regions in the whole cluster).
//! The split itself is the one `split` runs: the region's server writes the daughters, the
//! master commits. The same pass runs the catalog janitor ([`crate::janitor`]).

use crate::catalog::AssignState;
use crate::master::Master;
use basalt_api::RegionReport;
use basalt_db::split::policy::split_threshold_bytes;
use std::collections::BTreeMap;
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

    /// One pass of the automatic split check.
    pub async fn check_splits(self: &Arc<Self>) {
        if !self.is_active() {
            return;
        }
        let reports: Vec<RegionReport> = self
            .reports()
            .await
            .into_values()
            .flat_map(|r| r.regions)
            .filter_map(|r| RegionReport::try_from(r).ok())
            .collect();
        for region in self.split_candidates(&reports) {
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
    }
}
