//! Golden cases of hot-spot detection: each load, as regions' writes and samples, and the
//! lines the shell and the page print for it.

use basalt_api::hotspot::{detect, HotspotConfig, RegionWrites};
use bytes::Bytes;

fn key(k: &[u8]) -> String {
    String::from_utf8_lossy(k).into_owned()
}

/// One region's load: writes, sampled writes, ascending ones, and a hot row's count.
type RegionLoad<'a> = (u64, u64, u64, Option<(&'a str, u64)>);

/// Regions split at `splits`, with `writes` each and a sample of `sampled` writes of
/// which `ascending` were ascending, and `hot_row` taking that many sampled writes.
fn table(splits: &[&str], loads: &[RegionLoad]) -> Vec<RegionWrites> {
    let mut bounds: Vec<Bytes> = vec![Bytes::new()];
    bounds.extend(splits.iter().map(|s| Bytes::copy_from_slice(s.as_bytes())));
    bounds.push(Bytes::new());
    loads
        .iter()
        .enumerate()
        .map(|(i, (writes, sampled, ascending, hot))| RegionWrites {
            encoded_name: format!("r{i}"),
            start_key: bounds[i].clone(),
            end_key: bounds[i + 1].clone(),
            writes: *writes,
            sampled_writes: *sampled,
            ascending_writes: *ascending,
            hot_rows: hot
                .map(|(row, n)| vec![(Bytes::copy_from_slice(row.as_bytes()), n)])
                .unwrap_or_default(),
        })
        .collect()
}

fn lines(regions: &[RegionWrites]) -> Vec<String> {
    detect(regions, &HotspotConfig::default())
        .iter()
        .map(|f| format!("[{}] {}", f.cause().name(), f.describe(key)))
        .collect()
}

#[test]
fn sequential_timestamps_make_the_last_region_hot_and_monotonic() {
    let regions = table(
        &["1", "2", "3"],
        &[
            (0, 0, 0, None),
            (0, 0, 0, None),
            (0, 0, 0, None),
            (4000, 500, 499, Some(("1700000000000", 1))),
        ],
    );
    assert_eq!(
        lines(&regions),
        ["[monotonic] hot region r3 (start '3') takes 100% of writes; monotonic keys: writes land at the top of its key range"]
    );
}

#[test]
fn tenant_timestamp_keys_are_monotonic_in_each_hot_region() {
    let regions = table(&["m"], &[(3000, 375, 370, None), (200, 25, 24, None)]);
    assert_eq!(
        lines(&regions),
        ["[monotonic] hot region r0 (start '') takes 94% of writes; monotonic keys: writes land at the top of its key range"]
    );
}

#[test]
fn one_row_written_over_and_over_is_a_hot_row() {
    let regions = table(
        &["g", "p"],
        &[
            (100, 12, 3, None),
            (2000, 250, 10, Some(("user42", 200))),
            (100, 12, 4, None),
        ],
    );
    assert_eq!(
        lines(&regions),
        ["[hot row] hot region r1 (start 'g') takes 91% of writes; hot row: 'user42' takes 80% of its writes"]
    );
}

#[test]
fn decimal_keys_over_a_hex_split_leave_regions_idle() {
    // The seeds' lumpy split: ten regions over "0".."f", decimal keys reach two of them.
    let splits = ["0", "6\u{f6}", "=", "D", "K", "R", "X", "_", "f"];
    let mut loads = vec![(0, 0, 0, None); 10];
    loads[1] = (700, 88, 5, None);
    loads[2] = (300, 37, 3, None);
    assert_eq!(
        lines(&table(&splits, &loads)),
        [
            "[lumpy split] hot region r1 (start '0') takes 70% of writes; lumpy split: other regions get no writes",
            "[lumpy split] 8 of 10 regions get no writes; lumpy split: the split points miss the keys written",
        ]
    );
}

#[test]
fn salted_keys_over_a_presplit_table_flag_nothing() {
    let loads: Vec<_> = (0..8).map(|i| (1000 + i * 20, 125, 124, None)).collect();
    assert!(lines(&table(&["1", "2", "3", "4", "5", "6", "7"], &loads)).is_empty());
}

#[test]
fn a_table_with_one_region_or_few_writes_is_not_judged() {
    assert!(lines(&table(&[], &[(10_000, 1250, 1249, None)])).is_empty());
    assert!(lines(&table(&["m"], &[(150, 18, 18, None), (0, 0, 0, None)])).is_empty());
}

#[test]
fn without_a_sample_the_last_region_taking_all_writes_is_monotonic() {
    let regions = table(&["m"], &[(0, 0, 0, None), (500, 0, 0, None)]);
    assert_eq!(
        lines(&regions),
        ["[monotonic] hot region r1 (start 'm') takes 100% of writes; monotonic keys: writes land at the top of its key range"]
    );
}

#[test]
fn a_skew_without_idle_regions_is_uneven_keys() {
    let regions = table(
        &["m", "t"],
        &[
            (3000, 375, 20, None),
            (100, 12, 1, None),
            (100, 12, 1, None),
        ],
    );
    assert_eq!(
        lines(&regions),
        ["[uneven keys] hot region r0 (start '') takes 94% of writes; uneven keys"]
    );
    let causes: Vec<_> = detect(&regions, &HotspotConfig::default())
        .iter()
        .flat_map(|f| f.cause().remedies().iter().map(|r| r.name()))
        .collect();
    assert_eq!(causes, ["pre-splitting by the key distribution"]);
}
