//! Answers on a connection that named `KeyValueCodec`: Get, Scan, Multi and Mutate results
//! come as a cell block after the message (counted by `associated_cell_count`, or a scan's
//! `cells_per_result`), decoded here with the crate's own codec; a connection that named
//! no codec still gets its cells inline.

use crate::support;

use basalt_hbase::cellblock::{self, Codec, KEY_VALUE_CODEC};
use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use basalt_types::Cell;
use bytes::Bytes;
use support::{create_table, get, put, region, regions, Client};

fn setup() -> (support::Server, Bytes) {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    let name = regions(&mut client, "t")[0].clone();
    for (row, value) in [(&b"a"[..], &b"1"[..]), (b"b", b"22"), (b"c", b"333")] {
        let request = pb::MutateRequest {
            region: region(&name),
            mutation: put(row, value),
            condition: None,
            nonce_group: None,
        };
        let _: pb::MutateResponse = client.ok("Mutate", &request);
    }
    (s, name)
}

fn block(bytes: &Bytes) -> Vec<Cell> {
    cellblock::decode(bytes, Codec::KeyValue).expect("the cell block decodes")
}

fn rows_and_values(cells: &[Cell]) -> Vec<(Bytes, Bytes)> {
    cells
        .iter()
        .map(|c| (c.row_bytes(), c.value_bytes()))
        .collect()
}

fn pair(row: &'static [u8], value: &'static [u8]) -> (Bytes, Bytes) {
    (Bytes::from_static(row), Bytes::from_static(value))
}

#[test]
fn a_get_answers_its_cells_in_a_block_when_the_codec_was_named() {
    let (s, name) = setup();
    let mut client = Client::connect_with_codec(&s.server, "ClientService", Some(KEY_VALUE_CODEC));
    let request = pb::GetRequest {
        region: region(&name),
        get: get(b"b"),
    };
    let (response, cells): (pb::GetResponse, _) = client.ok_with_cells("Get", &request);
    let result = response.result.expect("a result");
    assert!(result.cell.is_empty(), "no inline cells");
    assert_eq!(result.associated_cell_count, Some(1));
    let cells = block(&cells);
    assert_eq!(rows_and_values(&cells), [pair(b"b", b"22")]);
    assert_eq!(
        (cells[0].family(), cells[0].qualifier()),
        (&b"cf"[..], &b"q"[..])
    );

    // The same Get without a codec: inline, and no block.
    let mut plain = Client::connect(&s.server, "ClientService");
    let (response, cells): (pb::GetResponse, _) = plain.ok_with_cells("Get", &request);
    let result = response.result.expect("a result");
    assert_eq!(result.cell.len(), 1);
    assert_eq!(result.associated_cell_count, None);
    assert!(cells.is_empty());
}

#[test]
fn a_scan_lists_cells_per_result_and_its_rows_come_in_the_block() {
    let (s, name) = setup();
    let mut client = Client::connect_with_codec(&s.server, "ClientService", Some(KEY_VALUE_CODEC));
    let request = pb::ScanRequest {
        region: Some(region(&name)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(10),
        ..Default::default()
    };
    let (response, cells): (pb::ScanResponse, _) = client.ok_with_cells("Scan", &request);
    assert!(response.results.is_empty(), "no inline results");
    assert_eq!(response.cells_per_result, [1, 1, 1]);
    assert_eq!(response.partial_flag_per_result, [false, false, false]);
    assert_eq!(
        rows_and_values(&block(&cells)),
        [pair(b"a", b"1"), pair(b"b", b"22"), pair(b"c", b"333")]
    );
}

#[test]
fn multi_results_take_their_cells_from_the_block_in_order() {
    let (s, name) = setup();
    let mut client = Client::connect_with_codec(&s.server, "ClientService", Some(KEY_VALUE_CODEC));
    let action = |index: u32, row: &[u8]| pb::Action {
        index: Some(index),
        get: Some(get(row)),
        ..Default::default()
    };
    let request = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(&name),
            action: vec![action(0, b"c"), action(1, b"zz"), action(2, b"a")],
            ..Default::default()
        }],
        ..Default::default()
    };
    let (response, cells): (pb::MultiResponse, _) = client.ok_with_cells("Multi", &request);
    let counts: Vec<_> = response.region_action_result[0]
        .result_or_exception
        .iter()
        .map(|r| r.result.as_ref().and_then(|r| r.associated_cell_count))
        .collect();
    assert_eq!(counts, [Some(1), Some(0), Some(1)]);
    assert_eq!(
        rows_and_values(&block(&cells)),
        [pair(b"c", b"333"), pair(b"a", b"1")]
    );
}

#[test]
fn an_increment_answers_its_new_value_in_the_block() {
    let (s, name) = setup();
    let mut client = Client::connect_with_codec(&s.server, "ClientService", Some(KEY_VALUE_CODEC));
    let mut increment = put(b"n", &7i64.to_be_bytes());
    increment.mutate_type = Some(pb::mutation_proto::MutationType::Increment as i32);
    let request = pb::MutateRequest {
        region: region(&name),
        mutation: increment,
        condition: None,
        nonce_group: None,
    };
    let (response, cells): (pb::MutateResponse, _) = client.ok_with_cells("Mutate", &request);
    assert_eq!(
        response.result.and_then(|r| r.associated_cell_count),
        Some(1)
    );
    let cells = block(&cells);
    assert_eq!(cells[0].value(), &7i64.to_be_bytes());
}
