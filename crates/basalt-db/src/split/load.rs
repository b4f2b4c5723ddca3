//! Load-based splits in the embedded database: at each pass of the split checker, the
//! regions of every table with `LOAD_SPLIT_ENABLED => 'true'` are read (writes, sampled
//! rows, load median) and judged by [`basalt_api::load_split`]; a region that stayed hot is
//! split at its load median. A cluster's master (and standalone's) does the same from its
//! region servers' reports (`basalt_master::split_check`).

use crate::database::Database;
use basalt_api::load_split::{self, LoadSplitConfig, LoadSplitTracker, RegionLoad, Verdict};
use basalt_storage::region::load::LoadReport;
use basalt_types::TableName;
use bytes::Bytes;

/// A region as the decision reads it, from its write counter and its load report.
pub fn region_load(
    encoded_name: &str,
    start_key: &Bytes,
    end_key: &Bytes,
    writes: u64,
    load: LoadReport,
) -> RegionLoad {
    RegionLoad {
        encoded_name: encoded_name.to_string(),
        start_key: start_key.clone(),
        end_key: end_key.clone(),
        writes,
        sampled_writes: load.sampled_writes,
        top_row_count: load.hot_rows.first().map_or(0, |(_, n)| *n),
        load_median: load.load_median,
    }
}

/// The regions to split for their load now: (table, region start key, split key).
pub fn candidates(db: &Database, tracker: &mut LoadSplitTracker) -> Vec<(TableName, Bytes, Bytes)> {
    let mut starts = std::collections::HashMap::new();
    let tables: Vec<Vec<RegionLoad>> = {
        let catalog = db.catalog.read();
        catalog
            .tables
            .values()
            .filter(|t| t.enabled && t.descriptor.split_enabled && !t.descriptor.name.is_system())
            .filter(|t| load_split::enabled(&t.descriptor.metadata))
            .map(|t| {
                t.regions
                    .values()
                    .filter_map(|e| {
                        let region = e.region.as_ref()?;
                        let r = &e.record;
                        starts.insert(
                            r.encoded_name.clone(),
                            (
                                t.descriptor.name.clone(),
                                r.start_key.clone(),
                                region.has_references(),
                            ),
                        );
                        let writes = region.metrics().write_requests;
                        Some(region_load(
                            &r.encoded_name,
                            &r.start_key,
                            &r.end_key,
                            writes,
                            region.load(),
                        ))
                    })
                    .collect()
            })
            .collect()
    };
    let verdicts = tracker.check(&tables, &LoadSplitConfig::default());
    verdicts
        .into_iter()
        .filter_map(|(encoded, verdict)| match verdict {
            Verdict::Split(key) => {
                let (table, start, references) = starts.remove(&encoded)?;
                // Daughters still reading their parent's files split once compacted.
                (!references).then_some((table, start, key))
            }
            Verdict::HotRow | Verdict::MedianAtEdge | Verdict::NoMedian => {
                tracing::debug!(region = %encoded, ?verdict, "hot, but not split for its load");
                None
            }
            _ => None,
        })
        .collect()
}
