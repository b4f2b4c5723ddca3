//! Transports: buffered (messages back to back on the stream) and framed (each message
//! behind a 4-byte big-endian length), read from a connection without a thread waiting.
//!
//! [`MessageReader`] gathers one message's bytes: framed, up to the length in front (checked
//! against the message limit before anything is read); buffered, until the
//! [`Scanner`] finds where the message's struct ends. Between messages it holds no buffer
//! at all (an idle connection costs no more than its socket and its task), and a buffer
//! grows with the bytes actually received, never with a length the peer merely announced.
//! [`Wire`] decodes a gathered message and encodes replies.

use crate::protocol::{self, Limits, Message, MessageHeader, ProtocolKind, Scan, Scanner, Struct};
use crate::ThriftError;
use basalt_net::Conn;
use bytes::{Buf, Bytes, BytesMut};
use tokio::io::AsyncReadExt;

/// The first read of a message takes up to this; each later one up to what is held.
const FIRST_READ_BYTES: usize = 4 * 1024;
/// The most one read adds.
const READ_MAX_BYTES: usize = 1024 * 1024;

/// How messages are delimited on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Buffered,
    Framed,
}

/// How a gateway's messages are coded: transport, protocol and limits.
#[derive(Debug, Clone)]
pub struct Wire {
    pub transport: TransportKind,
    pub protocol: ProtocolKind,
    pub limits: Limits,
}

impl Wire {
    /// Decodes one gathered message (for framed, the frame's content).
    pub fn decode(&self, input: &[u8]) -> Result<Message, ThriftError> {
        let mut input = input;
        let mut reader = protocol::reader(self.protocol, &mut input, &self.limits);
        protocol::read_message(reader.as_mut())
    }

    /// Encodes one message, framed if the transport is.
    pub fn encode(&self, header: &MessageHeader, body: &Struct) -> Result<Vec<u8>, ThriftError> {
        let bytes = protocol::write_message(self.protocol, header, body);
        if self.transport == TransportKind::Buffered {
            return Ok(bytes);
        }
        let len = i32::try_from(bytes.len())
            .map_err(|_| ThriftError::limit("reply size", bytes.len(), i32::MAX as usize))?;
        let mut framed = Vec::with_capacity(4 + bytes.len());
        framed.extend_from_slice(&len.to_be_bytes());
        framed.extend_from_slice(&bytes);
        Ok(framed)
    }
}

/// What arrived on a connection.
#[derive(Debug)]
pub enum Incoming {
    /// A whole message (a frame's content, without its length).
    Message(Bytes),
    /// Buffered bytes that are no valid message, or break a limit: for the decoder to say
    /// what is wrong before the connection closes.
    Malformed(Bytes),
    /// A frame length that is negative or over the limit.
    BadFrame(ThriftError),
    /// The peer closed the connection (between messages, or in the middle of one).
    Closed,
}

/// Gathers one connection's messages.
pub struct MessageReader {
    transport: TransportKind,
    scanner: Scanner,
    message_max_bytes: usize,
    buf: BytesMut,
}

impl MessageReader {
    pub fn new(wire: &Wire) -> Self {
        Self {
            transport: wire.transport,
            scanner: Scanner::new(wire.protocol, wire.limits.clone()),
            message_max_bytes: wire.limits.message_max_bytes,
            buf: BytesMut::new(),
        }
    }

    /// Bytes held now (received, not yet handed out).
    pub fn held(&self) -> usize {
        self.buf.len()
    }

    /// The next message, reading from `conn` as needed.
    pub async fn next(&mut self, conn: &mut Conn) -> std::io::Result<Incoming> {
        loop {
            if let Some(found) = self.look() {
                return Ok(found);
            }
            if self.buf.is_empty() {
                // Idle: wait with no buffer at all.
                conn.readable().await?;
            }
            let grow = self.buf.len().clamp(FIRST_READ_BYTES, READ_MAX_BYTES);
            self.buf.reserve(grow);
            if conn.read_buf(&mut self.buf).await? == 0 {
                return Ok(Incoming::Closed);
            }
        }
    }

    /// A message, if the bytes held make one (or cannot).
    fn look(&mut self) -> Option<Incoming> {
        let found = match self.transport {
            TransportKind::Framed => self.look_framed()?,
            TransportKind::Buffered => match self.scanner.scan(&self.buf) {
                Scan::Incomplete => return None,
                Scan::Complete(len) => {
                    self.scanner.reset();
                    Incoming::Message(self.buf.split_to(len).freeze())
                }
                Scan::Invalid => {
                    self.scanner.reset();
                    Incoming::Malformed(self.buf.split().freeze())
                }
            },
        };
        if self.buf.is_empty() {
            // Gives the allocation back (the message keeps what it uses).
            self.buf = BytesMut::new();
        }
        Some(found)
    }

    fn look_framed(&mut self) -> Option<Incoming> {
        let head: [u8; 4] = self.buf.get(..4)?.try_into().ok()?;
        let len = i32::from_be_bytes(head);
        let Ok(len) = usize::try_from(len) else {
            return Some(Incoming::BadFrame(ThriftError::Protocol(format!(
                "negative frame length {len} (wrong transport?)"
            ))));
        };
        if len > self.message_max_bytes {
            return Some(Incoming::BadFrame(ThriftError::limit(
                "frame length",
                len,
                self.message_max_bytes,
            )));
        }
        if self.buf.len() < 4 + len {
            return None;
        }
        let mut frame = self.buf.split_to(4 + len);
        frame.advance(4);
        Some(Incoming::Message(frame.freeze()))
    }
}
