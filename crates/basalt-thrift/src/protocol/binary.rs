//! `TBinaryProtocol`: big-endian fixed-width integers, length-prefixed strings.
//!
//! A strict message begins `0x80 0x01 0x00 <type>`, then the name and the sequence id; an
//! old-style (non-strict) one begins with the name's length, then the name, the type byte
//! and the sequence id. Both are read; strict is written.

use super::limits::Budget;
use super::{Limits, MessageHeader, MessageType, ProtocolReader, ProtocolWriter, TType};
use crate::ThriftError;
use bytes::Bytes;
use std::io::Read;

pub(crate) const VERSION_1: u32 = 0x8001_0000;
pub(crate) const VERSION_MASK: u32 = 0xffff_0000;
/// The longest method name a message may announce (either protocol).
pub(crate) const NAME_MAX_BYTES: usize = 256;

pub struct BinaryReader<'a> {
    input: &'a mut dyn Read,
    budget: Budget<'a>,
}

impl<'a> BinaryReader<'a> {
    pub fn new(input: &'a mut dyn Read, limits: &'a Limits) -> Self {
        Self {
            input,
            budget: Budget::new(limits),
        }
    }

    fn read_array<const N: usize>(&mut self) -> Result<[u8; N], ThriftError> {
        self.budget.spend_bytes(N)?;
        let mut buf = [0u8; N];
        self.input.read_exact(&mut buf)?;
        Ok(buf)
    }

    fn read_vec(&mut self, len: usize) -> Result<Vec<u8>, ThriftError> {
        self.budget.spend_bytes(len)?;
        let mut buf = vec![0u8; len];
        self.input.read_exact(&mut buf)?;
        Ok(buf)
    }

    fn read_type(&mut self) -> Result<TType, ThriftError> {
        let [code] = self.read_array::<1>()?;
        TType::from_code(code)
            .ok_or_else(|| ThriftError::Protocol(format!("unknown type code {code}")))
    }
}

/// Whether `b` may appear in a method name.
pub(crate) fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b':'
}

pub(crate) fn method_name(bytes: Vec<u8>) -> Result<String, ThriftError> {
    let valid = !bytes.is_empty() && bytes.iter().all(|b| name_byte(*b));
    if !valid {
        return Err(ThriftError::Protocol(
            "the method name is not an identifier (wrong transport or protocol?)".into(),
        ));
    }
    String::from_utf8(bytes).map_err(|_| ThriftError::Protocol("method name is not UTF-8".into()))
}

impl ProtocolReader for BinaryReader<'_> {
    fn read_message_begin(&mut self) -> Result<MessageHeader, ThriftError> {
        let first = u32::from_be_bytes(self.read_array::<4>()?);
        let (name, kind) = if first & 0x8000_0000 != 0 {
            if first & VERSION_MASK != VERSION_1 {
                return Err(ThriftError::Protocol(format!(
                    "bad binary protocol version {first:#010x} (wrong protocol or transport?)"
                )));
            }
            let len = self.read_i32()?;
            let len = checked_name_len(len)?;
            let name = method_name(self.read_vec(len)?)?;
            (name, (first & 0xff) as u8)
        } else {
            let len = checked_name_len(first as i32)?;
            let name = method_name(self.read_vec(len)?)?;
            let [kind] = self.read_array::<1>()?;
            (name, kind)
        };
        let kind = MessageType::from_code(kind)
            .ok_or_else(|| ThriftError::Protocol(format!("unknown message type {kind}")))?;
        let seq_id = self.read_i32()?;
        Ok(MessageHeader { name, kind, seq_id })
    }

    fn limits(&self) -> &Limits {
        self.budget.limits
    }

    fn spend_value(&mut self) -> Result<(), ThriftError> {
        self.budget.spend_value()
    }

    fn read_struct_begin(&mut self) -> Result<(), ThriftError> {
        Ok(())
    }

    fn read_struct_end(&mut self) -> Result<(), ThriftError> {
        Ok(())
    }

    fn read_field_begin(&mut self) -> Result<Option<(TType, i16)>, ThriftError> {
        let [code] = self.read_array::<1>()?;
        if code == 0 {
            return Ok(None);
        }
        let ttype = TType::from_code(code)
            .ok_or_else(|| ThriftError::Protocol(format!("unknown field type code {code}")))?;
        let id = self.read_i16()?;
        Ok(Some((ttype, id)))
    }

    fn read_bool(&mut self) -> Result<bool, ThriftError> {
        Ok(self.read_array::<1>()?[0] != 0)
    }

    fn read_byte(&mut self) -> Result<i8, ThriftError> {
        Ok(self.read_array::<1>()?[0] as i8)
    }

    fn read_i16(&mut self) -> Result<i16, ThriftError> {
        Ok(i16::from_be_bytes(self.read_array()?))
    }

    fn read_i32(&mut self) -> Result<i32, ThriftError> {
        Ok(i32::from_be_bytes(self.read_array()?))
    }

    fn read_i64(&mut self) -> Result<i64, ThriftError> {
        Ok(i64::from_be_bytes(self.read_array()?))
    }

    fn read_double(&mut self) -> Result<f64, ThriftError> {
        Ok(f64::from_be_bytes(self.read_array()?))
    }

    fn read_binary(&mut self) -> Result<Bytes, ThriftError> {
        let len = self.read_i32()?;
        let len = self.budget.check_string(i64::from(len))?;
        Ok(Bytes::from(self.read_vec(len)?))
    }

    fn read_list_begin(&mut self) -> Result<(TType, usize), ThriftError> {
        let element = self.read_type()?;
        let len = self.read_i32()?;
        Ok((element, self.budget.check_container(i64::from(len))?))
    }

    fn read_map_begin(&mut self) -> Result<(TType, TType, usize), ThriftError> {
        let key = self.read_type()?;
        let value = self.read_type()?;
        let len = self.read_i32()?;
        Ok((key, value, self.budget.check_container(i64::from(len))?))
    }
}

