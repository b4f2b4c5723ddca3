//! HBase's row specification: which rows, columns and versions a row URL names.
//!
//! ```text
//! /<table>/<rows>[/<columns>[/<times>]][?v=<versions>]
//!   rows    := <row> | <row>,<end row> | <prefix>*     ("*" alone: every row)
//!   columns := <column>[,<column>...]                  column := <family> | <family>:<qualifier>
//!   times   := <timestamp> | <start>,<end>             [start, end), milliseconds
//! ```
//!
//! One timestamp is an end time, as in HBase's `RowSpec` (which sets only `endTime`): a
//! read selects `[0, ts)`, a write or delete happens at `ts`.
//!
//! Every piece is percent-decoded on its own, so `%2C` and `%2F` put commas and slashes
//! into keys. `<row>,<end row>` is `[row, end row)`; `<prefix>*` is every row starting
//! with the prefix (HBase stops at `prefix + 0xFF`, which misses keys continuing past that
//! byte; Basalt uses the true end of the prefix). This is a pure parser: no I/O.

use crate::error::{RestError, Result};
use crate::url::percent_decode;
use basalt_types::limits::ROW_MAX_BYTES;
use bytes::Bytes;

/// One column of a row spec: a whole family, or `family:qualifier`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    pub family: Bytes,
    /// `None` for the whole family.
    pub qualifier: Option<Bytes>,
}

impl ColumnSpec {
    /// Splits `family[:qualifier]` at the first colon.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let (family, qualifier) = match bytes.iter().position(|&b| b == b':') {
            Some(i) => (&bytes[..i], Some(Bytes::copy_from_slice(&bytes[i + 1..]))),
            None => (bytes, None),
        };
        if family.is_empty() {
            return Err(RestError::bad(format!(
                "column '{}' has an empty family",
                String::from_utf8_lossy(bytes)
            )));
        }
        Ok(Self {
            family: Bytes::copy_from_slice(family),
            qualifier,
        })
    }
}

/// Which versions a row spec selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSpec {
    /// One timestamp: reads select `[0, ts)`; writes and deletes happen at `ts`.
    At(i64),
    /// `[start, end)`.
    Range { start: i64, end: i64 },
}

/// Which rows a row spec names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowsSpec {
    One(Bytes),
    /// `[start, end)`.
    Range {
        start: Bytes,
        end: Bytes,
    },
    /// Every row starting with the prefix (empty: every row).
    Prefix(Bytes),
}

/// A parsed row specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowSpec {
    pub rows: RowsSpec,
    pub columns: Vec<ColumnSpec>,
    pub time: Option<TimeSpec>,
    /// `?v=`; `None` means one version.
    pub max_versions: Option<u32>,
}

impl RowSpec {
    /// Parses the raw (still escaped) path after `/<table>/` and the `v` parameter.
    pub fn parse(raw: &str, versions: Option<&str>) -> Result<Self> {
        let mut parts = raw.splitn(4, '/');
        let rows = parse_rows(parts.next().unwrap_or(""))?;
        let columns = match parts.next() {
            Some(cols) => parse_columns(cols)?,
            None => Vec::new(),
        };
        let time = match parts.next() {
            Some(times) if !times.is_empty() => Some(parse_times(times)?),
            _ => None,
        };
        if let Some(extra) = parts.next() {
            return Err(RestError::bad(format!(
                "row spec '{raw}' has extra path segments after the timestamps: '{extra}'"
            )));
        }
        let max_versions = versions.map(parse_versions).transpose()?;
        Ok(Self {
            rows,
            columns,
            time,
            max_versions,
        })
    }

    /// The row, when the spec names exactly one.
    pub fn single_row(&self) -> Option<&Bytes> {
        match &self.rows {
            RowsSpec::One(row) => Some(row),
            _ => None,
        }
    }
}

fn decode_key(text: &str, what: &str) -> Result<Bytes> {
    let key = percent_decode(text, false)?;
    if key.len() > ROW_MAX_BYTES {
        return Err(RestError::bad(format!(
            "{what} is {} bytes, over the {ROW_MAX_BYTES}-byte row limit",
            key.len()
        )));
    }
    Ok(Bytes::from(key))
}

fn parse_rows(text: &str) -> Result<RowsSpec> {
    if let Some(prefix) = text.strip_suffix('*') {
        if prefix.contains(',') {
            return Err(RestError::bad(format!(
                "row spec '{text}' mixes a prefix glob with a row range"
            )));
        }
        return Ok(RowsSpec::Prefix(decode_key(prefix, "row prefix")?));
    }
    match text.split_once(',') {
        Some((start, end)) => {
            let start = decode_key(start, "start row")?;
            let end = decode_key(end, "end row")?;
            if start.is_empty() {
                return Err(RestError::bad("row range with an empty start row"));
            }
            if !end.is_empty() && end < start {
                return Err(RestError::bad(format!(
                    "row range '{text}': the end row sorts before the start row"
                )));
            }
            Ok(RowsSpec::Range { start, end })
        }
        None => {
            let row = decode_key(text, "row")?;
            if row.is_empty() {
                return Err(RestError::bad("empty row key in the row spec"));
            }
            Ok(RowsSpec::One(row))
        }
    }
}

fn parse_columns(text: &str) -> Result<Vec<ColumnSpec>> {
    text.split(',')
        .filter(|c| !c.is_empty())
        .map(|c| ColumnSpec::parse(&percent_decode(c, false)?))
        .collect()
}

