//! HBase's `mvcc_read_point` over the native protocol, with Basalt's own `RpcClient`: the
//! open answer tells the point the scanner reads at, and a scan opened again with it (as
//! HBase's client does when a region moved) does not see rows, versions or deletes written
//! since, even once flushed; without it they are seen. And a closed scanner whose filtered
//! rows were read ahead on a thread stops reading.

use crate::support;

use basalt_hbase::client::RpcClient;
use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use basalt_types::{Delete, Put, TableName};
use bytes::Bytes;
use prost::Message;
use std::time::{Duration, Instant};
use support::{create_table, region, regions, Client};

fn put(row: &str, value: &str) -> Put {
    Put::new(Bytes::from(row.to_string())).add(
        Bytes::from_static(b"cf"),
        Bytes::from_static(b"q"),
        Bytes::from(value.to_string()),
    )
}

fn scan(client: &mut RpcClient, request: &pb::ScanRequest) -> pb::ScanResponse {
    client.ask("Scan", request).expect("the scan call answers")
}

/// Opens a scan of the region at `read_point` (`None`: not sent) and reads it whole:
/// `row=value` per row, and the read point the open answer told.
fn read_region(
    client: &mut RpcClient,
    name: &Bytes,
    read_point: Option<u64>,
) -> (Vec<String>, Option<u64>) {
    let opened = scan(
        client,
        &pb::ScanRequest {
            region: Some(region(name)),
            scan: Some(pb::Scan {
                mvcc_read_point: read_point,
                ..Default::default()
            }),
            number_of_rows: Some(100),
            ..Default::default()
        },
    );
    let told = opened.mvcc_read_point;
    let mut answers = vec![opened];
    let id = answers[0].scanner_id.expect("a scanner id");
    while answers.last().and_then(|a| a.more_results_in_region) == Some(true) {
        let next = pb::ScanRequest {
            scanner_id: Some(id),
            number_of_rows: Some(100),
            ..Default::default()
        };
        answers.push(scan(client, &next));
    }
    let rows = answers
        .iter()
        .flat_map(|a| &a.results)
        .map(|r| {
            let cell = &r.cell[0];
            let text = |b: &Option<Bytes>| {
                String::from_utf8_lossy(b.as_deref().unwrap_or(b"")).into_owned()
            };
            format!("{}={}", text(&cell.row), text(&cell.value))
        })
        .collect();
    (rows, told)
}

#[test]
fn a_scan_opened_with_the_read_point_it_was_told_does_not_see_later_writes() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let name = regions(&mut Client::connect(&s.server, "ClientService"), "t")[0].clone();
    let table_name = TableName::parse("t").expect("name");
    let table = s.conn.table(&table_name).expect("table");
    table
        .put_many(&[put("a", "old"), put("c", "old"), put("e", "old")])
        .expect("put");
    // Flushed before the scan, as a region that moved was: a flush keeps what the family's
    // VERSIONS keep, so an old version still in the memstore beside a newer one would not
    // survive the flush below for the reopened scanner to see.
    s.conn.admin().flush(&table_name).expect("flush");
    let mut client = RpcClient::connect(s.server.local_addr(), "ClientService").expect("connect");

    let (first, told) = read_region(&mut client, &name, None);
    let before = ["a=old", "c=old", "e=old"];
    assert_eq!(first, before);
    let point = told.expect("the open answer tells its read point");
    assert!(point > 0, "0 would mean none");

    // Written after the scan began: a new row, a new version, a delete.
    table.put(&put("b", "new")).expect("put");
    table.put(&put("c", "new")).expect("put");
    table
        .delete(&Delete::new(Bytes::from_static(b"e")))
        .expect("delete");
    let after = ["a=old", "b=new", "c=new"];
    for layout in ["memstore", "flushed"] {
        let (again, told) = read_region(&mut client, &name, Some(point));
        assert_eq!(again, before, "{layout}: reopened at the point");
        assert_eq!(
            told,
            Some(point),
            "{layout}: it reads at the point it was given"
        );
        let (fresh, told) = read_region(&mut client, &name, None);
        assert_eq!(fresh, after, "{layout}: a new scan sees the writes");
        assert!(told.is_some_and(|t| t > point), "{layout}: {told:?}");
        s.conn.admin().flush(&table_name).expect("flush");
    }
    // 0 is HBase's "none".
    let (zero, _) = read_region(&mut client, &name, Some(0));
    assert_eq!(zero, after);
}

/// A filter no row passes.
fn nothing_passes() -> pb::Filter {
    let comparator = pb::Comparator {
        name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
        serialized_comparator: Some(Bytes::from(
            pb::BinaryComparator {
                comparable: pb::ByteArrayComparable {
                    value: Some(Bytes::from_static(b"no such row")),
                },
            }
            .encode_to_vec(),
        )),
    };
    pb::Filter {
        name: "org.apache.hadoop.hbase.filter.RowFilter".into(),
        serialized_filter: Some(Bytes::from(
            pb::CompareFilterOnly {
                compare_filter: pb::CompareFilter {
                    compare_op: pb::CompareType::Equal as i32,
                    comparator: Some(comparator),
                },
            }
            .encode_to_vec(),
        )),
    }
}

#[test]
fn closing_a_filtered_scanner_read_ahead_stops_its_reading() {
    let config = HbaseConfig {
        scan_time_limit_ms: 1,
        ..HbaseConfig::default()
    };
    let s = support::server(config);
    create_table(&s.server, "t", &[]);
    let name = regions(&mut Client::connect(&s.server, "ClientService"), "t")[0].clone();
    let table = s
        .conn
        .table(&TableName::parse("t").expect("name"))
        .expect("table");
    let rows = 100_000u64;
    let puts: Vec<Put> = (0..rows).map(|i| put(&format!("r{i:07}"), "v")).collect();
    for chunk in puts.chunks(5000) {
        table.put_many(chunk).expect("put");
    }
    let encoded =
        basalt_types::name::encoded_region_name(std::str::from_utf8(&name).expect("utf-8"));
    let region_of = || s.db.engine().region(encoded).expect("the region is open");
    let filtered = || region_of().filtered_read_requests();
    let mut client = RpcClient::connect(s.server.local_addr(), "ClientService").expect("connect");
    let opened = scan(
        &mut client,
        &pb::ScanRequest {
            region: Some(region(&name)),
            scan: Some(pb::Scan {
                filter: Some(nothing_passes()),
                ..Default::default()
            }),
            number_of_rows: Some(10),
            client_handles_heartbeats: Some(true),
            ..Default::default()
        },
    );
    assert_eq!(opened.heartbeat_message, Some(true), "still filtering");
    let id = opened.scanner_id.expect("an id");
    let closed = scan(
        &mut client,
        &pb::ScanRequest {
            scanner_id: Some(id),
            close_scanner: Some(true),
            number_of_rows: Some(0),
            ..Default::default()
        },
    );
    assert_eq!(closed.more_results, Some(false));
    // The reading thread ends and hands its count over; it stopped far from the end.
    let deadline = Instant::now() + Duration::from_secs(60);
    while scan_threads() > 0 {
        assert!(Instant::now() < deadline, "the read-ahead thread ends");
        std::thread::sleep(Duration::from_millis(10));
    }
    let read = filtered();
    assert!(read < rows, "stopped after {read} of {rows} filtered rows");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(filtered(), read, "and reads no more");
}

/// Threads of this process reading a scan ahead.
fn scan_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux's /proc")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "hbase-scan")
        .count()
}
