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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{reader, Limits, MessageType};
    use bytes::Bytes;

    const KINDS: [ProtocolKind; 2] = [ProtocolKind::Binary, ProtocolKind::Compact];

    fn header(name: &str) -> MessageHeader {
        MessageHeader {
            name: name.to_string(),
            kind: MessageType::Call,
            seq_id: -7,
        }
    }

    fn every_type() -> Struct {
        let inner = Struct::new()
            .with(1, Value::Bool(false))
            .with(300, Value::I64(-1));
        Struct::new()
            .with(1, Value::Bool(true))
            .with(2, Value::Byte(-3))
            .with(3, Value::I16(-300))
            .with(4, Value::I32(i32::MIN))
            .with(5, Value::I64(i64::MAX))
            .with(6, Value::Double(1.5))
            .with(7, Value::binary("héllo"))
            .with(40, Value::Struct(inner.clone()))
            .with(
                -2,
                Value::List(TType::Bool, vec![Value::Bool(true), Value::Bool(false)]),
            )
            .with(9, Value::Set(TType::I32, (0..20).map(Value::I32).collect()))
            .with(
                10,
                Value::Map(
                    TType::Binary,
                    TType::Struct,
                    vec![(Value::binary("k"), Value::Struct(inner))],
                ),
            )
            .with(11, Value::Map(TType::Binary, TType::Binary, vec![]))
            .with(12, Value::List(TType::Binary, vec![]))
    }

    fn decode(kind: ProtocolKind, bytes: &[u8], limits: &Limits) -> Result<Message, ThriftError> {
        let mut input = bytes;
        let mut r = reader(kind, &mut input, limits);
        read_message(r.as_mut())
    }

    #[test]
    fn every_type_round_trips_in_both_protocols() {
        for kind in KINDS {
            let body = every_type();
            let bytes = write_message(kind, &header("getRow"), &body);
            let message = decode(kind, &bytes, &Limits::default()).expect("decodes");
            assert_eq!(message.header, header("getRow"));
            assert_eq!(message.body, body, "{kind:?}");
        }
    }

    #[test]
    fn old_style_binary_messages_are_read() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&6i32.to_be_bytes());
        bytes.extend_from_slice(b"getRow");
        bytes.push(1);
        bytes.extend_from_slice(&9i32.to_be_bytes());
        bytes.push(0);
        let message = decode(ProtocolKind::Binary, &bytes, &Limits::default()).expect("ok");
        assert_eq!(message.header.name, "getRow");
        assert_eq!(message.header.seq_id, 9);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        for kind in KINDS {
            let bytes = write_message(kind, &header("mutateRows"), &every_type());
            for len in 0..bytes.len() {
                assert!(decode(kind, &bytes[..len], &Limits::default()).is_err());
            }
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let limits = Limits::default();
        for _ in 0..5000 {
            let mut bytes = vec![0u8; (state % 64) as usize];
            for b in &mut bytes {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = state as u8;
            }
            // A valid head makes the random body reach the value decoder.
            for kind in KINDS {
                let mut message = write_message(kind, &header("get"), &Struct::new());
                message.pop();
                message.extend_from_slice(&bytes);
                let _ = decode(kind, &message, &limits);
                let _ = decode(kind, &bytes, &limits);
            }
        }
    }

    fn assert_limit(result: Result<Message, ThriftError>, what: &str) {
        match result {
            Err(ThriftError::BadArguments { source, .. }) => {
                assert!(source.to_string().contains(what), "{source}")
            }
            other => panic!("expected a {what} limit error, got {other:?}"),
        }
    }

    #[test]
    fn lengths_are_checked_before_allocating() {
        let limits = Limits {
            string_max_bytes: 10,
            container_max_len: 5,
            ..Limits::default()
        };
        for kind in KINDS {
            let long = Struct::new().with(1, Value::binary(vec![b'x'; 11]));
            assert_limit(
                decode(kind, &write_message(kind, &header("get"), &long), &limits),
                "string length",
            );
            let many =
                Struct::new().with(1, Value::List(TType::I32, (0..6).map(Value::I32).collect()));
            assert_limit(
                decode(kind, &write_message(kind, &header("get"), &many), &limits),
                "container length",
            );
        }
        // An absurd announced length fails at once: nothing of that size is allocated.
        let mut absurd = write_message(ProtocolKind::Binary, &header("get"), &Struct::new());
        absurd.pop();
        absurd.extend_from_slice(&[11, 0, 1, 0x7f, 0xff, 0xff, 0xff]);
        assert_limit(
            decode(ProtocolKind::Binary, &absurd, &Limits::default()),
            "string length",
        );
        let mut negative = write_message(ProtocolKind::Binary, &header("get"), &Struct::new());
        negative.pop();
        negative.extend_from_slice(&[15, 0, 1, 8, 0xff, 0xff, 0xff, 0xff]);
        assert!(decode(ProtocolKind::Binary, &negative, &Limits::default()).is_err());
    }

    #[test]
    fn nesting_values_and_message_size_are_bounded() {
        let limits = Limits {
            depth_max: 4,
            values_max: 50,
            message_max_bytes: 200,
            ..Limits::default()
        };
        for kind in KINDS {
            let mut deep = Struct::new();
            for _ in 0..5 {
                deep = Struct::new().with(1, Value::Struct(deep));
            }
            assert_limit(
                decode(kind, &write_message(kind, &header("get"), &deep), &limits),
                "nesting depth",
            );
            let wide = Struct::new().with(1, Value::List(TType::Bool, vec![Value::Bool(true); 60]));
            let relaxed = Limits {
                message_max_bytes: 1 << 20,
                ..limits.clone()
            };
            assert_limit(
                decode(kind, &write_message(kind, &header("get"), &wide), &relaxed),
                "values",
            );
            let big = Struct::new().with(1, Value::binary(vec![0u8; 300]));
            assert_limit(
                decode(kind, &write_message(kind, &header("get"), &big), &limits),
                "message size",
            );
        }
    }

    #[test]
    fn compact_bool_fields_and_large_field_ids() {
        let body = Struct::new()
            .with(1, Value::Bool(false))
            .with(17, Value::Bool(true))
            .with(16, Value::binary(Bytes::from_static(b"back")));
        let bytes = write_message(ProtocolKind::Compact, &header("x"), &body);
        let message = decode(ProtocolKind::Compact, &bytes, &Limits::default()).expect("ok");
        assert_eq!(message.body, body);
    }
}
