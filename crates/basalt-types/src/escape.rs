//! Bytes as the HBase shell prints them (`Bytes.toStringBinary`): printable ASCII as is,
//! everything else as `\xHH`.

/// `Bytes.toStringBinary`: printable ASCII (`0x20..=0x7e`) prints as itself except the
/// backslash, which HBase's allow-list leaves out; every other byte prints as `\xHH` with
/// uppercase hex digits.
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..=0x7e).contains(&b) && b != b'\\' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// The inverse of [`to_string_binary`]: `\xHH` sequences become bytes.
pub fn from_string_binary(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() && bytes.get(i + 1) == Some(&b'x') {
            let hex = std::str::from_utf8(&bytes[i + 2..i + 4])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_shell() {
        assert_eq!(to_string_binary(b"row\x00\xff1"), "row\\x00\\xFF1");
        assert_eq!(to_string_binary(b"a\\b c"), "a\\x5Cb c");
        assert_eq!(from_string_binary("row\\x00\\xFF1"), b"row\x00\xff1");
        assert_eq!(from_string_binary("a\\xZZ"), b"a\\xZZ");
    }
}
