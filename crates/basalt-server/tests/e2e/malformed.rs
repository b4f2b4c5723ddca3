//! Malformed traffic on the gRPC port gets errors, and the server keeps serving.

use crate::common::{create_table, serve, test_config};
use basalt_api::{Connection, ErrorKind};
use basalt_proto::pb;
use basalt_proto::status::from_status;
use basalt_types::{Get, Put};
use bytes::{Buf, BufMut};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Status};

/// A codec that sends raw bytes as the message and returns the raw reply.
#[derive(Default, Clone)]
struct RawCodec;

struct RawEncoder;
struct RawDecoder;

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawDecoder {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let mut out = vec![0u8; src.remaining()];
        src.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

fn raw_call(
    rt: &tokio::runtime::Runtime,
    addr: &str,
    path: &'static str,
    body: Vec<u8>,
) -> Result<Vec<u8>, Status> {
    rt.block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .map_err(|e| Status::internal(e.to_string()))?
            .connect()
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        let mut grpc = tonic::client::Grpc::new(channel);
        grpc.ready()
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        let path = tonic::codegen::http::uri::PathAndQuery::from_static(path);
        grpc.unary(tonic::Request::new(body), path, RawCodec)
            .await
            .map(tonic::Response::into_inner)
    })
}

fn still_serves(conn: &dyn Connection, t: &basalt_types::TableName) {
    let table = conn.table(t).expect("table");
    table
        .put(&Put::new("alive").add("cf", "q", "yes"))
        .expect("put");
    assert!(table.exists(&Get::new("alive")).expect("get"));
}

fn pseudo_random(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn garbage_and_broken_frames_on_the_socket() {
    let served = serve(test_config());
    let t = create_table(&served.remote, "garbage");
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    let mut truncated_settings = preface.clone();
    // A SETTINGS frame header announcing 60 bytes, followed by 6, then the socket closes.
    truncated_settings.extend_from_slice(&[0, 0, 60, 4, 0, 0, 0, 0, 0]);
    truncated_settings.extend_from_slice(&[0, 3, 0, 0, 0, 100]);
    let mut bad_frame = preface.clone();
    // A HEADERS frame on stream 0 (a protocol error) with junk.
    bad_frame.extend_from_slice(&[0, 0, 4, 1, 4, 0, 0, 0, 0, 1, 2, 3, 4]);
    let inputs = vec![
        pseudo_random(4096, 1),
        pseudo_random(17, 2),
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        truncated_settings,
        bad_frame,
        [preface.clone(), pseudo_random(10_000, 3)].concat(),
    ];
    for input in inputs {
        let mut s = TcpStream::connect(served.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let _ = s.write_all(&input);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut sink = Vec::new();
        let _ = s.read_to_end(&mut sink);
        still_serves(&served.remote, &t);
    }
}

#[test]
fn bad_messages_unknown_methods_and_invalid_fields() {
    let served = serve(test_config());
    let t = create_table(&served.remote, "fields");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let addr = served.addr.to_string();
    let get_path = "/basalt.v1.TableService/Get";
    // Not protobuf at all, and a truncated message.
    for body in [pseudo_random(300, 9), vec![0x0a, 0x50, 0x01]] {
        let e = raw_call(&rt, &addr, get_path, body).expect_err("undecodable");
        assert!(
            matches!(e.code(), Code::Internal | Code::InvalidArgument),
            "{e:?}"
        );
    }
    // Unknown services and methods.
    for path in ["/basalt.v1.TableService/Nope", "/nope.Nope/Get"] {
        let e = raw_call(&rt, &addr, path, Vec::new()).expect_err("unknown");
        assert_eq!(e.code(), Code::Unimplemented);
    }
    // Well-formed protobuf with invalid values.
    use prost::Message;
    let table = Some(pb::TableName::from(&t));
    let bad_gets = [
        pb::GetRequest {
            region: String::new(),
            table: None,
            get: Some(pb::Get {
                row: "r".into(),
                max_versions: 1,
                ..Default::default()
            }),
        },
        pb::GetRequest {
            region: String::new(),
            table: Some(pb::TableName {
                namespace: "default".into(),
                qualifier: "bad name".into(),
            }),
            get: Some(pb::Get {
                row: "r".into(),
                max_versions: 1,
                ..Default::default()
            }),
        },
        pb::GetRequest {
            region: String::new(),
            table: table.clone(),
            get: None,
        },
        pb::GetRequest {
            region: String::new(),
            table: table.clone(),
            get: Some(pb::Get {
                row: "r".into(),
                max_versions: 0,
                ..Default::default()
            }),
        },
        pb::GetRequest {
            region: String::new(),
            table: table.clone(),
            get: Some(pb::Get {
                row: "r".into(),
                max_versions: 1,
                filter: Some(vec![1, 200, 3].into()),
                ..Default::default()
            }),
        },
        pb::GetRequest {
            region: String::new(),
            table: table.clone(),
            get: Some(pb::Get {
                row: "r".into(),
                max_versions: 1,
                time_range: Some(pb::TimeRange { min: 9, max: 1 }),
                ..Default::default()
            }),
        },
    ];
    for req in bad_gets {
        let e = raw_call(&rt, &addr, get_path, req.encode_to_vec()).expect_err("invalid");
        assert_eq!(from_status(&e).kind, ErrorKind::InvalidRequest, "{e:?}");
    }
    let put = |cell_type: u32, durability: i32| pb::MutateRequest {
        region: String::new(),
        table: table.clone(),
        mutation: Some(pb::Mutation {
            kind: Some(pb::mutation::Kind::Put(pb::Put {
                row: "r".into(),
                cells: vec![pb::Cell {
                    family: "cf".into(),
                    qualifier: "q".into(),
                    cell_type,
                    ..Default::default()
                }],
                durability,
                ttl_ms: None,
            })),
        }),
        nonce_group: 0,
        nonce: 0,
    };
    for req in [put(3, 0), put(4, 99), put(14, 0)] {
        let e = raw_call(
            &rt,
            &addr,
            "/basalt.v1.TableService/Mutate",
            req.encode_to_vec(),
        )
        .expect_err("invalid");
        assert_eq!(from_status(&e).kind, ErrorKind::InvalidRequest, "{e:?}");
    }
    raw_call(
        &rt,
        &addr,
        "/basalt.v1.TableService/Mutate",
        put(4, 0).encode_to_vec(),
    )
    .expect("a valid put");
    still_serves(&served.remote, &t);
}
