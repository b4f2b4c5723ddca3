//! Whole values and messages over either protocol: decode into a [`Value`] tree with the
//! nesting limit, encode a tree back.

use super::{MessageHeader, ProtocolKind, ProtocolReader, ProtocolWriter, Struct, TType, Value};
use crate::ThriftError;

/// A decoded message: its head and its single struct (arguments or result).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub header: MessageHeader,
    pub body: Struct,
}

/// Reads one message. The arguments of any method, known or not, are consumed whole.
pub fn read_message(reader: &mut dyn ProtocolReader) -> Result<Message, ThriftError> {
    let header = reader.read_message_begin()?;
    match read_struct(reader, 1) {
        Ok(body) => Ok(Message { header, body }),
        Err(e) if e.is_disconnect() => Err(e),
        Err(e) => Err(ThriftError::BadArguments {
            header,
            source: Box::new(e),
        }),
    }
}

/// Reads a struct at nesting `depth` (1 for a message's struct).
pub fn read_struct(reader: &mut dyn ProtocolReader, depth: usize) -> Result<Struct, ThriftError> {
    reader.read_struct_begin()?;
    let mut fields = Vec::new();
    while let Some((ttype, id)) = reader.read_field_begin()? {
        let value = read_value(reader, ttype, depth)?;
        fields.push((id, value));
    }
    reader.read_struct_end()?;
    Ok(Struct { fields })
}

/// Reads one value of `ttype` found at nesting `depth`.
pub fn read_value(
    reader: &mut dyn ProtocolReader,
    ttype: TType,
    depth: usize,
) -> Result<Value, ThriftError> {
    reader.spend_value()?;
    Ok(match ttype {
        TType::Bool => Value::Bool(reader.read_bool()?),
        TType::Byte => Value::Byte(reader.read_byte()?),
        TType::I16 => Value::I16(reader.read_i16()?),
        TType::I32 => Value::I32(reader.read_i32()?),
        TType::I64 => Value::I64(reader.read_i64()?),
        TType::Double => Value::Double(reader.read_double()?),
        TType::Binary => Value::Binary(reader.read_binary()?),
        TType::Struct => {
            let inner = deeper(reader, depth)?;
            Value::Struct(read_struct(reader, inner)?)
        }
        TType::List | TType::Set => {
            let inner = deeper(reader, depth)?;
            let (element, len) = reader.read_list_begin()?;
            let mut items = Vec::with_capacity(len.min(1024));
            for _ in 0..len {
                items.push(read_value(reader, element, inner)?);
            }
            if ttype == TType::List {
                Value::List(element, items)
            } else {
                Value::Set(element, items)
            }
        }
        TType::Map => {
            let inner = deeper(reader, depth)?;
            let (key, value, len) = reader.read_map_begin()?;
            let mut entries = Vec::with_capacity(len.min(1024));
            for _ in 0..len {
                let k = read_value(reader, key, inner)?;
                let v = read_value(reader, value, inner)?;
                entries.push((k, v));
            }
            Value::Map(key, value, entries)
        }
    })
}

/// The nesting one level down, checked against the limit.
fn deeper(reader: &dyn ProtocolReader, depth: usize) -> Result<usize, ThriftError> {
    let max = reader.limits().depth_max;
    if depth + 1 > max {
        return Err(ThriftError::limit("nesting depth", depth + 1, max));
    }
    Ok(depth + 1)
}

/// Encodes one message with `kind`.
pub fn write_message(kind: ProtocolKind, header: &MessageHeader, body: &Struct) -> Vec<u8> {
    let mut writer = super::writer(kind);
    writer.write_message_begin(header);
    write_struct(writer.as_mut(), body);
    writer.into_bytes()
}

fn write_struct(writer: &mut dyn ProtocolWriter, body: &Struct) {
    writer.write_struct_begin();
    for (id, value) in &body.fields {
        if let Value::Bool(b) = value {
            writer.write_bool_field(*id, *b);
        } else {
            writer.write_field_begin(value.ttype(), *id);
            write_value(writer, value);
        }
    }
    writer.write_field_stop();
    writer.write_struct_end();
}

fn write_value(writer: &mut dyn ProtocolWriter, value: &Value) {
    match value {
        Value::Bool(b) => writer.write_bool(*b),
        Value::Byte(v) => writer.write_byte(*v),
        Value::I16(v) => writer.write_i16(*v),
        Value::I32(v) => writer.write_i32(*v),
        Value::I64(v) => writer.write_i64(*v),
        Value::Double(v) => writer.write_double(*v),
        Value::Binary(b) => writer.write_binary(b),
        Value::Struct(s) => write_struct(writer, s),
        Value::List(element, items) | Value::Set(element, items) => {
            writer.write_list_begin(*element, items.len());
            for item in items {
                write_value(writer, item);
            }
        }
        Value::Map(key, val, entries) => {
            writer.write_map_begin(*key, *val, entries.len());
            for (k, v) in entries {
                write_value(writer, k);
                write_value(writer, v);
            }
        }
    }
}
