//! Scans as HBase 2.x clients drive them, call by call with Basalt's own `RpcClient`:
//! heartbeats for a long-filtering scan when the client handles them, one read point from
//! the open through every next, and rows cut at the byte budget into partial results when
//! the client handles partials.

use crate::support;

use basalt_hbase::client::RpcClient;
use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use basalt_types::{Put, TableName};
use bytes::Bytes;
use prost::Message;
use support::{create_table, region, regions, Client};

fn setup(config: HbaseConfig, puts: Vec<Put>) -> (support::Server, RpcClient, Bytes) {
    let s = support::server(config);
    create_table(&s.server, "t", &[]);
    let name = regions(&mut Client::connect(&s.server, "ClientService"), "t")[0].clone();
    let table = s
        .conn
        .table(&TableName::parse("t").expect("name"))
        .expect("table");
    for chunk in puts.chunks(1000) {
        table.put_many(chunk).expect("put");
    }
    let client = RpcClient::connect(s.server.local_addr(), "ClientService").expect("connect");
    (s, client, name)
}

fn put(row: &str, value: &str) -> Put {
    Put::new(Bytes::from(row.to_string())).add(
        Bytes::from_static(b"cf"),
        Bytes::from_static(b"q"),
        Bytes::from(value.to_string()),
    )
}

