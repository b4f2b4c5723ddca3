//! The heat in `/metrics`, with bounded label sets: per rate, the top
//! [`HeatConfig::top_regions`](super::HeatConfig) regions by name and one `region="other"`
//! series summing the rest; hot spots counted by cause (four values), and the hot regions
//! by name (at most the same top-N).
//!
//! ```text
//! basalt_region_writes_per_second{table="t",region="3f2a…"} 812.4
//! basalt_region_writes_per_second{table="",region="other"} 3.2
//! basalt_hotspots{cause="monotonic"} 1
//! basalt_hotspot_region{table="t",region="3f2a…",cause="monotonic"} 1
//! ```

use super::view::TableView;
use super::Heat;
use crate::metrics::prometheus::Exposition;
use basalt_api::hotspot::{Cause, Finding};
use basalt_types::TableName;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// The rates exported, with the delta field each sums.
const RATES: [(&str, &str); 4] = [
    ("basalt_region_reads_per_second", "Reads per second over the hot-spot window, top regions then the rest as region=\"other\"."),
    ("basalt_region_writes_per_second", "Writes per second over the hot-spot window, top regions then the rest as region=\"other\"."),
    ("basalt_region_scanned_cells_per_second", "Cells returned by reads per second over the hot-spot window, top regions then the rest."),
    ("basalt_region_scanned_bytes_per_second", "Bytes returned by reads per second over the hot-spot window, top regions then the rest."),
];

/// Each region's four rates over the window: (table, encoded name, rates).
pub(crate) fn rates(heat: &Heat) -> Vec<(String, String, [f64; 4])> {
    let window = Duration::from_secs(heat.config.window_secs);
    heat.with_ring(|ring| {
        let Some(latest) = ring.samples().back().map(|s| s.at) else {
            return Vec::new();
        };
        let mut sums: HashMap<u32, [f64; 4]> = HashMap::new();
        let mut secs = 0.0;
        for sample in ring.samples() {
            if !latest
                .duration_since(sample.at)
                .is_ok_and(|age| age < window)
            {
                continue;
            }
            secs += sample.secs;
            for d in &sample.deltas {
                let s = sums.entry(d.id).or_default();
                s[0] += f64::from(d.reads);
                s[1] += f64::from(d.writes);
                s[2] += f64::from(d.cells);
                s[3] += d.bytes as f64;
            }
        }
        let secs = if secs > 0.0 { secs } else { 1.0 };
        ring.regions()
            .filter_map(|e| {
                let s = sums.get(&e.id)?;
                Some((
                    e.reading.table.to_string(),
                    e.reading.encoded_name.clone(),
                    s.map(|v| v / secs),
                ))
            })
            .collect()
    })
}

/// Every table's findings, by table name.
pub fn findings(heat: &Heat) -> Vec<(TableName, Vec<Finding>)> {
    let tables: BTreeSet<TableName> = heat.with_ring(|ring| {
        ring.regions()
            .filter(|e| e.current)
            .map(|e| e.reading.table.clone())
            .collect()
    });
    tables
        .into_iter()
        .map(|t| {
            let found = TableView::read(heat, &t).findings(heat);
            (t, found)
        })
        .filter(|(_, f)| !f.is_empty())
        .collect()
}

/// The heat's part of `/metrics`.
pub fn exposition(heat: &Heat) -> String {
    let mut out = Exposition::default();
    render(heat, &mut out);
    out.text
}

pub(crate) fn render(heat: &Heat, out: &mut Exposition) {
    let top = heat.config.top_regions;
    let mut regions = rates(heat);
    for (k, (name, help)) in RATES.iter().enumerate() {
        out.family(name, "gauge", help);
        regions.sort_by(|a, b| b.2[k].total_cmp(&a.2[k]).then_with(|| a.1.cmp(&b.1)));
        let mut other = 0.0;
        for (i, (table, region, values)) in regions.iter().enumerate() {
            if i < top && values[k] > 0.0 {
                out.sample(name, &[("table", table), ("region", region)], values[k]);
            } else {
                other += values[k];
            }
        }
        out.sample(name, &[("table", ""), ("region", "other")], other);
    }
    let findings = findings(heat);
    out.family(
        "basalt_hotspots",
        "gauge",
        "Hot spots flagged now, by likely cause.",
    );
    for cause in [
        Cause::Monotonic,
        Cause::HotRow {
            row: Default::default(),
            percent: 0,
        },
        Cause::LumpySplit,
        Cause::Uneven,
    ] {
        let n = findings
            .iter()
            .flat_map(|(_, f)| f)
            .filter(|f| f.cause().name() == cause.name())
            .count();
        out.sample("basalt_hotspots", &[("cause", cause.name())], n as f64);
    }
    out.family(
        "basalt_hotspot_region",
        "gauge",
        "Hot regions flagged now (at most the top-N), with their likely cause.",
    );
    let hot = findings
        .iter()
        .flat_map(|(t, fs)| fs.iter().map(move |f| (t, f)));
    for (table, finding) in hot.take(top) {
        if let Finding::HotRegion {
            encoded_name,
            cause,
            ..
        } = finding
        {
            out.sample(
                "basalt_hotspot_region",
                &[
                    ("table", &table.to_string()),
                    ("region", encoded_name),
                    ("cause", cause.name()),
                ],
                1.0,
            );
        }
    }
    out.family(
        "basalt_heat_points",
        "gauge",
        "Region-samples kept for the heat map (bounded by points_max).",
    );
    out.sample(
        "basalt_heat_points",
        &[],
        heat.with_ring(|r| r.points()) as f64,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heat::ring::RegionReading;
    use crate::heat::HeatConfig;
    use std::time::SystemTime;

    #[test]
    fn ten_thousand_regions_export_a_bounded_label_set() {
        let heat = Heat::new(HeatConfig::default());
        let readings = |w: u64| -> Vec<RegionReading> {
            (0..10_000u64)
                .map(|i| RegionReading {
                    start_key: format!("{i:06}").into(),
                    writes: w * (i % 13),
                    reads: w * (i % 5),
                    load: basalt_storage::region::load::LoadReport {
                        scanned_cells: w * (i % 3),
                        scanned_bytes: w * (i % 3) * 100,
                        ..Default::default()
                    },
                    ..RegionReading::new(
                        TableName::parse(&format!("t{}", i % 7)).expect("valid"),
                        &format!("r{i}"),
                    )
                })
                .collect()
        };
        let t0 = SystemTime::UNIX_EPOCH;
        heat.record(t0, readings(0));
        heat.record(t0 + Duration::from_secs(5), readings(100));
        let mut out = Exposition::default();
        render(&heat, &mut out);
        let series = out
            .text
            .lines()
            .filter(|l| l.starts_with("basalt_region_"))
            .count();
        assert_eq!(
            series,
            4 * 11,
            "four rates, each ten regions and other:\n{}",
            &out.text[..2000]
        );
        let writes: f64 = out
            .text
            .lines()
            .filter(|l| l.starts_with("basalt_region_writes_per_second"))
            .map(|l| {
                l.rsplit(' ')
                    .next()
                    .expect("valid")
                    .parse::<f64>()
                    .expect("valid")
            })
            .sum();
        let expected: f64 = (0..10_000u64).map(|i| 100.0 * (i % 13) as f64 / 5.0).sum();
        assert!(
            (writes - expected).abs() < 1e-6 * expected,
            "{writes} vs {expected}"
        );
        assert!(
            out.text
                .lines()
                .filter(|l| l.starts_with("basalt_hotspot"))
                .count()
                <= 4 + 10
        );
    }
}
