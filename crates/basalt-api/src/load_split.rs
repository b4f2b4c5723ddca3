//! Load-based split, beyond HBase (Bigtable splits this way): a region of a table with
//! `LOAD_SPLIT_ENABLED => 'true'` that stays hot splits at its *load median*, the median of
//! its recently written rows, rather than at the middle of its files, so each daughter takes
//! about half of the load.
//!
//! A pure decision. The caller (the master's split check on a cluster and in standalone,
//! the embedded database's split checker) keeps one [`LoadSplitTracker`], feeds it every
//! check's cumulative counters of the regions of each load-split table, and carries out the
//! splits it answers. No clock: "sustained" is counted in checks.
//!
//! At each check, from the writes since the previous check:
//!
//! | the region                                                        | verdict            |
//! |-------------------------------------------------------------------|--------------------|
//! | first seen, or its counter went back (it reopened)                | `New`              |
//! | not hot: the table wrote under `min_writes`, or the region took under `region_share` of them (or under 1.5 × its even share) | `Cool` |
//! | hot, at fewer than `sustained_checks` checks in a row              | `Warming(n)`       |
//! | hot long enough, but under `min_sampled` sampled writes or no median | `NoMedian`       |
//! | hot long enough, one row takes `hot_row_share` of its samples      | `HotRow` (a split cannot spread one row) |
//! | hot long enough, the median is its start key or past its end       | `MedianAtEdge`     |
//! | hot long enough                                                   | `Split(median)`    |
//!
//! A table of one region is hot whenever it writes `min_writes` between checks. The
//! daughters of a split are new regions: each must stay hot again before it splits.

use bytes::Bytes;
use std::collections::HashMap;

/// The table attribute (in its metadata, as HBase keeps table attributes it has no field
/// for) that turns load-based split on: `LOAD_SPLIT_ENABLED => 'true'`.
pub const LOAD_SPLIT_ENABLED: &str = "LOAD_SPLIT_ENABLED";

/// Whether a table's metadata turns load-based split on.
pub fn enabled(metadata: &std::collections::BTreeMap<String, String>) -> bool {
    metadata
        .get(LOAD_SPLIT_ENABLED)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Thresholds; the hot-spot ones are those of [`crate::hotspot::HotspotConfig`].
#[derive(Debug, Clone, PartialEq)]
pub struct LoadSplitConfig {
    pub region_share: f64,
    /// Writes to the table between two checks below which nothing is hot.
    pub min_writes: u64,
    pub sustained_checks: u32,
    pub hot_row_share: f64,
    pub min_sampled: u64,
}

impl Default for LoadSplitConfig {
    fn default() -> Self {
        Self {
            region_share: 0.5,
            min_writes: 200,
            sustained_checks: 3,
            hot_row_share: 0.3,
            min_sampled: 16,
        }
    }
}

/// One region's cumulative counters at a check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionLoad {
    pub encoded_name: String,
    pub start_key: Bytes,
    /// Empty for the table's last region.
    pub end_key: Bytes,
    /// Writes since the region opened (one per row).
    pub writes: u64,
    pub sampled_writes: u64,
    /// The sampled count of its most written row.
    pub top_row_count: u64,
    pub load_median: Option<Bytes>,
}

/// What a check decides for one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    New,
    Cool,
    Warming(u32),
    NoMedian,
    HotRow,
    MedianAtEdge,
    Split(Bytes),
}

/// The writes each region had at the previous check, and its hot streak.
#[derive(Debug, Default)]
pub struct LoadSplitTracker {
    regions: HashMap<String, Seen>,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    writes: u64,
    streak: u32,
}

impl LoadSplitTracker {
    /// One check of every load-split table (each a list of its regions): a verdict per
    /// region, (encoded name, verdict), in the order given. Regions not given are forgotten.
    pub fn check(
        &mut self,
        tables: &[Vec<RegionLoad>],
        config: &LoadSplitConfig,
    ) -> Vec<(String, Verdict)> {
        let mut next = HashMap::new();
        let mut verdicts = Vec::new();
        for regions in tables {
            // (writes since the last check, streak then) of the regions seen then.
            let deltas: Vec<Option<(u64, u32)>> = regions
                .iter()
                .map(|r| {
                    let seen = self.regions.get(&r.encoded_name)?;
                    Some((r.writes.checked_sub(seen.writes)?, seen.streak))
                })
                .collect();
            let total: u64 = deltas.iter().flatten().map(|(delta, _)| delta).sum();
            for (region, delta) in regions.iter().zip(deltas) {
                let (streak, verdict) = match delta {
                    None => (0, Verdict::New),
                    Some((delta, before)) => {
                        judge(region, delta, total, regions.len(), before, config)
                    }
                };
                let seen = Seen {
                    writes: region.writes,
                    streak,
                };
                next.insert(region.encoded_name.clone(), seen);
                verdicts.push((region.encoded_name.clone(), verdict));
            }
        }
        self.regions = next;
        verdicts
    }
}

/// A region's new streak and verdict, given its writes and its table's since the last check.
fn judge(
    region: &RegionLoad,
    delta: u64,
    total: u64,
    regions: usize,
    streak: u32,
    config: &LoadSplitConfig,
) -> (u32, Verdict) {
    let share = if total == 0 {
        0.0
    } else {
        delta as f64 / total as f64
    };
    let hot = total >= config.min_writes.max(1)
        && share >= config.region_share
        && (regions == 1 || share * regions as f64 >= 1.5);
    if !hot {
        return (0, Verdict::Cool);
    }
    let streak = streak.saturating_add(1);
    if streak < config.sustained_checks {
        return (streak, Verdict::Warming(streak));
    }
    let median = match &region.load_median {
        Some(m) if region.sampled_writes >= config.min_sampled.max(1) => m,
        _ => return (streak, Verdict::NoMedian),
    };
    if region.top_row_count as f64 >= config.hot_row_share * region.sampled_writes as f64 {
        return (streak, Verdict::HotRow);
    }
    let inside =
        *median > region.start_key && (region.end_key.is_empty() || *median < region.end_key);
    if !inside {
        return (streak, Verdict::MedianAtEdge);
    }
    (streak, Verdict::Split(median.clone()))
}
