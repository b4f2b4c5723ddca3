//! An increment retried with the same nonce (as a Java client retries after a timeout) is
//! applied once and answered twice alike; a new nonce applies again.

use crate::support;

use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use bytes::Bytes;
use support::{create_table, region, regions, Client};

fn increment(name: &Bytes, nonce: u64) -> pb::MutateRequest {
    pb::MutateRequest {
        region: region(name),
        mutation: pb::MutationProto {
            row: Some(Bytes::from_static(b"n")),
            mutate_type: Some(pb::mutation_proto::MutationType::Increment as i32),
            column_value: vec![pb::mutation_proto::ColumnValue {
                family: Bytes::from_static(b"cf"),
                qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(Bytes::from_static(b"c")),
                    value: Some(Bytes::copy_from_slice(&5i64.to_be_bytes())),
                    timestamp: None,
                    delete_type: None,
                }],
            }],
            nonce: Some(nonce),
            ..Default::default()
        },
        condition: None,
        nonce_group: Some(77),
    }
}

fn counter(response: &pb::MutateResponse) -> i64 {
    let value = response.result.as_ref().expect("result").cell[0]
        .value
        .clone()
        .expect("value");
    i64::from_be_bytes(value.as_ref().try_into().expect("8 bytes"))
}

#[test]
fn a_retried_increment_applies_once() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    let name = regions(&mut client, "t")[0].clone();
    let first: pb::MutateResponse = client.ok("Mutate", &increment(&name, 1));
    // The retry comes on another connection, as after a reconnect.
    let mut other = Client::connect(&s.server, "ClientService");
    let retry: pb::MutateResponse = other.ok("Mutate", &increment(&name, 1));
    assert_eq!((counter(&first), counter(&retry)), (5, 5));
    let next: pb::MutateResponse = client.ok("Mutate", &increment(&name, 2));
    assert_eq!(counter(&next), 10);
}
