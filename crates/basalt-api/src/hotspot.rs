//! Hot-spot detection, a pure decision: given each region's writes over a window (in key
//! order) and the sample of rows its writes touched, which regions are hot, which idle,
//! and the likely cause, with the schema remedies for it.
//!
//! - A region is *hot* when it takes at least [`HotspotConfig::region_share`] of the
//!   table's writes and at least one and a half times its even share, or when it is the only region
//!   written while the table has several.
//! - Its cause: a *hot row* when one sampled row takes at least
//!   [`HotspotConfig::hot_row_share`] of its sampled writes; *monotonic* keys when at least
//!   [`HotspotConfig::ascending_share`] of its sampled writes were above every earlier row
//!   of their key prefix (timestamps: the top of the last region; `tenant|ts`: the top of
//!   each tenant's range), or, with too small a sample, when it is the table's last region;
//!   a *lumpy split* when other regions had no writes at all; else *uneven keys*.
//! - Regions with no writes are flagged together (a lumpy split) unless a hot region's
//!   monotonic keys or hot row already explain them.
//!
//! Below [`HotspotConfig::min_writes`] writes in the window nothing is judged.

use bytes::Bytes;

/// Thresholds; the defaults suit a window of a minute or so.
#[derive(Debug, Clone, PartialEq)]
pub struct HotspotConfig {
    pub region_share: f64,
    pub min_writes: u64,
    pub hot_row_share: f64,
    pub ascending_share: f64,
    /// Sampled writes needed before the sample is trusted.
    pub min_sampled: u64,
}

impl Default for HotspotConfig {
    fn default() -> Self {
        Self {
            region_share: 0.5,
            min_writes: 200,
            hot_row_share: 0.3,
            ascending_share: 0.8,
            min_sampled: 20,
        }
    }
}

/// One region's writes over the window, and its sample of written rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionWrites {
    pub encoded_name: String,
    pub start_key: Bytes,
    /// Empty for the table's last region.
    pub end_key: Bytes,
    pub writes: u64,
    pub sampled_writes: u64,
    pub ascending_writes: u64,
    /// The most written sampled rows, largest first, with their sampled counts.
    pub hot_rows: Vec<(Bytes, u64)>,
}

/// Why writes are uneven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    Monotonic,
    HotRow { row: Bytes, percent: u32 },
    LumpySplit,
    Uneven,
}

/// A schema remedy, as the table page's remedies section names and anchors it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    Salting,
    Hashing,
    Reversing,
    PreSplitByDistribution,
}

/// What detection flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    HotRegion {
        encoded_name: String,
        start_key: Bytes,
        percent: u32,
        cause: Cause,
    },
    IdleRegions {
        idle: usize,
        regions: usize,
    },
}

impl Cause {
    /// The short name shown and exported as a metric label.
    pub fn name(&self) -> &'static str {
        match self {
            Cause::Monotonic => "monotonic",
            Cause::HotRow { .. } => "hot row",
            Cause::LumpySplit => "lumpy split",
            Cause::Uneven => "uneven keys",
        }
    }

    pub fn remedies(&self) -> &'static [Remedy] {
        match self {
            Cause::Monotonic => &[Remedy::Salting, Remedy::Hashing, Remedy::Reversing],
            Cause::HotRow { .. } => &[Remedy::Salting],
            Cause::LumpySplit | Cause::Uneven => &[Remedy::PreSplitByDistribution],
        }
    }
}

impl Remedy {
    pub fn name(self) -> &'static str {
        match self {
            Remedy::Salting => "salting",
            Remedy::Hashing => "hashing",
            Remedy::Reversing => "reversing",
            Remedy::PreSplitByDistribution => "pre-splitting by the key distribution",
        }
    }

    /// The anchor of its entry in the table page's remedies section.
    pub fn anchor(self) -> &'static str {
        match self {
            Remedy::Salting => "remedy-salting",
            Remedy::Hashing => "remedy-hashing",
            Remedy::Reversing => "remedy-reversing",
            Remedy::PreSplitByDistribution => "remedy-presplit",
        }
    }
}

impl Finding {
    pub fn cause(&self) -> Cause {
        match self {
            Finding::HotRegion { cause, .. } => cause.clone(),
            Finding::IdleRegions { .. } => Cause::LumpySplit,
        }
    }

    /// One line, as the shell, the log and the page say it; keys in `key`'s form.
    pub fn describe(&self, key: impl Fn(&[u8]) -> String) -> String {
        match self {
            Finding::HotRegion {
                encoded_name,
                start_key,
                percent,
                cause,
            } => {
                let why = match cause {
                    Cause::Monotonic => {
                        "monotonic keys: writes land at the top of its key range".to_string()
                    }
                    Cause::HotRow { row, percent } => {
                        format!("hot row: '{}' takes {percent}% of its writes", key(row))
                    }
                    Cause::LumpySplit => "lumpy split: other regions get no writes".to_string(),
                    Cause::Uneven => "uneven keys".to_string(),
                };
                format!(
                    "hot region {encoded_name} (start '{}') takes {percent}% of writes; {why}",
                    key(start_key)
                )
            }
            Finding::IdleRegions { idle, regions } => format!(
                "{idle} of {regions} regions get no writes; lumpy split: the split points \
                 miss the keys written"
            ),
        }
    }
}

/// The findings for one table's regions (in key order).
pub fn detect(regions: &[RegionWrites], config: &HotspotConfig) -> Vec<Finding> {
    let total: u64 = regions.iter().map(|r| r.writes).sum();
    if regions.len() < 2 || total < config.min_writes.max(1) {
        return Vec::new();
    }
    let n = regions.len() as f64;
    let written = regions.iter().filter(|r| r.writes > 0).count();
    let idle = regions.len() - written;
    let mut findings = Vec::new();
    let mut explained = false;
    for region in regions {
        let share = region.writes as f64 / total as f64;
        let hot = (share >= config.region_share && share * n >= 1.5) || written == 1;
        if !hot || region.writes == 0 {
            continue;
        }
        let cause = cause_of(region, idle, config);
        explained |= matches!(cause, Cause::Monotonic | Cause::HotRow { .. });
        findings.push(Finding::HotRegion {
            encoded_name: region.encoded_name.clone(),
            start_key: region.start_key.clone(),
            percent: percent(share),
            cause,
        });
    }
    if idle > 0 && !explained {
        findings.push(Finding::IdleRegions {
            idle,
            regions: regions.len(),
        });
    }
    findings
}

fn cause_of(region: &RegionWrites, idle: usize, config: &HotspotConfig) -> Cause {
    let sampled = region.sampled_writes;
    if sampled >= config.min_sampled {
        if let Some((row, count)) = region.hot_rows.first() {
            let share = *count as f64 / sampled as f64;
            if share >= config.hot_row_share {
                return Cause::HotRow {
                    row: row.clone(),
                    percent: percent(share),
                };
            }
        }
        if region.ascending_writes as f64 >= config.ascending_share * sampled as f64 {
            return Cause::Monotonic;
        }
    } else if region.end_key.is_empty() {
        return Cause::Monotonic;
    }
    if idle > 0 {
        Cause::LumpySplit
    } else {
        Cause::Uneven
    }
}

fn percent(share: f64) -> u32 {
    (share * 100.0).round().clamp(0.0, 100.0) as u32
}
