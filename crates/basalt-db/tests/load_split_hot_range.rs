//! Load-based split end to end, in the embedded database: a table with
//! `LOAD_SPLIT_ENABLED => 'true'`, pre-split at "m", takes a skewed write load (four writes
//! in five to the hot range `s00000`..`s09999`, the rest spread over `a`..`z`). The split
//! checker must split the hot region at its load median — inside the hot range, not at its
//! size midpoint — and afterwards the hot writes spread over the two daughters. A table
//! without the attribute, written the same load beside it, does not split.

use crate::support;

use basalt_api::load_split::LOAD_SPLIT_ENABLED;
use basalt_api::{PreSplit, RegionReport, Table};
use basalt_db::DbConfig;
use basalt_types::{Put, TableName};
use bytes::Bytes;
use std::time::Duration;
use support::*;

const HOT_START: &[u8] = b"s00000";
const HOT_END: &[u8] = b"s10000";

/// The `n`th row of the skewed load: four in five in the hot range.
fn row(n: u64) -> String {
    let x = n
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
        >> 33;
    if n.is_multiple_of(5) {
        let letter = char::from(b'a' + (x % 26) as u8);
        format!("{letter}{:05}", (x / 26) % 100_000)
    } else {
        format!("s{:05}", x % 10_000)
    }
}

fn write(table: &dyn Table, from: u64, rows: u64) {
    let puts: Vec<Put> = (from..from + rows)
        .map(|n| Put::new(row(n)).add("f", "q", "v"))
        .collect();
    table.put_many(&puts).expect("put");
}

fn writes(regions: &[RegionReport]) -> Vec<u64> {
    regions.iter().map(|r| r.write_requests).collect()
}

#[test]
fn a_hot_region_splits_at_its_load_median_and_the_load_spreads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = DbConfig {
        split_check_interval_ms: 50,
        ..DbConfig::default()
    };
    let db = open(dir.path(), config);
    let split = PreSplit::Keys(vec![Bytes::from("m")]);
    let mut on = descriptor("skewed", &["f"]);
    on.metadata
        .insert(LOAD_SPLIT_ENABLED.to_string(), "true".to_string());
    db.admin.create_table(&on, &split).expect("create");
    db.admin
        .create_table(&descriptor("plain", &["f"]), &split)
        .expect("create");
    let (skewed, plain) = (
        TableName::parse("skewed").expect("valid"),
        TableName::parse("plain").expect("valid"),
    );
    let (t_on, t_off) = (db.table(&skewed), db.table(&plain));

    let mut n = 0;
    let split_seen = wait_for(Duration::from_secs(60), || {
        write(t_on.as_ref(), n, 200);
        write(t_off.as_ref(), n, 200);
        n += 200;
        db.admin.list_regions(&skewed).expect("regions").len() > 2
    });
    assert!(
        split_seen,
        "the hot region did not split after {n} skewed writes"
    );
    let regions = db.admin.list_regions(&skewed).expect("regions");
    assert_eq!(regions.len(), 3, "one split: {regions:?}");
    let key = &regions[2].start_key;
    assert!(
        key.as_ref() > HOT_START && key.as_ref() < HOT_END,
        "split at {key:?}, not inside the hot range (its size midpoint would not be either)"
    );
    assert_eq!(regions[1].start_key, Bytes::from("m"));
    assert_eq!(
        db.admin.list_regions(&plain).expect("regions").len(),
        2,
        "load-based split is off by default"
    );

    // The same load again: each daughter takes a good part of the hot writes. Load-based
    // split is switched off first, so that a daughter that stays hot does not split again
    // under this load (it may: it is as hot as its parent was).
    on.metadata
        .insert(LOAD_SPLIT_ENABLED.to_string(), "false".to_string());
    db.admin.modify_table(&on).expect("modify");
    let regions = db.admin.list_regions(&skewed).expect("regions");
    assert_eq!(regions.len(), 3, "one split: {regions:?}");
    let before = writes(&regions);
    write(t_on.as_ref(), n, 5000);
    let after = db.admin.list_regions(&skewed).expect("regions");
    assert_eq!(
        after.len(),
        3,
        "the daughters did not split again: {after:?}"
    );
    let delta: Vec<u64> = writes(&after)
        .iter()
        .zip(&before)
        .map(|(a, b)| a - b)
        .collect();
    assert_eq!(delta.iter().sum::<u64>(), 5000);
    for (i, d) in delta.iter().enumerate().skip(1) {
        assert!(
            *d >= 1500,
            "daughter {i} took {d} of 5000 writes: {delta:?}"
        );
        assert!(
            *d <= 3000,
            "daughter {i} took {d} of 5000 writes: {delta:?}"
        );
    }
}
