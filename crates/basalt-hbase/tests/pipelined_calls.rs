//! Calls sent back to back on one connection, without waiting (as HBase's Java client
//! multiplexes them), are all answered, each to its call id; junk after them closes the
//! connection only once they are answered.

use crate::support;

use basalt_hbase::client::RpcClient;
use basalt_hbase::pb;
use basalt_hbase::wire;
use basalt_hbase::HbaseConfig;
use prost::Message;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use support::{create_table, get, put, region, regions, Client};

#[test]
fn back_to_back_calls_are_each_answered_then_junk_closes() {
    for in_flight in [32, 1] {
        pipeline(in_flight);
    }
}

/// With `in_flight` calls of a connection at once; with 1 the answers come in call order.
fn pipeline(in_flight: usize) {
    let s = support::server(HbaseConfig {
        calls_in_flight_max: in_flight,
        ..HbaseConfig::default()
    });
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    let name = regions(&mut client, "t")[0].clone();
    let mut calls = Vec::new();
    for id in 1..=40u32 {
        let row = format!("r{id:02}");
        let frame = match id % 2 {
            0 => wire::encode_call(
                id,
                "Mutate",
                &pb::MutateRequest {
                    region: region(&name),
                    mutation: put(row.as_bytes(), row.as_bytes()),
                    condition: None,
                    nonce_group: None,
                },
                &[],
            ),
            _ => wire::encode_call(
                id,
                "Get",
                &pb::GetRequest {
                    region: region(&name),
                    get: get(b"none"),
                },
                &[],
            ),
        };
        calls.extend_from_slice(&frame);
    }
    // Junk after the last call: a frame claiming 4 GiB.
    calls.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
    client.stream.write_all(&calls).expect("send all at once");
    let mut answered = BTreeMap::new();
    let mut order: Vec<u32> = Vec::new();
    for _ in 0..40 {
        let (header, message) = Client::read_answer(&mut client.stream).expect("an answer");
        assert!(header.exception.is_none(), "{header:?}");
        let id = header.call_id.expect("call id");
        if id % 2 == 0 {
            let response = pb::MutateResponse::decode(message).expect("MutateResponse");
            assert_eq!(response.processed, Some(true));
        }
        assert!(
            answered.insert(id, ()).is_none(),
            "call {id} answered twice"
        );
        order.push(id);
    }
    if in_flight == 1 {
        assert_eq!(
            order,
            (1..=40).collect::<Vec<_>>(),
            "one at a time: in call order"
        );
    }
    assert_eq!(
        answered.keys().copied().collect::<Vec<_>>(),
        (1..=40).collect::<Vec<_>>()
    );
    let mut rest = Vec::new();
    let _ = client.stream.read_to_end(&mut rest);
    assert!(
        rest.is_empty(),
        "nothing after the answers: the connection closed"
    );
    // Every put landed.
    let mut reader = RpcClient::connect(s.server.local_addr(), "ClientService").expect("connect");
    let row: pb::GetResponse = reader
        .ask(
            "Get",
            &pb::GetRequest {
                region: region(&name),
                get: get(b"r40"),
            },
        )
        .expect("get");
    assert_eq!(row.result.expect("row").cell.len(), 1);
}
