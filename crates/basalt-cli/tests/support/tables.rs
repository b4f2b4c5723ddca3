//! Tables for the cluster tests: created pre-split, filled with hex-spread rows, their
//! regions and where they are open.

use super::cluster::Cluster;
use basalt_api::{Connection, PreSplit, RegionReport, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, SplitAlgorithm, TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;

pub fn table_name(name: &str) -> TableName {
    TableName::parse(name).expect("a table name")
}

pub fn create(conn: &RemoteConnection, name: &str, regions: u32) {
    let descriptor = TableDescriptor::new(
        table_name(name),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    );
    // One region is no pre-split (HBase refuses NUMREGIONS below 2).
    let split = match regions {
        0 | 1 => PreSplit::None,
        _ => PreSplit::Count {
            regions,
            algorithm: SplitAlgorithm::HexString,
        },
    };
    conn.admin()
        .create_table(&descriptor, &split)
        .expect("create the table");
}

pub fn row(i: u64) -> Bytes {
    // Hex-spread keys, so rows land in every region of a HexString pre-split.
    let hash = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32;
    Bytes::from(format!("{hash:08x}-{i:06}"))
}

pub fn fill(conn: &RemoteConnection, name: &str, rows: u64) {
    fill_range(conn, name, 0..rows);
}

/// Writes rows `rows` (numbered as [`row`], valued `v<i>`).
pub fn fill_range(conn: &RemoteConnection, name: &str, rows: std::ops::Range<u64>) {
    let table = conn.table(&table_name(name)).expect("table");
    let puts: Vec<Put> = rows
        .map(|i| {
            Put::new(row(i)).add(
                Bytes::from_static(b"f"),
                Bytes::from_static(b"q"),
                Bytes::from(format!("v{i}")),
            )
        })
        .collect();
    table.put_many(&puts).expect("put rows");
}

pub fn regions(conn: &RemoteConnection, name: &str) -> Vec<RegionReport> {
    conn.admin()
        .list_regions(&table_name(name))
        .expect("list regions")
}

/// Open regions per server name.
pub fn spread(conn: &RemoteConnection, name: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for region in regions(conn, name) {
        if region.state == RegionState::Open {
            *counts.entry(region.server).or_insert(0) += 1;
        }
    }
    counts
}

/// Runs `test`, printing every process's log if it fails.
pub fn with_logs(cluster: &Cluster, test: impl FnOnce()) {
    if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(test)) {
        cluster.fail_with_logs(panic);
    }
}

/// Every row written by [`fill`] reads back.
pub fn check_rows(conn: &RemoteConnection, name: &str, rows: u64) {
    let table = conn.table(&table_name(name)).expect("table");
    for i in 0..rows {
        let got = table.get(&Get::new(row(i))).expect("get");
        assert_eq!(
            got.value_bytes(b"f", b"q"),
            Some(Bytes::from(format!("v{i}"))),
            "row {i}"
        );
    }
}

/// `name`'s descriptor, with the one family `f`.
pub fn descriptor(name: &str) -> TableDescriptor {
    TableDescriptor::new(
        table_name(name),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    )
}

/// `row`, read again every 100 ms for up to `within` while its region is recovering;
/// `check` sees every error on the way (to refuse ones a client would not retry).
pub fn get_retrying(
    table: &dyn basalt_api::Table,
    row: &str,
    within: std::time::Duration,
    check: impl Fn(&basalt_api::ApiError),
) -> basalt_types::RowResult {
    let deadline = std::time::Instant::now() + within;
    loop {
        match table.get(&Get::new(row.to_string())) {
            Ok(got) => return got,
            Err(e) if std::time::Instant::now() < deadline => {
                check(&e);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) => panic!("{row} unreadable after {within:?}: {e}"),
        }
    }
}
