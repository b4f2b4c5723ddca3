//! The bounded history of per-region rates: every sample keeps, for each region that did
//! something since the previous one, what it did (reads, writes, scanned cells and bytes,
//! sampled and ascending writes). Samples older than the history, or past the point budget
//! (regions × samples), are dropped oldest first; a region's description is kept while
//! any kept sample names it, so a split parent's past still lands in the right columns.

use basalt_storage::region::load::LoadReport;
use basalt_types::TableName;
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, SystemTime};

/// One region's cumulative counters as read at one sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionReading {
    pub table: TableName,
    pub encoded_name: String,
    pub start_key: Bytes,
    pub end_key: Bytes,
    pub reads: u64,
    pub writes: u64,
    pub store_files: usize,
    pub size_bytes: u64,
    pub load: LoadReport,
    /// The server holding it (`host,port,startcode`; empty in an embedded database).
    pub server: String,
}

impl RegionReading {
    /// `encoded_name` of `table`, with every counter zero and empty keys.
    pub fn new(table: TableName, encoded_name: &str) -> Self {
        Self {
            table,
            encoded_name: encoded_name.to_string(),
            start_key: Bytes::new(),
            end_key: Bytes::new(),
            reads: 0,
            writes: 0,
            store_files: 0,
            size_bytes: 0,
            load: LoadReport::default(),
            server: String::new(),
        }
    }
}

/// What one region did between two samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delta {
    pub id: u32,
    pub reads: u32,
    pub writes: u32,
    pub cells: u32,
    pub bytes: u64,
    pub sampled: u32,
    pub ascending: u32,
}

/// One sample: when, how long since the previous, and the regions that did something.
#[derive(Debug, Clone)]
pub struct Sample {
    pub at: SystemTime,
    pub secs: f64,
    pub deltas: Vec<Delta>,
}

/// A region as last read, and the sample that last named it.
#[derive(Debug, Clone)]
pub struct RegionEntry {
    pub id: u32,
    pub reading: RegionReading,
    /// Whether the latest sample read it (it still exists here).
    pub current: bool,
    last_sample: u64,
}

#[derive(Debug)]
pub struct Ring {
    history: Duration,
    points_max: usize,
    samples: VecDeque<Sample>,
    points: usize,
    /// Samples ever taken; the front of `samples` is number `taken - samples.len()`.
    taken: u64,
    regions: HashMap<String, RegionEntry>,
    next_id: u32,
    last_at: Option<SystemTime>,
}

impl Ring {
    pub fn new(history: Duration, points_max: usize) -> Self {
        Self {
            history,
            points_max: points_max.max(1),
            samples: VecDeque::new(),
            points: 0,
            taken: 0,
            regions: HashMap::new(),
            next_id: 0,
            last_at: None,
        }
    }

    /// Records the readings taken at `at`: their differences from the previous readings
    /// (a region read for the first time, or whose counters went back, as after a
    /// reopen, counts from zero at its first reading).
    pub fn record(&mut self, at: SystemTime, readings: Vec<RegionReading>) {
        let secs = self
            .last_at
            .and_then(|last| at.duration_since(last).ok())
            .map_or(0.0, |d| d.as_secs_f64());
        let first = self.last_at.is_none();
        self.last_at = Some(at);
        for entry in self.regions.values_mut() {
            entry.current = false;
        }
        let mut deltas = Vec::new();
        for reading in readings {
            let delta = match self.regions.get_mut(&reading.encoded_name) {
                Some(entry) => {
                    let d = delta(entry.id, &entry.reading, &reading);
                    entry.reading = reading;
                    entry.current = true;
                    entry.last_sample = self.taken;
                    d
                }
                None => {
                    let id = self.next_id;
                    self.next_id = self.next_id.wrapping_add(1);
                    let d = if first {
                        Delta::default()
                    } else {
                        delta(id, &RegionReading::new(reading.table.clone(), ""), &reading)
                    };
                    let entry = RegionEntry {
                        id,
                        reading,
                        current: true,
                        last_sample: self.taken,
                    };
                    self.regions
                        .insert(entry.reading.encoded_name.clone(), entry);
                    Delta { id, ..d }
                }
            };
            if delta
                != (Delta {
                    id: delta.id,
                    ..Delta::default()
                })
            {
                deltas.push(delta);
            }
        }
        self.points += deltas.len();
        self.samples.push_back(Sample { at, secs, deltas });
        self.taken += 1;
        self.trim(at);
    }

