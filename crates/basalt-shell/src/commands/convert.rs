//! Value converters of `get` and `scan`: a column spec `'f:q:toInt'` (or
//! `'f:q:c(org.apache.hadoop.hbase.util.Bytes).toInt'`) prints that column's values with
//! HBase's `Bytes` method, and `FORMATTER => 'toString'` does so for every column.
//!
//! | converter | prints |
//! |-----------|--------|
//! | `toStringBinary` (default) | printable ASCII, else `\xHH` |
//! | `toString` | the bytes as UTF-8 |
//! | `toHex` | lowercase hex digits |
//! | `toInt` / `toLong` / `toShort` | big-endian signed integers (4 / 8 / 2 bytes) |
//! | `toFloat` / `toDouble` | big-endian IEEE 754 (4 / 8 bytes) |
//! | `toBoolean` | `true` unless the first byte is 0 |
//!
//! A value of the wrong length prints with `toStringBinary`.

use crate::format;
use bytes::Bytes;
use std::collections::HashMap;

/// One `Bytes` method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Converter {
    StringBinary,
    String,
    Hex,
    Int,
    Long,
    Short,
    Float,
    Double,
    Boolean,
}

impl Converter {
    /// `toInt`, or `c(org.apache.hadoop.hbase.util.Bytes).toInt`.
    pub fn parse(name: &str) -> Option<Self> {
        let method = match name.strip_prefix("c(") {
            Some(rest) => rest.split_once(").")?.1,
            None => name,
        };
        Some(match method {
            "toStringBinary" => Self::StringBinary,
            "toString" => Self::String,
            "toHex" => Self::Hex,
            "toInt" => Self::Int,
            "toLong" => Self::Long,
            "toShort" => Self::Short,
            "toFloat" => Self::Float,
            "toDouble" => Self::Double,
            "toBoolean" => Self::Boolean,
            _ => return None,
        })
    }

    pub fn render(self, v: &[u8]) -> String {
        let fixed = |n: usize| v.len() == n;
        match self {
            Self::String => String::from_utf8_lossy(v).into_owned(),
            Self::Hex => v.iter().map(|b| format!("{b:02x}")).collect(),
            Self::Int if fixed(4) => i32::from_be_bytes([v[0], v[1], v[2], v[3]]).to_string(),
            Self::Short if fixed(2) => i16::from_be_bytes([v[0], v[1]]).to_string(),
            Self::Long if fixed(8) => {
                let mut b = [0u8; 8];
                b.copy_from_slice(v);
                i64::from_be_bytes(b).to_string()
            }
            Self::Float if fixed(4) => f32::from_be_bytes([v[0], v[1], v[2], v[3]]).to_string(),
            Self::Double if fixed(8) => {
                let mut b = [0u8; 8];
                b.copy_from_slice(v);
                f64::from_be_bytes(b).to_string()
            }
            Self::Boolean if !v.is_empty() => (v[0] != 0).to_string(),
            _ => format::bin(v),
        }
    }
}

/// The converters of one read: per column, and a default (`FORMATTER`).
#[derive(Debug, Clone, Default)]
pub struct Converters {
    pub columns: HashMap<(Bytes, Bytes), Converter>,
    pub default: Option<Converter>,
}

impl Converters {
    pub fn value(&self, family: &Bytes, qualifier: &Bytes, value: &[u8]) -> String {
        let converter = self
            .columns
            .get(&(family.clone(), qualifier.clone()))
            .copied()
            .or(self.default)
            .unwrap_or(Converter::StringBinary);
        converter.render(value)
    }
}

/// Splits a converter off a qualifier: `q:toInt` is `q` with `toInt`.
pub fn split_qualifier(qualifier: &[u8]) -> (Bytes, Option<Converter>) {
    if let Some(i) = qualifier.iter().position(|b| *b == b':') {
        if let Ok(name) = std::str::from_utf8(&qualifier[i + 1..]) {
            if let Some(c) = Converter::parse(name) {
                return (Bytes::copy_from_slice(&qualifier[..i]), Some(c));
            }
        }
    }
    (Bytes::copy_from_slice(qualifier), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converters_like_bytes() {
        assert_eq!(Converter::Int.render(&[0, 0, 1, 0]), "256");
        assert_eq!(Converter::Long.render(&(-5i64).to_be_bytes()), "-5");
        assert_eq!(Converter::Int.render(b"abc"), "abc");
        assert_eq!(Converter::String.render("é".as_bytes()), "é");
        assert_eq!(Converter::Hex.render(&[0xab, 1]), "ab01");
        assert_eq!(
            Converter::parse("c(org.apache.hadoop.hbase.util.Bytes).toLong"),
            Some(Converter::Long)
        );
        assert_eq!(
            split_qualifier(b"q:toInt"),
            (Bytes::from("q"), Some(Converter::Int))
        );
        assert_eq!(split_qualifier(b"a:b"), (Bytes::from("a:b"), None));
    }
}
