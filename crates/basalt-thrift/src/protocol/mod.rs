//! Thrift's two wire protocols, binary and compact, behind one reader and one writer trait,
//! and [`Value`], the generic tree every message is decoded into.
//!
//! Decoding into a generic tree (rather than into generated structs) keeps every limit in
//! one place: lengths are checked before anything is allocated, the number of values and
//! the nesting depth of a message are bounded, and an unknown method's arguments are
//! consumed exactly like a known one's.
//!
//! # Layout
//! - [`value`]: [`Value`], [`Struct`] and Thrift's type codes.
//! - [`limits`]: [`Limits`] and the per-message budget a reader enforces.
//! - [`binary`]: `TBinaryProtocol` (strict writes; strict and old-style reads).
//! - [`compact`]: the compact protocol (`TCompactProtocol`).
//! - [`codec`]: reading and writing whole values and messages over either protocol.
//! - [`scan`]: where a buffered message ends, found as its bytes arrive (no decoding).

pub mod binary;
pub mod codec;
pub mod compact;
pub mod limits;
pub mod scan;
pub mod value;

pub use codec::{read_message, write_message, Message};
pub use limits::Limits;
pub use scan::{Scan, Scanner};
pub use value::{MessageType, Struct, TType, Value};

use crate::ThriftError;
use bytes::Bytes;

/// Which wire protocol a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolKind {
    Binary,
    Compact,
}

/// The head of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageHeader {
    pub name: String,
    pub kind: MessageType,
    pub seq_id: i32,
}

/// Primitive reads of one protocol. Lengths come back already checked against the limits.
pub trait ProtocolReader {
    fn read_message_begin(&mut self) -> Result<MessageHeader, ThriftError>;
    fn limits(&self) -> &Limits;
    /// Counts one more decoded value against the message's limit.
    fn spend_value(&mut self) -> Result<(), ThriftError>;
    fn read_struct_begin(&mut self) -> Result<(), ThriftError>;
    fn read_struct_end(&mut self) -> Result<(), ThriftError>;
    /// The next field's type and id, or `None` at the end of the struct.
    fn read_field_begin(&mut self) -> Result<Option<(TType, i16)>, ThriftError>;
    fn read_bool(&mut self) -> Result<bool, ThriftError>;
    fn read_byte(&mut self) -> Result<i8, ThriftError>;
    fn read_i16(&mut self) -> Result<i16, ThriftError>;
    fn read_i32(&mut self) -> Result<i32, ThriftError>;
    fn read_i64(&mut self) -> Result<i64, ThriftError>;
    fn read_double(&mut self) -> Result<f64, ThriftError>;
    fn read_binary(&mut self) -> Result<Bytes, ThriftError>;
    /// Element type and count of a list or set.
    fn read_list_begin(&mut self) -> Result<(TType, usize), ThriftError>;
    /// Key type, value type and count of a map.
    fn read_map_begin(&mut self) -> Result<(TType, TType, usize), ThriftError>;
}

/// Primitive writes of one protocol, into a buffer.
pub trait ProtocolWriter {
    fn write_message_begin(&mut self, header: &MessageHeader);
    fn write_struct_begin(&mut self);
    fn write_struct_end(&mut self);
    fn write_field_begin(&mut self, ttype: TType, id: i16);
    /// A bool field, header and value together (the compact protocol fuses them).
    fn write_bool_field(&mut self, id: i16, value: bool);
    fn write_field_stop(&mut self);
    fn write_bool(&mut self, value: bool);
    fn write_byte(&mut self, value: i8);
    fn write_i16(&mut self, value: i16);
    fn write_i32(&mut self, value: i32);
    fn write_i64(&mut self, value: i64);
    fn write_double(&mut self, value: f64);
    fn write_binary(&mut self, value: &[u8]);
    fn write_list_begin(&mut self, element: TType, len: usize);
    fn write_map_begin(&mut self, key: TType, value: TType, len: usize);
    /// The bytes written so far.
    fn into_bytes(self: Box<Self>) -> Vec<u8>;
}

/// A reader of `kind` over `input`.
pub fn reader<'a>(
    kind: ProtocolKind,
    input: &'a mut dyn std::io::Read,
    limits: &'a Limits,
) -> Box<dyn ProtocolReader + 'a> {
    match kind {
        ProtocolKind::Binary => Box::new(binary::BinaryReader::new(input, limits)),
        ProtocolKind::Compact => Box::new(compact::CompactReader::new(input, limits)),
    }
}

/// A writer of `kind` into a fresh buffer.
pub fn writer(kind: ProtocolKind) -> Box<dyn ProtocolWriter> {
    match kind {
        ProtocolKind::Binary => Box::new(binary::BinaryWriter::default()),
        ProtocolKind::Compact => Box::new(compact::CompactWriter::default()),
    }
}