fn parse_timestamp(text: &str) -> Result<i64> {
    let decoded = String::from_utf8(percent_decode(text, false)?)
        .map_err(|_| RestError::bad(format!("timestamp '{text}' is not UTF-8")))?;
    match decoded.parse::<i64>() {
        Ok(ts) if ts >= 0 => Ok(ts),
        _ => Err(RestError::bad(format!(
            "timestamp '{decoded}' is not a non-negative number"
        ))),
    }
}

fn parse_times(text: &str) -> Result<TimeSpec> {
    match text.split_once(',') {
        None => Ok(TimeSpec::At(parse_timestamp(text)?)),
        Some((start, end)) => {
            let (start, end) = (parse_timestamp(start)?, parse_timestamp(end)?);
            if start >= end {
                return Err(RestError::bad(format!(
                    "time range [{start}, {end}) is empty: the start must be before the end"
                )));
            }
            Ok(TimeSpec::Range { start, end })
        }
    }
}

fn parse_versions(text: &str) -> Result<u32> {
    match text.parse::<u32>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(RestError::bad(format!(
            "v={text}: the number of versions must be a positive number"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn col(f: &str, q: Option<&str>) -> ColumnSpec {
        ColumnSpec {
            family: Bytes::copy_from_slice(f.as_bytes()),
            qualifier: q.map(|q| Bytes::copy_from_slice(q.as_bytes())),
        }
    }

    #[test]
    fn one_row_with_columns_and_timestamp() {
        let spec = RowSpec::parse("row1/cf:a,cf2/1234", Some("3")).expect("valid");
        assert_eq!(spec.rows, RowsSpec::One(Bytes::from_static(b"row1")));
        assert_eq!(spec.columns, vec![col("cf", Some("a")), col("cf2", None)]);
        assert_eq!(spec.time, Some(TimeSpec::At(1234)));
        assert_eq!(spec.max_versions, Some(3));
    }

    #[test]
    fn ranges_globs_and_time_ranges() {
        let spec = RowSpec::parse("a,c/cf/10,20", None).expect("valid");
        assert_eq!(
            spec.rows,
            RowsSpec::Range {
                start: Bytes::from_static(b"a"),
                end: Bytes::from_static(b"c")
            }
        );
        assert_eq!(spec.time, Some(TimeSpec::Range { start: 10, end: 20 }));
        let glob = RowSpec::parse("user%2F*", None).expect("valid");
        assert_eq!(glob.rows, RowsSpec::Prefix(Bytes::from_static(b"user/")));
        assert_eq!(
            RowSpec::parse("*", None).expect("valid").rows,
            RowsSpec::Prefix(Bytes::new())
        );
    }

    #[test]
    fn escapes_put_separators_into_keys() {
        let spec = RowSpec::parse("a%2Cb%2Fc/f%3Aq:x%2Cy", None).expect("valid");
        assert_eq!(spec.rows, RowsSpec::One(Bytes::from_static(b"a,b/c")));
        assert_eq!(spec.columns, vec![col("f", Some("q:x,y"))]);
        let empty_qualifier = RowSpec::parse("r/f:", None).expect("valid");
        assert_eq!(empty_qualifier.columns, vec![col("f", Some(""))]);
        let trailing = RowSpec::parse("r/", None).expect("valid");
        assert!(trailing.columns.is_empty());
    }

    #[test]
    fn malformed_specs_are_rejected_with_a_reason() {
        for (raw, v, needle) in [
            ("", None, "empty row"),
            ("r%zz", None, "percent"),
            ("r/:q", None, "empty family"),
            ("r/f/abc", None, "not a non-negative"),
            ("r/f/-5", None, "not a non-negative"),
            ("r/f/20,10", None, "empty"),
            ("r/f/1/extra", None, "extra path"),
            ("a,b*", None, "glob"),
            ("z,a", None, "sorts before"),
            (",a", None, "empty start"),
            ("r", Some("0"), "positive"),
            ("r", Some("x"), "positive"),
        ] {
            let err = RowSpec::parse(raw, v).expect_err(raw).to_string();
            assert!(err.contains(needle), "{raw}: {err}");
        }
        let long = "x".repeat(ROW_MAX_BYTES + 1);
        assert!(RowSpec::parse(&long, None).is_err());
    }

    fn escape(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("%{b:02X}")).collect()
    }

    proptest! {
        #[test]
        fn any_escaped_key_and_column_round_trip(
            row in proptest::collection::vec(any::<u8>(), 1..40),
            family in proptest::collection::vec(any::<u8>().prop_filter("no colon", |b| *b != b':'), 1..10),
            qualifier in proptest::collection::vec(any::<u8>(), 0..10),
            ts in 0i64..i64::MAX,
        ) {
            let mut column = family.clone();
            column.push(b':');
            column.extend_from_slice(&qualifier);
            let raw = format!("{}/{}/{}", escape(&row), escape(&column), ts);
            let spec = RowSpec::parse(&raw, None).expect("escaped input parses");
            prop_assert_eq!(spec.rows, RowsSpec::One(Bytes::from(row)));
            prop_assert_eq!(spec.columns, vec![ColumnSpec {
                family: Bytes::from(family),
                qualifier: Some(Bytes::from(qualifier)),
            }]);
            prop_assert_eq!(spec.time, Some(TimeSpec::At(ts)));
        }

        #[test]
        fn arbitrary_text_never_panics(raw in ".{0,60}", v in proptest::option::of(".{0,5}")) {
            let _ = RowSpec::parse(&raw, v.as_deref());
        }
    }
}
