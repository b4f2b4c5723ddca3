//! A gateway over an embedded database in a temporary folder, and a raw Thrift client.
#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod http;

use basalt_api::Connection;
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_thrift::protocol::{
    self, Limits, MessageHeader, MessageType, ProtocolKind, Struct, Value,
};
use basalt_thrift::transport::TransportKind;
use basalt_thrift::{ThriftConfig, ThriftServer};
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

pub struct Gateway {
    pub server: ThriftServer,
    pub conn: Arc<dyn Connection>,
    _dir: tempfile::TempDir,
}

/// A gateway on a free port with `config`'s settings.
pub fn gateway(config: ThriftConfig) -> Gateway {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open database");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db));
    let server =
        basalt_thrift::start(conn.clone(), ThriftConfig { port: 0, ..config }).expect("start");
    Gateway {
        server,
        conn,
        _dir: dir,
    }
}

/// What the server answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The result struct (field 0 success, 1.. exceptions).
    Result(Struct),
    /// A `TApplicationException`: message and type.
    AppException(String, i32),
}

impl Reply {
    pub fn result(self) -> Struct {
        match self {
            Reply::Result(s) => s,
            other => panic!("expected a result, got {other:?}"),
        }
    }

    /// The success value.
    pub fn ok(self) -> Option<Value> {
        let s = self.result();
        assert!(
            s.fields.iter().all(|(id, _)| *id == 0),
            "expected success, got {s:?}"
        );
        s.get(0).cloned()
    }

    /// The exception in field `id`, as (message, canRetry).
    pub fn exception(self, id: i16) -> (String, Option<bool>) {
        let s = self.result();
        let e = s
            .structure(id)
            .unwrap_or_else(|| panic!("expected exception {id}, got {s:?}"));
        let message = String::from_utf8_lossy(e.binary(1).expect("message")).into_owned();
        (message, e.bool(2))
    }
}

/// A raw Thrift client over one socket.
pub struct Client {
    pub stream: TcpStream,
    input: BufReader<TcpStream>,
    transport: TransportKind,
    protocol: ProtocolKind,
    seq: i32,
}

impl Client {
    pub fn connect(
        server: &ThriftServer,
        transport: TransportKind,
        protocol: ProtocolKind,
    ) -> Self {
        let stream = TcpStream::connect(server.local_addr()).expect("connect");
        Self::over(stream, transport, protocol)
    }

    /// A buffered binary client over `stream`.
    pub fn over(stream: TcpStream, transport: TransportKind, protocol: ProtocolKind) -> Self {
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let input = BufReader::new(stream.try_clone().expect("clone"));
        Self {
            stream,
            input,
            transport,
            protocol,
            seq: 0,
        }
    }

    pub fn buffered(server: &ThriftServer) -> Self {
        Self::connect(server, TransportKind::Buffered, ProtocolKind::Binary)
    }

    /// An encoder only (buffered, binary), for bytes sent by other means.
    pub fn buffered_encoder() -> Encoder {
        Encoder { seq: 0 }
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    /// Encodes a call to `name` (framed if the client is).
    pub fn encode(&mut self, name: &str, args: &Struct) -> Vec<u8> {
        self.seq += 1;
        let header = MessageHeader {
            name: name.to_string(),
            kind: MessageType::Call,
            seq_id: self.seq,
        };
        let body = protocol::write_message(self.protocol, &header, args);
        match self.transport {
            TransportKind::Buffered => body,
            TransportKind::Framed => {
                let mut framed = (body.len() as u32).to_be_bytes().to_vec();
                framed.extend_from_slice(&body);
                framed
            }
        }
    }

    pub fn call(&mut self, name: &str, args: Struct) -> Reply {
        let bytes = self.encode(name, &args);
        self.send_raw(&bytes);
        self.read_reply().expect("a reply")
    }

    /// The next reply, or `None` when the server closed the connection.
    pub fn read_reply(&mut self) -> Option<Reply> {
        let limits = Limits::default();
        let message = match self.transport {
            TransportKind::Buffered => {
                let mut r = protocol::reader(self.protocol, &mut self.input, &limits);
                protocol::read_message(r.as_mut()).ok()?
            }
            TransportKind::Framed => {
                let mut len = [0u8; 4];
                self.input.read_exact(&mut len).ok()?;
                let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
                self.input.read_exact(&mut frame).ok()?;
                let mut slice = frame.as_slice();
                let mut r = protocol::reader(self.protocol, &mut slice, &limits);
                protocol::read_message(r.as_mut()).ok()?
            }
        };
        assert_eq!(message.header.seq_id, self.seq, "the sequence id is echoed");
        Some(match message.header.kind {
            MessageType::Exception => Reply::AppException(
                String::from_utf8_lossy(message.body.binary(1).expect("message")).into_owned(),
                message.body.i32(2).expect("type"),
            ),
            _ => Reply::Result(message.body),
        })
    }

    /// Whether the server closed the connection (EOF, or reset) — not a timeout, so a
    /// server that hangs fails the test.
    pub fn closed(&mut self) -> bool {
        let mut buf = [0u8; 1];
        match self.input.read(&mut buf) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        }
    }
}

