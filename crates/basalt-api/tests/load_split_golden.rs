//! Golden cases of load-based split (`golden/load_split.txt`): a table's regions, their
//! cumulative counters at each split check, and the verdicts each check gives.

use basalt_api::load_split::{LoadSplitConfig, LoadSplitTracker, RegionLoad, Verdict};
use bytes::Bytes;
use std::collections::BTreeMap;

fn key(k: &str) -> Bytes {
    match k {
        "-" => Bytes::new(),
        k => Bytes::copy_from_slice(k.as_bytes()),
    }
}

fn verdict(v: &Verdict) -> String {
    match v {
        Verdict::New => "new".into(),
        Verdict::Cool => "cool".into(),
        Verdict::Warming(n) => format!("warming {n}"),
        Verdict::NoMedian => "no median".into(),
        Verdict::HotRow => "hot row".into(),
        Verdict::MedianAtEdge => "median at edge".into(),
        Verdict::Split(k) => format!("split {}", String::from_utf8_lossy(k)),
    }
}

/// A `check` line's regions, each `NAME:WRITES[/SAMPLED/TOP/MEDIAN]`, on `bounds`.
fn check(line: &str, bounds: &BTreeMap<String, (Bytes, Bytes)>) -> Vec<RegionLoad> {
    line.split_whitespace()
        .map(|token| {
            let (name, counters) = token.split_once(':').expect("NAME:COUNTERS");
            let mut parts = counters.split('/');
            let mut number = || -> u64 { parts.next().map_or(0, |n| n.parse().expect("number")) };
            let (writes, sampled_writes, top_row_count) = (number(), number(), number());
            let load_median = counters.split('/').nth(3).map(key);
            let (start_key, end_key) = bounds.get(name).expect("a declared region").clone();
            RegionLoad {
                encoded_name: name.to_string(),
                start_key,
                end_key,
                writes,
                sampled_writes,
                top_row_count,
                load_median,
            }
        })
        .collect()
}

#[test]
fn load_split_golden_cases() {
    let text = include_str!("golden/load_split.txt");
    let config = LoadSplitConfig::default();
    let (mut case, mut cases) = (String::new(), 0);
    let mut tracker = LoadSplitTracker::default();
    let mut bounds = BTreeMap::new();
    let mut last = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = format!("line {} ({case})", n + 1);
        if let Some(name) = line.strip_prefix("== ") {
            (case, tracker, cases) = (name.to_string(), LoadSplitTracker::default(), cases + 1);
        } else if let Some(regions) = line.strip_prefix("regions ") {
            bounds = regions
                .split_whitespace()
                .map(|r| {
                    let parts: Vec<&str> = r.split(':').collect();
                    assert_eq!(parts.len(), 3, "{at}: NAME:START:END");
                    (parts[0].to_string(), (key(parts[1]), key(parts[2])))
                })
                .collect();
        } else if let Some(regions) = line.strip_prefix("check ") {
            last = tracker.check(&[check(regions, &bounds)], &config);
        } else if let Some(expected) = line.strip_prefix("-> ") {
            let got: Vec<String> = last
                .iter()
                .map(|(name, v)| format!("{name} {}", verdict(v)))
                .collect();
            assert_eq!(got.join(", "), expected, "{at}");
        } else {
            assert!(
                line.is_empty() || line.starts_with('#'),
                "{at}: unknown line"
            );
        }
    }
    assert!(cases >= 10, "the golden file has its cases");
}
