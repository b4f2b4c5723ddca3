//! A server over an embedded database on a free port, and a small blocking RPC client that
//! speaks HBase's framing with the crate's own codec.
#![allow(dead_code, reason = "each test binary uses a different part")]

use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_hbase::pb;
use basalt_hbase::wire;
use basalt_hbase::{HbaseConfig, HbaseServer};
use bytes::Bytes;
use prost::Message;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

pub struct Server {
    pub server: HbaseServer,
    pub conn: Arc<dyn Connection>,
    pub db: Arc<Database>,
    _dir: tempfile::TempDir,
}

pub fn server(config: HbaseConfig) -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open database");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db.clone()));
    let server = basalt_hbase::start(
        conn.clone(),
        &HbaseConfig { port: 0, ..config },
        "test-cluster",
    )
    .expect("start");
    Server {
        server,
        conn,
        db,
        _dir: dir,
    }
}

/// An answer: the message's bytes, or the exception.
pub type Answer = Result<Bytes, pb::ExceptionResponse>;

pub struct Client {
    pub stream: TcpStream,
    pub next_id: u32,
}

impl Client {
    /// Connects and sends the preamble and connection header for `service`.
    pub fn connect(server: &HbaseServer, service: &str) -> Self {
        Self::connect_with_codec(server, service, None)
    }

    /// `connect`, naming the cell-block codec class `codec` in the connection header.
    pub fn connect_with_codec(server: &HbaseServer, service: &str, codec: Option<&str>) -> Self {
        let mut stream = TcpStream::connect(server.local_addr()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream
            .write_all(&wire::encode_connection_preface_with_codec(
                service, "test", codec,
            ))
            .expect("preface");
        Self { stream, next_id: 1 }
    }

    pub fn raw(server: &HbaseServer) -> TcpStream {
        let stream = TcpStream::connect(server.local_addr()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream
    }

    /// One answer frame: its header and message bytes.
    pub fn read_answer(stream: &mut TcpStream) -> std::io::Result<(pb::ResponseHeader, Bytes)> {
        let mut len = [0u8; 4];
        stream.read_exact(&mut len)?;
        let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
        stream.read_exact(&mut frame)?;
        wire::decode_answer(&frame)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    pub fn call_with_cells(
        &mut self,
        method: &str,
        request: &impl Message,
        cells: &[u8],
    ) -> Answer {
        self.call_answering_cells(method, request, cells)
            .map(|(message, _)| message)
    }

    /// A call and its whole answer: the message and its cell block (empty for none).
    pub fn call_answering_cells(
        &mut self,
        method: &str,
        request: &impl Message,
        cells: &[u8],
    ) -> Result<(Bytes, Bytes), pb::ExceptionResponse> {
        let id = self.next_id;
        self.next_id += 1;
        self.stream
            .write_all(&wire::encode_call(id, method, request, cells))
            .expect("send call");
        let mut len = [0u8; 4];
        self.stream.read_exact(&mut len).expect("an answer");
        let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
        self.stream.read_exact(&mut frame).expect("an answer");
        let (header, message, block) =
            wire::decode_answer_with_cells(&frame).expect("the answer decodes");
        assert_eq!(header.call_id, Some(id), "the answer is to this call");
        match header.exception {
            Some(e) => Err(e),
            None => Ok((message, block)),
        }
    }

    /// A call answered with a message `M` and a cell block; panics on an exception.
    pub fn ok_with_cells<M: Message + Default>(
        &mut self,
        method: &str,
        request: &impl Message,
    ) -> (M, Bytes) {
        let (message, block) = self
            .call_answering_cells(method, request, &[])
            .unwrap_or_else(|e| panic!("{method} failed: {e:?}"));
        (M::decode(message).expect("decodes"), block)
    }

    pub fn call(&mut self, method: &str, request: &impl Message) -> Answer {
        self.call_with_cells(method, request, &[])
    }

    /// `call`, decoded as `M`; panics on an exception.
    pub fn ok<M: Message + Default>(&mut self, method: &str, request: &impl Message) -> M {
        let bytes = self
            .call(method, request)
            .unwrap_or_else(|e| panic!("{method} failed: {e:?}"));
        M::decode(bytes).expect("decodes")
    }
}

pub fn table_name(name: &str) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from_static(b"default"),
        qualifier: Bytes::from(name.to_string()),
    }
}

/// Creates `name` with family `cf` (split at `splits`) through MasterService.
pub fn create_table(server: &HbaseServer, name: &str, splits: &[&[u8]]) {
    let mut master = Client::connect(server, "MasterService");
    let request = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name(name)),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"cf"),
                ..Default::default()
            }],
            ..Default::default()
        },
        split_keys: splits.iter().map(|s| Bytes::copy_from_slice(s)).collect(),
        nonce_group: None,
        nonce: None,
    };
    let _: pb::ProcedureResponse = master.ok("CreateTable", &request);
}

/// The region names of `table` as `hbase:meta` lists them, in key order.
pub fn regions(client: &mut Client, table: &str) -> Vec<Bytes> {
    let request = pb::ScanRequest {
        region: Some(pb::RegionSpecifier {
            r#type: 1,
            value: Bytes::from_static(b"hbase:meta,,1"),
        }),
        scan: Some(pb::Scan {
            start_row: Some(Bytes::from(format!("{table},"))),
            stop_row: Some(Bytes::from(format!("{table},\u{7f}"))),
            column: vec![pb::Column {
                family: Bytes::from_static(b"info"),
                qualifier: vec![],
            }],
            ..Default::default()
        }),
        number_of_rows: Some(100),
        close_scanner: Some(true),
        ..Default::default()
    };
    let response: pb::ScanResponse = client.ok("Scan", &request);
    response
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().expect("row"))
        .collect()
}

pub fn region(name: &Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: 1,
        value: name.clone(),
    }
}

pub fn put(row: &[u8], value: &[u8]) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(Bytes::copy_from_slice(row)),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"cf"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                value: Some(Bytes::copy_from_slice(value)),
                timestamp: None,
                delete_type: None,
            }],
        }],
        ..Default::default()
    }
}

pub fn get(row: &[u8]) -> pb::Get {
    pb::Get {
        row: Bytes::copy_from_slice(row),
        ..Default::default()
    }
}
