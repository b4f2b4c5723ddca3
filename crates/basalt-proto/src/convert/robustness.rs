//! Decoding never panics: random bytes and corrupted valid messages, decoded as requests
//! and converted, give values or errors.

use super::batch::{decode_action, encode_action};
use super::schema::{decode_pre_split, decode_table};
use crate::pb;
use basalt_types::{
    Action, Append, CheckAndMutate, CompareOp, Delete, FamilyDescriptor, FilterSpec, Get,
    Increment, Mutation, Put, RowMutations, Scan, TableDescriptor, TableName,
};
use bytes::Bytes;
use prost::Message;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn samples() -> Vec<Vec<u8>> {
    let t = TableName::parse("t").expect("valid");
    let table = Some(pb::TableName::from(&t));
    let rm = RowMutations::new(
        "r",
        vec![
            Mutation::Put(Put::new("r").add_at("f", "q", 1, "v")),
            Mutation::Delete(Delete::new("r").columns("f", "q")),
            Mutation::Increment(Increment::new("r").add("f", "n", 1)),
            Mutation::Append(Append::new("r").add("f", "s", "x")),
        ],
    )
    .expect("one row");
    let cam = CheckAndMutate::column(
        "r",
        "f",
        "q",
        CompareOp::Equal,
        Some(Bytes::from_static(b"v")),
        Mutation::Put(Put::new("r").add("f", "q", "w")),
    )
    .expect("one row");
    let scan = Scan::new()
        .start("a")
        .filter(FilterSpec::Prefix(Bytes::from_static(b"ab")));
    let actions = [
        Action::Get(Get::new("r").family("f")),
        Action::RowMutations(rm.clone()),
        Action::CheckAndMutate(cam),
    ];
    let desc = TableDescriptor::new(t, vec![FamilyDescriptor::new("f").expect("valid")]);
    vec![
        pb::BatchRequest {
            table: table.clone(),
            actions: actions.iter().map(|a| encode_action(a, 1)).collect(),
            nonce_group: 1,
        }
        .encode_to_vec(),
        pb::OpenScannerRequest {
            table: table.clone(),
            scan: Some((&scan).into()),
            region: "0123abcd".to_string(),
        }
        .encode_to_vec(),
        pb::CreateTableRequest {
            descriptor: Some((&desc).into()),
            split: None,
        }
        .encode_to_vec(),
    ]
}

fn convert_all(bytes: &[u8]) {
    if let Ok(b) = pb::BatchRequest::decode(bytes) {
        let _ = decode_table(b.table);
        for a in b.actions {
            let _ = decode_action(a);
        }
    }
    if let Ok(s) = pb::OpenScannerRequest::decode(bytes) {
        let _ = s.scan.map(Scan::try_from);
    }
    if let Ok(c) = pb::CreateTableRequest::decode(bytes) {
        let _ = c.descriptor.map(TableDescriptor::try_from);
        let _ = decode_pre_split(c.split);
    }
    if let Ok(m) = pb::MutateRequest::decode(bytes) {
        let _ = m.mutation.map(Mutation::try_from);
    }
}

#[test]
fn random_and_corrupted_messages_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let samples = samples();
    for round in 0..3000 {
        let mut bytes = if round % 3 == 0 {
            (0..rng.below(200)).map(|_| rng.next() as u8).collect()
        } else {
            samples[rng.below(samples.len())].clone()
        };
        for _ in 0..=rng.below(4) {
            if bytes.is_empty() {
                break;
            }
            let i = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes[i] = rng.next() as u8,
                1 => bytes.truncate(i),
                _ => bytes.insert(i, rng.next() as u8),
            }
        }
        convert_all(&bytes);
    }
}
