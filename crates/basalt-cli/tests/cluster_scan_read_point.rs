//! A scan keeps its MVCC read point when its region moves: the client gives the point its
//! first scanner was opened at (`Scan.read_point`) to the scanner it reopens on the
//! region's new server, so rows and versions written after the scan began stay invisible
//! to it, as HBase's client does with `mvcc_read_point`. Two region servers; the one
//! holding the region is stopped mid-scan (SIGTERM moves its regions to the other first).

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_types::{Put, Scan};
use bytes::Bytes;
use support::cluster::Cluster;
use support::tables;

const TABLE: &str = "read_point";

fn put(i: u32, value: &str) -> Put {
    Put::new(Bytes::from(format!("r{i:03}"))).add(
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        Bytes::from(value.to_string()),
    )
}

fn shown(row: &basalt_types::RowResult) -> String {
    let cell = &row.cells[0];
    format!(
        "{}={}",
        String::from_utf8_lossy(cell.row()),
        String::from_utf8_lossy(cell.value())
    )
}

#[test]
fn a_scan_whose_region_moved_mid_scan_does_not_see_rows_written_meanwhile() {
    let mut cluster = Cluster::start(1, 2);
    let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
    tables::create(&conn, TABLE, 1);
    let table = conn.table(&tables::table_name(TABLE)).expect("table");
    let old: Vec<Put> = (0..100).step_by(2).map(|i| put(i, "old")).collect();
    table.put_many(&old).expect("put");
    let expected: Vec<String> = (0..100)
        .step_by(2)
        .map(|i| format!("r{i:03}=old"))
        .collect();

    let mut scan = Scan::new();
    scan.caching = Some(5);
    // Opened at once in its first region, which tells its read point (a native gateway in
    // front of this client passes it on as `mvcc_read_point`).
    let opened = table.open_scan(&scan, None).expect("scan");
    let point = opened
        .read_point
        .expect("the region's server told its read point");
    let mut rows = opened.rows;
    let mut seen: Vec<String> = rows
        .by_ref()
        .take(10)
        .map(|r| shown(&r.expect("row")))
        .collect();

    // Written after the scan began: new rows on both sides of where it is. (Not new
    // versions: the close flushes, keeping one version, so a reopened scanner cannot see
    // the version its point needs — HBase's limit too.)
    let new: Vec<Put> = (1..100).step_by(2).map(|i| put(i, "new")).collect();
    table.put_many(&new).expect("put");

    // The region's server stops: its regions move to the other server.
    let region = tables::regions(&conn, TABLE).remove(0);
    let holder = cluster
        .servers
        .iter()
        .position(|s| s.name == region.server)
        .expect("the region's server is one of ours");
    assert!(cluster.stop_server(holder).success(), "a clean stop");

    seen.extend(rows.map(|r| shown(&r.expect("row after the move"))));
    assert_eq!(
        seen, expected,
        "the scan read at its first point throughout"
    );
    let moved = tables::regions(&conn, TABLE).remove(0);
    assert_ne!(moved.server, region.server, "the region did move");

    // A scan given that point (as a gateway reopening a client's scan gives it) reads
    // there on the region's new server too.
    let mut at = Scan::new();
    at.read_point = Some(point);
    let given: Vec<String> = table
        .scan(&at)
        .expect("scan")
        .map(|r| shown(&r.expect("row")))
        .collect();
    assert_eq!(given, expected, "a given read point holds after the move");

    // A scan begun now sees everything.
    let now: Vec<String> = table
        .scan(&Scan::new())
        .expect("scan")
        .map(|r| shown(&r.expect("row")))
        .collect();
    assert_eq!(now.len(), 100);
    assert!(now.contains(&"r050=old".to_string()) && now.contains(&"r051=new".to_string()));
}
