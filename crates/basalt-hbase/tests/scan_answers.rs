//! What a Scan call answers, call by call: rows per call, `limit_of_rows`, rows cut by
//! `batch_size` into flagged parts, opening without reading, closing, and the scanner ids
//! a client may no longer use.

use crate::support;

use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use bytes::Bytes;
use support::{create_table, put, region, regions, Client};

fn setup() -> (support::Server, Client, Bytes) {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    let name = regions(&mut client, "t")[0].clone();
    for row in [&b"a"[..], b"b", b"c", b"d"] {
        let request = pb::MutateRequest {
            region: region(&name),
            mutation: put(row, b"v"),
            condition: None,
            nonce_group: None,
        };
        let _: pb::MutateResponse = client.ok("Mutate", &request);
    }
    (s, client, name)
}

fn open(name: &Bytes, scan: pb::Scan, rows: u32, limit: Option<u32>) -> pb::ScanRequest {
    pb::ScanRequest {
        region: Some(region(name)),
        scan: Some(scan),
        number_of_rows: Some(rows),
        limit_of_rows: limit,
        ..Default::default()
    }
}

fn next(id: u64, rows: u32) -> pb::ScanRequest {
    pb::ScanRequest {
        scanner_id: Some(id),
        number_of_rows: Some(rows),
        ..Default::default()
    }
}

fn keys(response: &pb::ScanResponse) -> Vec<Bytes> {
    response
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().expect("row"))
        .collect()
}

#[test]
fn rows_come_as_asked_and_the_limit_ends_the_scan() {
    let (_s, mut client, name) = setup();
    // number_of_rows 0 opens without reading.
    let opened: pb::ScanResponse = client.ok("Scan", &open(&name, pb::Scan::default(), 0, Some(3)));
    assert!(opened.results.is_empty());
    assert_eq!(opened.more_results_in_region, Some(true));
    let id = opened.scanner_id.expect("id");
    // Renewing the lease reads nothing.
    let renew = pb::ScanRequest {
        scanner_id: Some(id),
        renew: Some(true),
        ..Default::default()
    };
    let renewed: pb::ScanResponse = client.ok("Scan", &renew);
    assert!(renewed.results.is_empty());
    let two: pb::ScanResponse = client.ok("Scan", &next(id, 2));
    assert_eq!(keys(&two), [&b"a"[..], b"b"]);
    assert_eq!(two.more_results, Some(true));
    // The limit of 3 rows stops the scan, not just the region.
    let last: pb::ScanResponse = client.ok("Scan", &next(id, 10));
    assert_eq!(keys(&last), [&b"c"[..]]);
    assert_eq!(last.more_results, Some(false));
    assert_eq!(last.more_results_in_region, Some(false));
}

#[test]
fn a_batch_cuts_a_wide_row_into_flagged_parts() {
    let (_s, mut client, name) = setup();
    let wide = pb::MutationProto {
        row: Some(Bytes::from_static(b"w")),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"cf"),
            qualifier_value: (0..5u8)
                .map(|q| pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from(vec![b'q', b'0' + q])),
                    value: Some(Bytes::from_static(b"x")),
                    timestamp: None,
                    delete_type: None,
                })
                .collect(),
        }],
        ..Default::default()
    };
    let request = pb::MutateRequest {
        region: region(&name),
        mutation: wide,
        condition: None,
        nonce_group: None,
    };
    let _: pb::MutateResponse = client.ok("Mutate", &request);
    let scan = pb::Scan {
        start_row: Some(Bytes::from_static(b"w")),
        batch_size: Some(2),
        ..Default::default()
    };
    let response: pb::ScanResponse = client.ok("Scan", &open(&name, scan, 10, Some(1)));
    let sizes: Vec<usize> = response.results.iter().map(|r| r.cell.len()).collect();
    assert_eq!(sizes, [2, 2, 1]);
    assert_eq!(response.partial_flag_per_result, [true, true, false]);
    // The three parts are one row against the limit of one.
    assert_eq!(response.more_results, Some(false));
}

#[test]
fn closed_finished_and_unknown_scanners() {
    let (_s, mut client, name) = setup();
    let all: pb::ScanResponse = client.ok("Scan", &open(&name, pb::Scan::default(), 10, None));
    assert_eq!(keys(&all).len(), 4);
    assert_eq!(all.more_results_in_region, Some(false));
    // A finished scanner answers no rows (hbase-driver asks again after an empty answer).
    let id = all.scanner_id.expect("id");
    let again: pb::ScanResponse = client.ok("Scan", &next(id, 10));
    assert!(again.results.is_empty());
    assert_eq!(again.more_results_in_region, Some(false));
    // One closed by the client, or never opened, is unknown.
    let open_one: pb::ScanResponse = client.ok("Scan", &open(&name, pb::Scan::default(), 1, None));
    let id = open_one.scanner_id.expect("id");
    let close = pb::ScanRequest {
        scanner_id: Some(id),
        close_scanner: Some(true),
        number_of_rows: Some(0),
        ..Default::default()
    };
    let _: pb::ScanResponse = client.ok("Scan", &close);
    for id in [id, 12345] {
        let e = client.call("Scan", &next(id, 1)).expect_err("unknown");
        assert_eq!(
            e.exception_class_name.as_deref(),
            Some("org.apache.hadoop.hbase.UnknownScannerException")
        );
    }
}
