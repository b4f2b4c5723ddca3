//! `org.apache.hadoop.hbase.util.Bytes`: the conversions runbooks use.
//!
//! | call | result |
//! |------|--------|
//! | `Bytes.toBytes('ab')` | the string's bytes |
//! | `Bytes.toBytes(5)` | 8 big-endian bytes (JRuby passes an Integer as a Java `long`) |
//! | `Bytes.toBytes(1.5)` / `(true)` | 8 bytes of the IEEE double / one byte `\xFF` |
//! | `Bytes.toLong(b)`, `toInt`, `toShort`, `toDouble` | the number (the exact width, or an error) |
//! | `Bytes.toString(b)`, `toStringBinary(b)`, `toBytesBinary(s)` | text, `\xNN`-escaped text, bytes |
//! | `Bytes.add(a, b[, c])`, `equals(a, b)`, `compareTo(a, b)` | as Java |

use super::java::bytes_of;
use super::RubyError;
use crate::parse::Value;

pub fn call(method: &str, args: &[Value]) -> Result<Value, RubyError> {
    match (method, args) {
        ("toBytes", [v]) => Ok(Value::Str(to_bytes(v)?)),
        ("toString", [v]) => Ok(Value::Str(bytes_of(v, "Bytes.toString")?)),
        ("toString", [v, Value::Int(off), Value::Int(len)]) => {
            let b = bytes_of(v, "Bytes.toString")?;
            Ok(Value::Str(slice(&b, *off, *len)?.to_vec()))
        }
        ("toStringBinary", [v]) => Ok(Value::Str(
            crate::format::bin(&bytes_of(v, "Bytes.toStringBinary")?).into_bytes(),
        )),
        ("toBytesBinary", [v]) => Ok(Value::Str(from_binary(&bytes_of(v, "Bytes.toBytesBinary")?))),
        ("toLong", [v]) => Ok(Value::Int(i64::from_be_bytes(fixed(v, method)?))),
        ("toInt", [v]) => Ok(Value::Int(i32::from_be_bytes(fixed(v, method)?).into())),
        ("toShort", [v]) => Ok(Value::Int(i16::from_be_bytes(fixed(v, method)?).into())),
        ("toDouble", [v]) => Ok(Value::Float(f64::from_be_bytes(fixed(v, method)?))),
        ("toBoolean", [v]) => Ok(Value::Bool(u8::from_be_bytes(fixed(v, method)?) != 0)),
        ("add", parts) if parts.len() >= 2 => {
            let mut out = Vec::new();
            for p in parts {
                out.extend(bytes_of(p, "Bytes.add")?);
            }
            Ok(Value::Str(out))
        }
        ("equals", [a, b]) => Ok(Value::Bool(bytes_of(a, method)? == bytes_of(b, method)?)),
        ("compareTo", [a, b]) => Ok(Value::Int(
            match bytes_of(a, method)?.cmp(&bytes_of(b, method)?) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            },
        )),
        _ => Err(RubyError::no_method(format!(
            "undefined method `{method}' for Java::OrgApacheHadoopHbaseUtil::Bytes with {} argument(s) \
             (Basalt's shell knows toBytes, toString, toStringBinary, toBytesBinary, toLong, toInt, \
             toShort, toDouble, toBoolean, add, equals, compareTo)",
            args.len()
        ))),
    }
}

/// `Bytes.toBytes(v)` for each Java overload JRuby would pick.
pub fn to_bytes(v: &Value) -> Result<Vec<u8>, RubyError> {
    Ok(match v {
        Value::Int(i) => i.to_be_bytes().to_vec(),
        Value::Float(f) => f.to_be_bytes().to_vec(),
        Value::Bool(b) => vec![if *b { 0xff } else { 0 }],
        other => bytes_of(other, "Bytes.toBytes")?,
    })
}

fn fixed<const N: usize>(v: &Value, method: &str) -> Result<[u8; N], RubyError> {
    let b = bytes_of(v, method)?;
    <[u8; N]>::try_from(b.as_slice()).map_err(|_| {
        RubyError::new(
            "IllegalArgumentException",
            format!(
                "Bytes.{method}: wrong length {}, expected {N} bytes",
                b.len()
            ),
        )
    })
}

fn slice(b: &[u8], off: i64, len: i64) -> Result<&[u8], RubyError> {
    let (off, len) = (usize::try_from(off), usize::try_from(len));
    match (off, len) {
        (Ok(o), Ok(l)) if o.checked_add(l).is_some_and(|end| end <= b.len()) => Ok(&b[o..o + l]),
        _ => Err(RubyError::new(
            "IllegalArgumentException",
            "Bytes.toString: offset and length exceed the array",
        )),
    }
}

/// The inverse of `toStringBinary`: `\xNN` becomes one byte.
fn from_binary(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' && text.get(i + 1) == Some(&b'x') && i + 3 < text.len() + 1 {
            let hex = text
                .get(i + 2..i + 4)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}