pub fn bin(text: &str) -> Value {
    Value::binary(text.to_string())
}

pub fn args() -> Struct {
    Struct::new()
}

/// `Mutation{isDelete, column, value, writeToWAL}`.
pub fn mutation(delete: bool, column: &str, value: &str) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, Value::Bool(delete))
            .with(2, bin(column))
            .with(3, bin(value))
            .with(4, Value::Bool(true)),
    )
}

pub fn list(items: Vec<Value>) -> Value {
    let ttype = items
        .first()
        .map(Value::ttype)
        .unwrap_or(protocol::TType::Binary);
    Value::List(ttype, items)
}

/// Creates `table` with families (IDL defaults) over the client.
pub fn create_table(client: &mut Client, table: &str, families: &[&str]) {
    let descriptors = families
        .iter()
        .map(|f| Value::Struct(Struct::new().with(1, bin(&format!("{f}:")))))
        .collect();
    let reply = client.call(
        "createTable",
        args().with(1, bin(table)).with(2, list(descriptors)),
    );
    assert_eq!(reply.ok(), None);
}

/// The `TCell`s of a reply as (value, timestamp).
pub fn cells(value: Option<Value>) -> Vec<(String, i64)> {
    let Some(Value::List(_, items)) = value else {
        panic!("expected a list, got {value:?}")
    };
    items
        .iter()
        .map(|c| {
            let c = c.as_struct().expect("TCell");
            (
                String::from_utf8_lossy(c.binary(1).expect("value")).into_owned(),
                c.i64(2).expect("timestamp"),
            )
        })
        .collect()
}

/// The `TRowResult`s of a reply as (row, [(column, value)]).
pub fn rows(value: Option<Value>) -> Vec<(String, Vec<(String, String)>)> {
    let Some(Value::List(_, items)) = value else {
        panic!("expected a list, got {value:?}")
    };
    items
        .iter()
        .map(|r| {
            let r = r.as_struct().expect("TRowResult");
            let row = String::from_utf8_lossy(r.binary(1).expect("row")).into_owned();
            let mut columns = Vec::new();
            if let Some(Value::Map(_, _, entries)) = r.get(2) {
                for (k, v) in entries {
                    let v = v.as_struct().expect("TCell").binary(1).expect("value");
                    columns.push((
                        String::from_utf8_lossy(k.as_binary().expect("name")).into_owned(),
                        String::from_utf8_lossy(v).into_owned(),
                    ));
                }
            }
            if let Some(sorted) = r.list(3) {
                for c in sorted {
                    let c = c.as_struct().expect("TColumn");
                    let v = c.structure(2).expect("cell").binary(1).expect("value");
                    columns.push((
                        String::from_utf8_lossy(c.binary(1).expect("name")).into_owned(),
                        String::from_utf8_lossy(v).into_owned(),
                    ));
                }
            }
            (row, columns)
        })
        .collect()
}

/// Encodes buffered binary calls without a connection.
pub struct Encoder {
    seq: i32,
}

impl Encoder {
    pub fn encode(&mut self, name: &str, args: &Struct) -> Vec<u8> {
        self.seq += 1;
        let header = MessageHeader {
            name: name.to_string(),
            kind: MessageType::Call,
            seq_id: self.seq,
        };
        protocol::write_message(ProtocolKind::Binary, &header, args)
    }
}