    fn trim(&mut self, now: SystemTime) {
        while let Some(front) = self.samples.front() {
            let old = now
                .duration_since(front.at)
                .is_ok_and(|age| age > self.history);
            if !(old || self.points > self.points_max) || self.samples.len() == 1 {
                break;
            }
            self.points -= front.deltas.len();
            self.samples.pop_front();
        }
        let oldest = self.taken - self.samples.len() as u64;
        self.regions
            .retain(|_, e| e.current || e.last_sample >= oldest);
    }

    pub fn samples(&self) -> &VecDeque<Sample> {
        &self.samples
    }

    /// Regions kept, current or named by a kept sample.
    pub fn regions(&self) -> impl Iterator<Item = &RegionEntry> {
        self.regions.values()
    }

    /// Deltas kept over all samples (bounded by the point budget).
    pub fn points(&self) -> usize {
        self.points
    }
}

fn delta(id: u32, before: &RegionReading, now: &RegionReading) -> Delta {
    fn d(before: u64, now: u64) -> u64 {
        if now >= before {
            now - before
        } else {
            now
        }
    }
    let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    Delta {
        id,
        reads: narrow(d(before.reads, now.reads)),
        writes: narrow(d(before.writes, now.writes)),
        cells: narrow(d(before.load.scanned_cells, now.load.scanned_cells)),
        bytes: d(before.load.scanned_bytes, now.load.scanned_bytes),
        sampled: narrow(d(before.load.sampled_writes, now.load.sampled_writes)),
        ascending: narrow(d(before.load.ascending_writes, now.load.ascending_writes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(name: &str, writes: u64) -> RegionReading {
        RegionReading {
            writes,
            ..RegionReading::new(TableName::parse("t").expect("valid"), name)
        }
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn samples_keep_what_each_region_did_since_the_last() {
        let mut ring = Ring::new(Duration::from_secs(3600), 1000);
        ring.record(at(0), vec![reading("a", 100), reading("b", 5)]);
        ring.record(at(5), vec![reading("a", 150), reading("b", 5)]);
        let last = ring.samples().back().expect("valid");
        assert_eq!(last.secs, 5.0);
        assert_eq!(last.deltas.len(), 1, "an idle region adds no point");
        assert_eq!(last.deltas[0].writes, 50);
        assert!(
            ring.samples()[0].deltas.is_empty(),
            "the first reading is the baseline"
        );
    }

    #[test]
    fn a_reopened_region_counts_from_zero() {
        let mut ring = Ring::new(Duration::from_secs(3600), 1000);
        ring.record(at(0), vec![reading("a", 100)]);
        ring.record(at(5), vec![reading("a", 7)]);
        assert_eq!(ring.samples().back().expect("valid").deltas[0].writes, 7);
    }

    #[test]
    fn history_and_point_budget_bound_the_ring() {
        let mut ring = Ring::new(Duration::from_secs(60), 25);
        for i in 0..100u64 {
            let readings = (0..10).map(|r| reading(&format!("r{r}"), i * 10)).collect();
            ring.record(at(i * 5), readings);
        }
        assert!(ring.points() <= 25, "{} points", ring.points());
        assert!(ring.samples().len() <= 13);
    }

    #[test]
    fn a_gone_region_is_forgotten_once_no_sample_names_it() {
        let mut ring = Ring::new(Duration::from_secs(10), 1000);
        ring.record(at(0), vec![reading("parent", 0)]);
        ring.record(at(5), vec![reading("parent", 10)]);
        ring.record(at(10), vec![reading("low", 1), reading("high", 1)]);
        assert!(ring.regions().any(|r| r.reading.encoded_name == "parent"));
        for t in [15, 20, 25] {
            ring.record(at(t), vec![reading("low", t), reading("high", 1)]);
        }
        assert!(!ring.regions().any(|r| r.reading.encoded_name == "parent"));
    }
}
