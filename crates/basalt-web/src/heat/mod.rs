//! Hot-spot views: per-region rates over time, the table page's heat map, hot-spot flags
//! and their metrics.
//!
//! A sampler thread ([`sampler`]) reads every region's cumulative counters (reads, writes,
//! scanned cells and bytes, sampled and ascending writes: counters the write and read
//! paths already keep; on a master, from every live region server's report) every [`HeatConfig::sample_interval_ms`] and records what changed in
//! a bounded [`ring::Ring`] (the last [`HeatConfig::history_secs`], at most
//! [`HeatConfig::points_max`] region-samples). Nothing is read per operation; the cost is
//! one report read per interval.
//!
//! # Layout
//! - [`ring`]: the bounded history of per-region deltas.
//! - [`view`]: a table's regions and its rates over the window, as hot-spot detection
//!   (`basalt_api::hotspot`) and the page take them.
//! - [`map`]: the heat map as server-rendered SVG (regions × time, bucketed into at most
//!   [`map::COLUMNS_MAX`] columns), the size and store-file strip under it.
//! - [`metrics`]: top-N regions' rates plus "other", and the hot spots, for `/metrics`.
//! - [`sampler`]: the timer thread, and the rate-limited log of hot spots.
//! - [`servers`]: the load per region server (regions, rates, hot regions), for a master's
//!   page.

pub mod map;
pub mod metrics;
pub mod ring;
pub mod sampler;
pub mod servers;
pub mod view;

use basalt_api::hotspot::HotspotConfig;
use parking_lot::Mutex;
use ring::{RegionReading, Ring};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

/// The `[web.heat]` settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeatConfig {
    /// Whether the sampler runs (off: no heat map, no rates, no hot-spot flags).
    pub enabled: bool,
    /// How often every region's counters are read.
    pub sample_interval_ms: u64,
    /// How much history the heat map keeps.
    pub history_secs: u64,
    /// At most this many region-samples are kept (about 32 bytes each); older samples go
    /// first when a busy server reaches it.
    pub points_max: usize,
    /// Hot spots are judged over this much of the latest history.
    pub window_secs: u64,
    /// Regions exported by name in `/metrics` per rate; the rest are summed as "other".
    pub top_regions: usize,
    /// A region taking at least this share of its table's writes is hot.
    pub region_share_percent: u32,
    /// Below this many writes to a table in the window nothing is judged.
    pub min_writes: u64,
    /// One row taking this share of a region's sampled writes is a hot row.
    pub hot_row_share_percent: u32,
    /// This share of ascending sampled writes means monotonic keys.
    pub ascending_share_percent: u32,
    /// A table's hot spots are logged at most once per this.
    pub log_interval_secs: u64,
}

impl Default for HeatConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            sample_interval_ms: 5000,
            history_secs: 3600,
            points_max: 1_000_000,
            window_secs: 60,
            top_regions: 10,
            region_share_percent: 50,
            min_writes: 200,
            hot_row_share_percent: 30,
            ascending_share_percent: 80,
            log_interval_secs: 300,
        }
    }
}

impl HeatConfig {
    pub fn hotspot(&self) -> HotspotConfig {
        HotspotConfig {
            region_share: f64::from(self.region_share_percent) / 100.0,
            min_writes: self.min_writes,
            hot_row_share: f64::from(self.hot_row_share_percent) / 100.0,
            ascending_share: f64::from(self.ascending_share_percent) / 100.0,
            ..HotspotConfig::default()
        }
    }
}

/// The sampled history and what was last logged.
#[derive(Debug)]
pub struct Heat {
    pub config: HeatConfig,
    ring: Mutex<Ring>,
    /// When each table's hot spots were last logged.
    logged: Mutex<HashMap<String, SystemTime>>,
}

impl Heat {
    pub fn new(config: HeatConfig) -> Self {
        let ring = Ring::new(Duration::from_secs(config.history_secs), config.points_max);
        Self {
            config,
            ring: Mutex::new(ring),
            logged: Mutex::new(HashMap::new()),
        }
    }

    /// Records one sample of every region's counters.
    pub fn record(&self, at: SystemTime, readings: Vec<RegionReading>) {
        self.ring.lock().record(at, readings);
    }

    /// Reads the ring under its lock.
    pub fn with_ring<T>(&self, f: impl FnOnce(&Ring) -> T) -> T {
        f(&self.ring.lock())
    }

    /// Whether `table`'s hot spots may be logged at `now` (then not again for the log
    /// interval).
    fn may_log(&self, table: &str, now: SystemTime) -> bool {
        let mut logged = self.logged.lock();
        let interval = Duration::from_secs(self.config.log_interval_secs);
        let due = logged
            .get(table)
            .is_none_or(|last| now.duration_since(*last).is_ok_and(|d| d >= interval));
        if due {
            logged.insert(table.to_string(), now);
        }
        due
    }
}
