//! Keys and values as people read them in a report.

/// Bytes as the HBase shell prints them (`Bytes.toStringBinary`): printable ASCII as is
/// except the backslash, every other byte as `\xHH`.
pub fn show_key(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..=0x7e).contains(&b) && b != b'\\' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// A register value: `absent`, or the bytes quoted; an 8-byte value that is not all
/// printable also shows the big-endian `i64` it holds, since counters are stored that way.
pub fn show_value(value: Option<&[u8]>) -> String {
    let Some(bytes) = value else {
        return "absent".to_string();
    };
    let quoted = format!("\"{}\"", show_key(bytes));
    match <[u8; 8]>::try_from(bytes) {
        Ok(word) if !bytes.iter().all(|b| (0x20..=0x7e).contains(b)) => {
            format!("{quoted} (= {})", i64::from_be_bytes(word))
        }
        _ => quoted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_bytes_and_counters() {
        assert_eq!(show_key(b"row\x00\\1"), "row\\x00\\x5C1");
        assert_eq!(show_value(None), "absent");
        assert_eq!(show_value(Some(b"abc")), "\"abc\"");
        assert_eq!(
            show_value(Some(&5i64.to_be_bytes())),
            "\"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05\" (= 5)"
        );
        assert_eq!(show_value(Some(b"abcdefgh")), "\"abcdefgh\"");
    }
}
