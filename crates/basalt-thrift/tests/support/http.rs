//! A keep-alive HTTP/1.1 client posting Thrift messages (binary protocol).

use basalt_thrift::protocol::{self, Limits, MessageHeader, MessageType, ProtocolKind, Struct};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One keep-alive HTTP/1.1 connection posting Thrift messages.
pub struct Http {
    pub stream: TcpStream,
    input: BufReader<TcpStream>,
}

impl Http {
    pub fn connect(server: &basalt_thrift::ThriftServer) -> Self {
        Self::over(TcpStream::connect(server.local_addr()).expect("connect"))
    }

    pub fn over(stream: TcpStream) -> Self {
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let input = BufReader::new(stream.try_clone().expect("clone"));
        Self { stream, input }
    }

    pub fn send_head(&mut self, content_length: usize) {
        let head = format!(
            "POST /thrift HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-thrift\r\nContent-Length: {content_length}\r\n\r\n"
        );
        self.stream.write_all(head.as_bytes()).expect("send head");
    }

    /// Posts `body`; the status and the response body, or `None` if the server closed.
    pub fn post(&mut self, body: &[u8]) -> Option<(u16, Vec<u8>)> {
        self.send_head(body.len());
        self.stream.write_all(body).expect("send body");
        self.response()
    }

    pub fn response(&mut self) -> Option<(u16, Vec<u8>)> {
        let mut status_line = String::new();
        if self.input.read_line(&mut status_line).ok()? == 0 {
            return None;
        }
        let status: u16 = status_line.split(' ').nth(1)?.parse().ok()?;
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            self.input.read_line(&mut line).ok()?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().ok()?;
                }
            }
        }
        let mut body = vec![0u8; length];
        self.input.read_exact(&mut body).ok()?;
        Some((status, body))
    }

    /// Calls `name` (binary protocol); the reply's result struct.
    pub fn call(&mut self, name: &str, args: &Struct) -> Struct {
        let header = MessageHeader {
            name: name.to_string(),
            kind: MessageType::Call,
            seq_id: 7,
        };
        let bytes = protocol::write_message(ProtocolKind::Binary, &header, args);
        let (status, body) = self.post(&bytes).expect("a response");
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let limits = Limits::default();
        let mut slice = body.as_slice();
        let mut reader = protocol::reader(ProtocolKind::Binary, &mut slice, &limits);
        let message = protocol::read_message(reader.as_mut()).expect("a reply message");
        assert_eq!(message.header.seq_id, 7);
        assert_eq!(message.header.kind, MessageType::Reply);
        message.body
    }
}