fn row_filter(equal_to: &[u8]) -> pb::Filter {
    let comparator = pb::Comparator {
        name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
        serialized_comparator: Some(Bytes::from(
            pb::BinaryComparator {
                comparable: pb::ByteArrayComparable {
                    value: Some(Bytes::copy_from_slice(equal_to)),
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

fn scan(client: &mut RpcClient, request: &pb::ScanRequest) -> pb::ScanResponse {
    client.ask("Scan", request).expect("the scan call answers")
}

fn next(id: u64, rows: u32, heartbeats: bool, partials: bool) -> pb::ScanRequest {
    pb::ScanRequest {
        scanner_id: Some(id),
        number_of_rows: Some(rows),
        client_handles_heartbeats: Some(heartbeats),
        client_handles_partials: Some(partials),
        ..Default::default()
    }
}

/// Every answer of a scan until its region is done, opened with `open`.
fn drain(client: &mut RpcClient, open: pb::ScanRequest) -> Vec<pb::ScanResponse> {
    let (heartbeats, partials) = (
        open.client_handles_heartbeats == Some(true),
        open.client_handles_partials == Some(true),
    );
    let rows = open.number_of_rows.unwrap_or(1);
    let mut answers = vec![scan(client, &open)];
    let id = answers[0].scanner_id.expect("a scanner id");
    while answers.last().and_then(|a| a.more_results_in_region) == Some(true) {
        assert!(answers.len() < 100_000, "the scan ends");
        answers.push(scan(client, &next(id, rows, heartbeats, partials)));
    }
    answers
}

fn keys(answers: &[pb::ScanResponse]) -> Vec<Bytes> {
    answers
        .iter()
        .flat_map(|a| &a.results)
        .map(|r| r.cell[0].row.clone().expect("row"))
        .collect()
}

#[test]
fn a_long_filtering_scan_answers_heartbeats_to_a_client_that_handles_them() {
    let config = HbaseConfig {
        scan_time_limit_ms: 1,
        ..HbaseConfig::default()
    };
    let puts = (0..20_000).map(|i| put(&format!("r{i:05}"), "v")).collect();
    let (_s, mut client, name) = setup(config, puts);
    let open = |heartbeats: bool| pb::ScanRequest {
        region: Some(region(&name)),
        scan: Some(pb::Scan {
            filter: Some(row_filter(b"r19999")),
            ..Default::default()
        }),
        number_of_rows: Some(10),
        client_handles_heartbeats: Some(heartbeats),
        ..Default::default()
    };
    let answers = drain(&mut client, open(true));
    let beats: Vec<_> = answers
        .iter()
        .filter(|a| a.heartbeat_message == Some(true))
        .collect();
    assert!(!beats.is_empty(), "20,000 rows filtered past a 1 ms limit");
    for beat in &beats {
        assert_eq!(beat.more_results_in_region, Some(true));
        assert_eq!(beat.more_results, Some(true));
    }
    assert_eq!(keys(&answers), [Bytes::from_static(b"r19999")]);

    // A client that does not handle heartbeats waits for the row.
    let answers = drain(&mut client, open(false));
    assert!(answers.iter().all(|a| a.heartbeat_message != Some(true)));
    assert_eq!(keys(&answers), [Bytes::from_static(b"r19999")]);
}

#[test]
fn a_scan_reads_at_the_point_it_was_opened_through_every_next() {
    let puts = vec![put("a", "old"), put("c", "old"), put("e", "old")];
    let (s, mut client, name) = setup(HbaseConfig::default(), puts);
    // Opened without reading, as HBase's clients may.
    let opened = scan(
        &mut client,
        &pb::ScanRequest {
            region: Some(region(&name)),
            scan: Some(pb::Scan::default()),
            number_of_rows: Some(0),
            ..Default::default()
        },
    );
    let id = opened.scanner_id.expect("an id");
    let table = s
        .conn
        .table(&TableName::parse("t").expect("name"))
        .expect("table");
    table
        .put_many(&[put("b", "new"), put("c", "new")])
        .expect("written after the open");
    let first = scan(&mut client, &next(id, 1, false, false));
    table.put(&put("d", "new")).expect("written between nexts");
    let rest = scan(&mut client, &next(id, 10, false, false));
    let answers = [first, rest];
    assert_eq!(
        keys(&answers),
        [&b"a"[..], b"c", b"e"].map(Bytes::from_static)
    );
    let values: Vec<_> = answers
        .iter()
        .flat_map(|a| &a.results)
        .map(|r| r.cell[0].value.clone().expect("value"))
        .collect();
    assert!(values.iter().all(|v| &v[..] == b"old"), "{values:?}");
}

#[test]
fn a_row_over_the_byte_budget_comes_in_partial_results_to_a_client_that_handles_them() {
    let mut wide = Put::new(Bytes::from_static(b"w"));
    for i in 0..10 {
        wide = wide.add(
            Bytes::from_static(b"cf"),
            Bytes::from(format!("q{i}")),
            Bytes::from(vec![b'x'; 200]),
        );
    }
    let (_s, mut client, name) = setup(HbaseConfig::default(), vec![wide, put("z", "v")]);
    let open = |partials: bool| pb::ScanRequest {
        region: Some(region(&name)),
        scan: Some(pb::Scan {
            max_result_size: Some(600),
            ..Default::default()
        }),
        number_of_rows: Some(100),
        client_handles_partials: Some(partials),
        ..Default::default()
    };
    let answers = drain(&mut client, open(true));
    let parts: Vec<_> = answers.iter().flat_map(|a| &a.results).collect();
    let wide_parts: Vec<_> = parts
        .iter()
        .filter(|r| r.cell[0].row.as_deref() == Some(&b"w"[..]))
        .collect();
    assert!(
        wide_parts.len() > 1,
        "the wide row is cut: {}",
        wide_parts.len()
    );
    let (last, cut) = wide_parts.split_last().expect("parts");
    assert!(cut.iter().all(|r| r.partial == Some(true)));
    assert_eq!(last.partial, Some(false));
    let cells: usize = wide_parts.iter().map(|r| r.cell.len()).sum();
    assert_eq!(cells, 10, "every cell once");
    for answer in &answers {
        let flags: Vec<_> = answer
            .results
            .iter()
            .map(|r| r.partial == Some(true))
            .collect();
        assert_eq!(answer.partial_flag_per_result, flags);
    }
    assert_eq!(
        parts.last().and_then(|r| r.cell[0].row.as_deref()),
        Some(&b"z"[..])
    );

    // Without client_handles_partials the row comes whole.
    let answers = drain(&mut client, open(false));
    let whole: Vec<_> = answers.iter().flat_map(|a| &a.results).collect();
    assert_eq!(whole.len(), 2);
    assert_eq!(whole[0].cell.len(), 10);
    assert_eq!(whole[0].partial, Some(false));
}