pub(crate) fn checked_name_len(len: i32) -> Result<usize, ThriftError> {
    match usize::try_from(len) {
        Ok(n) if n <= NAME_MAX_BYTES => Ok(n),
        _ => Err(ThriftError::Protocol(format!(
            "method name length {len} is out of range (wrong protocol or transport?)"
        ))),
    }
}

#[derive(Default)]
pub struct BinaryWriter {
    out: Vec<u8>,
}

impl ProtocolWriter for BinaryWriter {
    fn write_message_begin(&mut self, header: &MessageHeader) {
        self.write_i32((VERSION_1 | u32::from(header.kind.code())) as i32);
        self.write_binary(header.name.as_bytes());
        self.write_i32(header.seq_id);
    }

    fn write_struct_begin(&mut self) {}

    fn write_struct_end(&mut self) {}

    fn write_field_begin(&mut self, ttype: TType, id: i16) {
        self.out.push(ttype.code());
        self.write_i16(id);
    }

    fn write_bool_field(&mut self, id: i16, value: bool) {
        self.write_field_begin(TType::Bool, id);
        self.write_bool(value);
    }

    fn write_field_stop(&mut self) {
        self.out.push(0);
    }

    fn write_bool(&mut self, value: bool) {
        self.out.push(u8::from(value));
    }

    fn write_byte(&mut self, value: i8) {
        self.out.push(value as u8);
    }

    fn write_i16(&mut self, value: i16) {
        self.out.extend_from_slice(&value.to_be_bytes());
    }

    fn write_i32(&mut self, value: i32) {
        self.out.extend_from_slice(&value.to_be_bytes());
    }

    fn write_i64(&mut self, value: i64) {
        self.out.extend_from_slice(&value.to_be_bytes());
    }

    fn write_double(&mut self, value: f64) {
        self.out.extend_from_slice(&value.to_be_bytes());
    }

    fn write_binary(&mut self, value: &[u8]) {
        self.write_i32(len_i32(value.len()));
        self.out.extend_from_slice(value);
    }

    fn write_list_begin(&mut self, element: TType, len: usize) {
        self.out.push(element.code());
        self.write_i32(len_i32(len));
    }

    fn write_map_begin(&mut self, key: TType, value: TType, len: usize) {
        self.out.push(key.code());
        self.out.push(value.code());
        self.write_i32(len_i32(len));
    }

    fn into_bytes(self: Box<Self>) -> Vec<u8> {
        self.out
    }
}

/// A length as the wire's i32; what the server writes is bounded far below `i32::MAX`.
pub(crate) fn len_i32(len: usize) -> i32 {
    i32::try_from(len).unwrap_or(i32::MAX)
}
