//! Strict URL decoding: percent escapes in paths and `key=value` query pairs.
//!
//! A `%` not followed by two hex digits is an error (HBase's `URLDecoder` throws too);
//! in query strings `+` means a space, in paths it is itself.

use crate::error::{RestError, Result};

/// Decodes `%XX` escapes into bytes; `plus_is_space` for query strings.
pub fn percent_decode(text: &str, plus_is_space: bool) -> Result<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        RestError::bad(format!("malformed percent escape at byte {i} of '{text}'"))
                    })?;
                out.push(hex);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Decodes to UTF-8 text (table, namespace and scanner names).
pub fn decode_text(text: &str) -> Result<String> {
    String::from_utf8(percent_decode(text, false)?)
        .map_err(|_| RestError::bad(format!("'{text}' is not UTF-8 once decoded")))
}

/// The decoded pairs of a query string, in order; a key without `=` has an empty value.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pairs: Vec<(String, Vec<u8>)>,
}

impl Query {
    pub fn parse(raw: Option<&str>) -> Result<Self> {
        let mut pairs = Vec::new();
        for part in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let key = String::from_utf8(percent_decode(k, true)?)
                .map_err(|_| RestError::bad(format!("query key '{k}' is not UTF-8")))?;
            pairs.push((key, percent_decode(v, true)?));
        }
        Ok(Self { pairs })
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    /// Every value of `key`, in order.
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    /// The first value of `key` as UTF-8 text.
    pub fn text(&self, key: &str) -> Result<Option<&str>> {
        self.get(key)
            .map(|v| {
                std::str::from_utf8(v)
                    .map_err(|_| RestError::bad(format!("parameter '{key}' is not UTF-8")))
            })
            .transpose()
    }

    /// The first value of `key` parsed as a number.
    pub fn number<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>> {
        self.text(key)?
            .map(|v| {
                v.trim().parse::<T>().map_err(|_| {
                    RestError::bad(format!("parameter '{key}' is not a valid number: '{v}'"))
                })
            })
            .transpose()
    }

    /// The first value of `key` as a boolean (`true` / `false`).
    pub fn flag(&self, key: &str) -> Result<Option<bool>> {
        self.text(key)?
            .map(|v| match v.to_ascii_lowercase().as_str() {
                "true" | "" => Ok(true),
                "false" => Ok(false),
                _ => Err(RestError::bad(format!(
                    "parameter '{key}' must be true or false, not '{v}'"
                ))),
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_and_rejects_broken_ones() {
        assert_eq!(
            percent_decode("a%2Cb%ff", false).expect("valid"),
            b"a,b\xff"
        );
        assert_eq!(percent_decode("a+b", false).expect("valid"), b"a+b");
        assert_eq!(percent_decode("a+b", true).expect("valid"), b"a b");
        for bad in ["%", "%4", "%zz", "a%g1"] {
            assert!(percent_decode(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn query_pairs_keep_order_and_repeats() {
        let q = Query::parse(Some("row=a&row=b%20c&v=3&flag")).expect("valid");
        let rows: Vec<&[u8]> = q.all("row").collect();
        assert_eq!(rows, vec![&b"a"[..], &b"b c"[..]]);
        assert_eq!(q.number::<u32>("v").expect("number"), Some(3));
        assert_eq!(q.flag("flag").expect("flag"), Some(true));
        assert!(Query::parse(Some("v=x"))
            .expect("valid")
            .number::<u32>("v")
            .is_err());
    }
}
