//! Load-based split through `basalt standalone` (its master's split check, fed by its
//! region server's reports over RPC): the shell creates a table with
//! `LOAD_SPLIT_ENABLED => true`, pre-split at "m", and a client writes a skewed load (four
//! writes in five to `s00000`..`s09999`). The hot region must split inside the hot range,
//! at its load median, and `describe` shows the attribute. A split check every 200 ms
//! (`[database] split_check_interval_ms`) keeps the test short.

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_types::{Put, TableName};
use std::time::{Duration, Instant};

const CONFIG: &str = "[database]\nsplit_check_interval_ms = 200\n";

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

#[test]
fn standalone_splits_a_hot_region_at_its_load_median() {
    let data = tempfile::tempdir().expect("temp dir");
    let config_dir = tempfile::tempdir().expect("config dir");
    let config = config_dir.path().join("split.toml");
    std::fs::write(&config, CONFIG).expect("write the config");
    let running = support::start_with(
        data.path(),
        &[
            "--config",
            config.to_str().expect("a UTF-8 path"),
            "--no-web",
        ],
    );
    let connect = ["--connect", running.addr.as_str()];
    let out = support::shell::run_script(
        &connect,
        "create 'skewed', 'f', {LOAD_SPLIT_ENABLED => true, SPLITS => ['m']}\ndescribe 'skewed'\n",
    );
    assert!(out.contains("'LOAD_SPLIT_ENABLED' => 'true'"), "{out}");

    let conn = RemoteConnection::connect(&running.addr).expect("connect");
    let name = TableName::parse("skewed").expect("name");
    let table = conn.table(&name).expect("table");
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut n = 0;
    let regions = loop {
        let puts: Vec<Put> = (n..n + 200)
            .map(|i| Put::new(row(i)).add("f", "q", "v"))
            .collect();
        table.put_many(&puts).expect("put");
        n += 200;
        let regions = conn.admin().list_regions(&name).expect("regions");
        if regions.len() > 2 {
            break regions;
        }
        assert!(
            Instant::now() < deadline,
            "no split after {n} skewed writes: {regions:?}"
        );
    };
    assert_eq!(regions.len(), 3, "{regions:?}");
    let key = regions[2].start_key.as_ref();
    assert!(
        key > b"s00000".as_slice() && key < b"s10000".as_slice(),
        "split at {key:?}: not inside the hot range"
    );
    support::stop(running);
}
