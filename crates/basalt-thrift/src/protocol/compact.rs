//! `TCompactProtocol`: varints, zigzag integers, field-id deltas and bools folded into
//! field headers.
//!
//! A message begins `0x82`, then `version | type << 5` (version 1), the sequence id as a
//! varint and the name. A field header is one byte `delta << 4 | type` when the id grows
//! by 1..=15 from the previous field, else the type byte and the id as a zigzag varint.

use super::binary::{method_name, NAME_MAX_BYTES};
use super::limits::Budget;
use super::{Limits, MessageHeader, MessageType, ProtocolReader, ProtocolWriter, TType};
use crate::ThriftError;
use bytes::Bytes;
use std::io::Read;

pub(crate) const PROTOCOL_ID: u8 = 0x82;
pub(crate) const VERSION: u8 = 1;

/// The compact protocol's type codes.
fn compact_code(ttype: TType) -> u8 {
    match ttype {
        TType::Bool => 1,
        TType::Byte => 3,
        TType::I16 => 4,
        TType::I32 => 5,
        TType::I64 => 6,
        TType::Double => 7,
        TType::Binary => 8,
        TType::List => 9,
        TType::Set => 10,
        TType::Map => 11,
        TType::Struct => 12,
    }
}

pub(crate) fn from_compact_code(code: u8) -> Result<TType, ThriftError> {
    Ok(match code {
        1 | 2 => TType::Bool,
        3 => TType::Byte,
        4 => TType::I16,
        5 => TType::I32,
        6 => TType::I64,
        7 => TType::Double,
        8 => TType::Binary,
        9 => TType::List,
        10 => TType::Set,
        11 => TType::Map,
        12 => TType::Struct,
        _ => {
            return Err(ThriftError::Protocol(format!(
                "unknown compact type code {code}"
            )))
        }
    })
}

pub(crate) fn zigzag_decode(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

fn zigzag_encode(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

pub struct CompactReader<'a> {
    input: &'a mut dyn Read,
    budget: Budget<'a>,
    last_field_id: i16,
    /// The enclosing structs' last field ids (bounded by the nesting limit).
    stack: Vec<i16>,
    /// The value of a bool field, carried in its header.
    pending_bool: Option<bool>,
}

impl<'a> CompactReader<'a> {
    pub fn new(input: &'a mut dyn Read, limits: &'a Limits) -> Self {
        Self {
            input,
            budget: Budget::new(limits),
            last_field_id: 0,
            stack: Vec::new(),
            pending_bool: None,
        }
    }

    fn read_u8(&mut self) -> Result<u8, ThriftError> {
        self.budget.spend_bytes(1)?;
        let mut buf = [0u8; 1];
        self.input.read_exact(&mut buf)?;
        Ok(buf[0])
    }

    fn read_varint(&mut self) -> Result<u64, ThriftError> {
        let mut result = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.read_u8()?;
            result |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(result);
            }
        }
        Err(ThriftError::Protocol("varint longer than 10 bytes".into()))
    }

    fn read_vec(&mut self, len: usize) -> Result<Vec<u8>, ThriftError> {
        self.budget.spend_bytes(len)?;
        let mut buf = vec![0u8; len];
        self.input.read_exact(&mut buf)?;
        Ok(buf)
    }

    fn read_len(&mut self) -> Result<i64, ThriftError> {
        let n = self.read_varint()?;
        Ok(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl ProtocolReader for CompactReader<'_> {
    fn read_message_begin(&mut self) -> Result<MessageHeader, ThriftError> {
        let id = self.read_u8()?;
        if id != PROTOCOL_ID {
            return Err(ThriftError::Protocol(format!(
                "expected the compact protocol id 0x82, got {id:#04x} (wrong protocol or transport?)"
            )));
        }
        let version_and_type = self.read_u8()?;
        if version_and_type & 0x1f != VERSION {
            return Err(ThriftError::Protocol(format!(
                "bad compact protocol version {}",
                version_and_type & 0x1f
            )));
        }
        let kind = version_and_type >> 5;
        let kind = MessageType::from_code(kind)
            .ok_or_else(|| ThriftError::Protocol(format!("unknown message type {kind}")))?;
        let seq_id = self.read_varint()? as u32 as i32;
        let len = self.read_len()?;
        let len = usize::try_from(len)
            .ok()
            .filter(|n| *n <= NAME_MAX_BYTES)
            .ok_or_else(|| {
                ThriftError::Protocol(format!("method name length {len} is out of range"))
            })?;
        let name = method_name(self.read_vec(len)?)?;
        Ok(MessageHeader { name, kind, seq_id })
    }

    fn limits(&self) -> &Limits {
        self.budget.limits
    }

    fn spend_value(&mut self) -> Result<(), ThriftError> {
        self.budget.spend_value()
    }

    fn read_struct_begin(&mut self) -> Result<(), ThriftError> {
        if self.stack.len() >= self.budget.limits.depth_max {
            return Err(ThriftError::limit(
                "nesting depth",
                self.stack.len() + 1,
                self.budget.limits.depth_max,
            ));
        }
        self.stack.push(self.last_field_id);
        self.last_field_id = 0;
        Ok(())
    }

    fn read_struct_end(&mut self) -> Result<(), ThriftError> {
        self.last_field_id = self.stack.pop().unwrap_or(0);
        Ok(())
    }

    fn read_field_begin(&mut self) -> Result<Option<(TType, i16)>, ThriftError> {
        let byte = self.read_u8()?;
        if byte == 0 {
            return Ok(None);
        }
        let code = byte & 0x0f;
        let ttype = from_compact_code(code)?;
        let delta = byte >> 4;
        let id = if delta == 0 {
            let raw = zigzag_decode(self.read_varint()?);
            i16::try_from(raw)
                .map_err(|_| ThriftError::Protocol(format!("field id {raw} is out of range")))?
        } else {
            self.last_field_id.wrapping_add(i16::from(delta))
        };
        self.last_field_id = id;
        if ttype == TType::Bool {
            self.pending_bool = Some(code == 1);
        }
        Ok(Some((ttype, id)))
    }

    fn read_bool(&mut self) -> Result<bool, ThriftError> {
        if let Some(value) = self.pending_bool.take() {
            return Ok(value);
        }
        Ok(self.read_u8()? == 1)
    }

    fn read_byte(&mut self) -> Result<i8, ThriftError> {
        Ok(self.read_u8()? as i8)
    }

    fn read_i16(&mut self) -> Result<i16, ThriftError> {
        let v = zigzag_decode(self.read_varint()?);
        i16::try_from(v).map_err(|_| ThriftError::Protocol(format!("i16 out of range: {v}")))
    }

    fn read_i32(&mut self) -> Result<i32, ThriftError> {
        let v = zigzag_decode(self.read_varint()?);
        i32::try_from(v).map_err(|_| ThriftError::Protocol(format!("i32 out of range: {v}")))
    }

    fn read_i64(&mut self) -> Result<i64, ThriftError> {
        Ok(zigzag_decode(self.read_varint()?))
    }

    fn read_double(&mut self) -> Result<f64, ThriftError> {
        self.budget.spend_bytes(8)?;
        let mut buf = [0u8; 8];
        self.input.read_exact(&mut buf)?;
        Ok(f64::from_le_bytes(buf))
    }

    fn read_binary(&mut self) -> Result<Bytes, ThriftError> {
        let len = self.read_len()?;
        let len = self.budget.check_string(len)?;
        Ok(Bytes::from(self.read_vec(len)?))
    }

    fn read_list_begin(&mut self) -> Result<(TType, usize), ThriftError> {
        let byte = self.read_u8()?;
        let element = from_compact_code(byte & 0x0f)?;
        let short = i64::from(byte >> 4);
        let len = if short == 15 { self.read_len()? } else { short };
        Ok((element, self.budget.check_container(len)?))
    }

    fn read_map_begin(&mut self) -> Result<(TType, TType, usize), ThriftError> {
        let len = self.read_len()?;
        let len = self.budget.check_container(len)?;
        if len == 0 {
            return Ok((TType::Binary, TType::Binary, 0));
        }
        let types = self.read_u8()?;
        Ok((
            from_compact_code(types >> 4)?,
            from_compact_code(types & 0x0f)?,
            len,
        ))
    }
}

#[derive(Default)]
pub struct CompactWriter {
    out: Vec<u8>,
    last_field_id: i16,
    stack: Vec<i16>,
}

impl CompactWriter {
    fn write_varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.out.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.out.push(n as u8);
    }

    fn field_header(&mut self, code: u8, id: i16) {
        let delta = i32::from(id) - i32::from(self.last_field_id);
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | code);
        } else {
            self.out.push(code);
            self.write_varint(zigzag_encode(i64::from(id)));
        }
        self.last_field_id = id;
    }
}

