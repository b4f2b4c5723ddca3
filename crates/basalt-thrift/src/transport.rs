//! Transports: buffered (messages back to back on the stream) and framed (each message
//! behind a 4-byte big-endian length).
//!
//! A framed length is checked against the message limit before the frame is read; a
//! buffered message is bounded by the reader's byte budget instead.

use crate::protocol::{self, Limits, Message, MessageHeader, ProtocolKind, Struct};
use crate::ThriftError;
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;

/// How messages are delimited on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Buffered,
    Framed,
}

/// One connection's reading and writing side, in its transport and protocol.
pub struct Transport {
    input: BufReader<TcpStream>,
    output: TcpStream,
    kind: TransportKind,
    protocol: ProtocolKind,
    limits: Limits,
}

impl Transport {
    pub fn new(
        stream: TcpStream,
        kind: TransportKind,
        protocol: ProtocolKind,
        limits: Limits,
    ) -> Result<Self, ThriftError> {
        let output = stream.try_clone()?;
        Ok(Self {
            input: BufReader::with_capacity(64 * 1024, stream),
            output,
            kind,
            protocol,
            limits,
        })
    }

    /// The next message, or `None` when the peer closed the connection between messages.
    pub fn read(&mut self) -> Result<Option<Message>, ThriftError> {
        if std::io::BufRead::fill_buf(&mut self.input)?.is_empty() {
            return Ok(None);
        }
        match self.kind {
            TransportKind::Buffered => {
                let mut reader = protocol::reader(self.protocol, &mut self.input, &self.limits);
                protocol::read_message(reader.as_mut()).map(Some)
            }
            TransportKind::Framed => {
                let mut len = [0u8; 4];
                self.input.read_exact(&mut len)?;
                let len = i32::from_be_bytes(len);
                let max = self.limits.message_max_bytes;
                let len = usize::try_from(len).map_err(|_| {
                    ThriftError::Protocol(format!("negative frame length {len} (wrong transport?)"))
                })?;
                if len > max {
                    return Err(ThriftError::limit("frame length", len, max));
                }
                let mut frame = vec![0u8; len];
                self.input.read_exact(&mut frame)?;
                let mut cursor = std::io::Cursor::new(frame.as_slice());
                let mut reader = protocol::reader(self.protocol, &mut cursor, &self.limits);
                protocol::read_message(reader.as_mut()).map(Some)
            }
        }
    }

    /// Sends one message.
    pub fn write(&mut self, header: &MessageHeader, body: &Struct) -> Result<(), ThriftError> {
        let bytes = protocol::write_message(self.protocol, header, body);
        if self.kind == TransportKind::Framed {
            let len = i32::try_from(bytes.len())
                .map_err(|_| ThriftError::limit("reply size", bytes.len(), i32::MAX as usize))?;
            self.output.write_all(&len.to_be_bytes())?;
        }
        self.output.write_all(&bytes)?;
        self.output.flush()?;
        Ok(())
    }
}
