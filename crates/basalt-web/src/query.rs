//! Query strings: percent-decoding with limits, and building links.
//!
//! `name=ns%3At&start=%5Cx00&rows=10` decodes to `name = "ns:t"`, `start = "\x00"` (the
//! shell's escaped form, decoded into bytes by the page), `rows = "10"`. A malformed
//! escape, a value that is not UTF-8 or a string over [`QUERY_MAX_BYTES`] is refused.

use crate::WebError;

/// The longest query string served.
pub const QUERY_MAX_BYTES: usize = 4096;
/// The most parameters read from one query string.
pub const PARAMS_MAX: usize = 32;

/// The decoded parameters of one request, in order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Query {
    params: Vec<(String, String)>,
}

impl Query {
    pub fn parse(raw: Option<&str>) -> Result<Query, WebError> {
        let Some(raw) = raw.filter(|r| !r.is_empty()) else {
            return Ok(Query::default());
        };
        if raw.len() > QUERY_MAX_BYTES {
            return Err(WebError::QueryTooLong {
                length: raw.len(),
                max: QUERY_MAX_BYTES,
            });
        }
        let mut params = Vec::new();
        for pair in raw.split('&').filter(|p| !p.is_empty()) {
            if params.len() == PARAMS_MAX {
                return Err(WebError::BadRequest(format!(
                    "more than {PARAMS_MAX} query parameters"
                )));
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            params.push((decode(key)?, decode(value)?));
        }
        Ok(Query { params })
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Decodes `%XX` escapes and `+` (a space in forms).
fn decode(text: &str) -> Result<String, WebError> {
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
                        WebError::BadRequest(format!(
                            "malformed percent-escape at byte {i} of a query parameter"
                        ))
                    })?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
        .map_err(|_| WebError::BadRequest("a query parameter is not UTF-8".to_string()))
}

/// Percent-encodes a value for a query string (everything but unreserved characters).
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A link to `path` with the given parameters.
pub fn link(path: &str, params: &[(&str, &str)]) -> String {
    let query: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", query.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_plus_and_missing_values() {
        let q = Query::parse(Some("name=ns%3At&start=%5Cx00+a&flag&rows=")).expect("valid");
        assert_eq!(q.get("name"), Some("ns:t"));
        assert_eq!(q.get("start"), Some("\\x00 a"));
        assert_eq!(q.get("flag"), Some(""));
        assert_eq!(q.get("rows"), Some(""));
        assert_eq!(q.get("other"), None);
        assert_eq!(Query::parse(None).expect("empty"), Query::default());
    }

    #[test]
    fn refuses_malformed_escapes_bad_utf8_and_excess() {
        for bad in ["a=%", "a=%4", "a=%zz", "a=%ff%fe"] {
            assert!(
                matches!(Query::parse(Some(bad)), Err(WebError::BadRequest(_))),
                "{bad}"
            );
        }
        let long = format!("a={}", "x".repeat(QUERY_MAX_BYTES));
        assert!(matches!(
            Query::parse(Some(&long)),
            Err(WebError::QueryTooLong { .. })
        ));
        let many = vec!["a=1"; PARAMS_MAX + 1].join("&");
        assert!(Query::parse(Some(&many)).is_err());
    }

    #[test]
    fn encode_round_trips_through_parse() {
        let value = "ns:t <b>&\"x\" \\x00 é";
        let url = link("/table.jsp", &[("name", value)]);
        let (_, raw) = url.split_once('?').expect("has a query");
        assert_eq!(
            Query::parse(Some(raw)).expect("valid").get("name"),
            Some(value)
        );
    }
}