impl ProtocolWriter for CompactWriter {
    fn write_message_begin(&mut self, header: &MessageHeader) {
        self.out.push(PROTOCOL_ID);
        self.out.push(VERSION | (header.kind.code() << 5));
        self.write_varint(u64::from(header.seq_id as u32));
        self.write_binary(header.name.as_bytes());
    }

    fn write_struct_begin(&mut self) {
        self.stack.push(self.last_field_id);
        self.last_field_id = 0;
    }

    fn write_struct_end(&mut self) {
        self.last_field_id = self.stack.pop().unwrap_or(0);
    }

    fn write_field_begin(&mut self, ttype: TType, id: i16) {
        self.field_header(compact_code(ttype), id);
    }

    fn write_bool_field(&mut self, id: i16, value: bool) {
        self.field_header(if value { 1 } else { 2 }, id);
    }

    fn write_field_stop(&mut self) {
        self.out.push(0);
    }

    fn write_bool(&mut self, value: bool) {
        self.out.push(if value { 1 } else { 2 });
    }

    fn write_byte(&mut self, value: i8) {
        self.out.push(value as u8);
    }

    fn write_i16(&mut self, value: i16) {
        self.write_varint(zigzag_encode(i64::from(value)));
    }

    fn write_i32(&mut self, value: i32) {
        self.write_varint(zigzag_encode(i64::from(value)));
    }

    fn write_i64(&mut self, value: i64) {
        self.write_varint(zigzag_encode(value));
    }

    fn write_double(&mut self, value: f64) {
        self.out.extend_from_slice(&value.to_le_bytes());
    }

    fn write_binary(&mut self, value: &[u8]) {
        self.write_varint(value.len() as u64);
        self.out.extend_from_slice(value);
    }

    fn write_list_begin(&mut self, element: TType, len: usize) {
        let code = compact_code(element);
        if len < 15 {
            self.out.push(((len as u8) << 4) | code);
        } else {
            self.out.push(0xf0 | code);
            self.write_varint(len as u64);
        }
    }

    fn write_map_begin(&mut self, key: TType, value: TType, len: usize) {
        self.write_varint(len as u64);
        if len > 0 {
            self.out
                .push((compact_code(key) << 4) | compact_code(value));
        }
    }

    fn into_bytes(self: Box<Self>) -> Vec<u8> {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trips_the_extremes() {
        for n in [0, 1, -1, 63, -64, i64::MAX, i64::MIN, i64::from(i32::MIN)] {
            assert_eq!(zigzag_decode(zigzag_encode(n)), n);
        }
        assert_eq!(zigzag_encode(-1), 1);
        assert_eq!(zigzag_encode(1), 2);
    }
}
