//! One table's part of the ring: its regions now, in key order, and each sample's deltas
//! placed on them (a region gone since, as a split parent, lands on the region now holding
//! its start key); and its writes over the window, as hot-spot detection takes them.

use super::ring::{Delta, RegionReading, Ring};
use super::Heat;
use basalt_api::hotspot::{detect, Finding, RegionWrites};
use basalt_types::TableName;
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

/// One sample on a table's regions: when, its length in seconds, and (region index, delta).
pub type PlacedSample = (SystemTime, f64, Vec<(usize, Delta)>);

/// A table's heat.
#[derive(Debug, Clone, Default)]
pub struct TableView {
    /// The table's regions as last read, by start key.
    pub regions: Vec<RegionReading>,
    /// Per sample, oldest first.
    pub samples: Vec<PlacedSample>,
    /// Per region, its writes over the window and its sample of written rows.
    pub window: Vec<RegionWrites>,
    /// The window's length in seconds (the samples it covers).
    pub window_secs: f64,
}

impl TableView {
    pub fn read(heat: &Heat, table: &TableName) -> TableView {
        let window = Duration::from_secs(heat.config.window_secs);
        heat.with_ring(|ring| build(ring, table, window))
    }

    pub fn findings(&self, heat: &Heat) -> Vec<Finding> {
        detect(&self.window, &heat.config.hotspot())
    }

    /// Whether any sample has been taken since the regions were first read.
    pub fn has_history(&self) -> bool {
        self.samples.len() > 1
    }
}

fn build(ring: &Ring, table: &TableName, window: Duration) -> TableView {
    let mut regions: Vec<RegionReading> = ring
        .regions()
        .filter(|e| e.current && e.reading.table == *table)
        .map(|e| e.reading.clone())
        .collect();
    regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
    let index: HashMap<u32, usize> = ring
        .regions()
        .filter(|e| e.reading.table == *table)
        .map(|e| {
            let i = regions
                .partition_point(|r| r.start_key <= e.reading.start_key)
                .saturating_sub(1);
            (e.id, i)
        })
        .collect();
    let mut view = TableView {
        window: regions
            .iter()
            .map(|r| RegionWrites {
                encoded_name: r.encoded_name.clone(),
                start_key: r.start_key.clone(),
                end_key: r.end_key.clone(),
                hot_rows: r.load.hot_rows.clone(),
                ..RegionWrites::default()
            })
            .collect(),
        regions,
        ..TableView::default()
    };
    if view.regions.is_empty() {
        return view;
    }
    let latest = ring.samples().back().map(|s| s.at);
    for sample in ring.samples() {
        let deltas: Vec<(usize, Delta)> = sample
            .deltas
            .iter()
            .filter_map(|d| index.get(&d.id).map(|i| (*i, *d)))
            .collect();
        let in_window = latest
            .and_then(|l| l.duration_since(sample.at).ok())
            .is_some_and(|age| age < window);
        if in_window {
            view.window_secs += sample.secs;
            for (i, d) in &deltas {
                let w = &mut view.window[*i];
                w.writes += u64::from(d.writes);
                w.sampled_writes += u64::from(d.sampled);
                w.ascending_writes += u64::from(d.ascending);
            }
        }
        view.samples.push((sample.at, sample.secs, deltas));
    }
    view
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heat::HeatConfig;
    use bytes::Bytes;

    fn reading(name: &str, start: &str, end: &str, writes: u64) -> RegionReading {
        RegionReading {
            start_key: Bytes::copy_from_slice(start.as_bytes()),
            end_key: Bytes::copy_from_slice(end.as_bytes()),
            writes,
            ..RegionReading::new(TableName::parse("t").expect("valid"), name)
        }
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn a_split_parents_past_lands_on_the_region_holding_its_start_key() {
        let heat = Heat::new(HeatConfig::default());
        heat.record(at(0), vec![reading("p", "", "", 0)]);
        heat.record(at(5), vec![reading("p", "", "", 400)]);
        heat.record(
            at(10),
            vec![reading("a", "", "m", 10), reading("b", "m", "", 300)],
        );
        let view = TableView::read(&heat, &TableName::parse("t").expect("valid"));
        assert_eq!(view.regions.len(), 2);
        assert_eq!(view.samples[1].2, vec![(0, view.samples[1].2[0].1)]);
        assert_eq!(view.window[0].writes, 410);
        assert_eq!(view.window[1].writes, 300);
        assert_eq!(view.window_secs, 10.0);
    }

    #[test]
    fn one_region_taking_every_write_is_flagged() {
        let heat = Heat::new(HeatConfig::default());
        let t = |w| vec![reading("a", "", "m", 0), reading("b", "m", "", w)];
        heat.record(at(0), t(0));
        heat.record(at(5), t(1000));
        let view = TableView::read(&heat, &TableName::parse("t").expect("valid"));
        let findings = view.findings(&heat);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].cause().name(), "monotonic");
    }
}
