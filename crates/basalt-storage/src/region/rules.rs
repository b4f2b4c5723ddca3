//! HBase's rules for read-modify-write operations, as pure functions.
//!
//! The region reads the current cells under the row lock and asks these functions what to
//! write; they never touch storage.

use crate::{Error, Result};
use basalt_types::{Cell, CompareOp};
use bytes::Bytes;

/// What an increment of one column does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterStep {
    /// Write `value` at `timestamp`.
    Write { value: i64, timestamp: i64 },
    /// Write nothing: the current cell, whose counter is `value`, is the answer.
    Keep { value: i64 },
}

/// The counter an increment produces: `current + delta` at `max(now, current_ts + 1)`,
/// so the new value always sorts newest. A missing cell counts as 0; a cell that is not
/// 8 bytes wide fails with HBase's message.
///
/// An increment by 0 of an existing counter writes nothing and answers the current value
/// (HBASE-10252, HBase 0.98+): reading a counter through an increment — happybase's
/// `counter_get`, Thrift's `atomicIncrement(…, 0)` — must not add a version one
/// millisecond ahead that would mask a put made in the same millisecond. On a missing
/// cell an increment by 0 still writes 0 (HBASE-17318), so the counter exists afterwards.
pub fn increment(current: Option<&Cell>, delta: i64, now_ms: i64) -> Result<CounterStep> {
    Ok(match current {
        None => CounterStep::Write {
            value: delta,
            timestamp: now_ms,
        },
        Some(cell) => {
            let value = decode_counter(cell.value())?;
            if delta == 0 {
                CounterStep::Keep { value }
            } else {
                CounterStep::Write {
                    value: value.wrapping_add(delta),
                    timestamp: next_timestamp(cell.timestamp(), now_ms),
                }
            }
        }
    })
}

/// The value an append produces: `current ++ suffix` at `max(now, current_ts + 1)`.
pub fn append(current: Option<&Cell>, suffix: &[u8], now_ms: i64) -> (Bytes, i64) {
    match current {
        None => (Bytes::copy_from_slice(suffix), now_ms),
        Some(cell) => {
            let mut value = Vec::with_capacity(cell.value().len() + suffix.len());
            value.extend_from_slice(cell.value());
            value.extend_from_slice(suffix);
            (Bytes::from(value), next_timestamp(cell.timestamp(), now_ms))
        }
    }
}

fn next_timestamp(current_ts: i64, now_ms: i64) -> i64 {
    now_ms.max(current_ts.saturating_add(1))
}

/// Reads an 8-byte big-endian counter.
pub fn decode_counter(value: &[u8]) -> Result<i64> {
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        Error::DoNotRetry(format!(
            "Field is not a long, it's {} bytes wide",
            value.len()
        ))
    })?;
    Ok(i64::from_be_bytes(bytes))
}

/// Whether a check-and-mutate condition holds: `expected OP current`, with HBase's rules
/// for an empty expected value (it stands for "missing or empty") and a missing cell.
pub fn condition_holds(op: CompareOp, expected: Option<&[u8]>, current: Option<&Cell>) -> bool {
    let expected = expected.filter(|e| !e.is_empty());
    match (expected, current) {
        (None, None) => op != CompareOp::NotEqual,
        (None, Some(cell)) => cell.value().is_empty() == (op != CompareOp::NotEqual),
        (Some(_), None) => op == CompareOp::NotEqual,
        (Some(expected), Some(cell)) => op.holds(expected.cmp(cell.value().as_ref())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(ts: i64, value: &[u8]) -> Cell {
        Cell::put("r", "f", "q", ts, Bytes::copy_from_slice(value))
    }

    fn write(value: i64, timestamp: i64) -> CounterStep {
        CounterStep::Write { value, timestamp }
    }

    #[test]
    fn increment_starts_at_zero_and_moves_time_forward() {
        assert_eq!(increment(None, 5, 100).expect("valid"), write(5, 100));
        let c = cell(200, &7i64.to_be_bytes());
        assert_eq!(increment(Some(&c), -2, 100).expect("valid"), write(5, 201));
        assert_eq!(increment(Some(&c), 1, 300).expect("valid"), write(8, 300));
    }

    #[test]
    fn increment_by_zero_keeps_an_existing_counter_and_creates_a_missing_one() {
        let c = cell(200, &7i64.to_be_bytes());
        assert_eq!(
            increment(Some(&c), 0, 100).expect("valid"),
            CounterStep::Keep { value: 7 }
        );
        assert_eq!(increment(None, 0, 100).expect("valid"), write(0, 100));
    }

    #[test]
    fn increment_by_zero_of_a_short_value_still_fails() {
        let err = increment(Some(&cell(1, b"ab")), 0, 5).expect_err("2 bytes");
        assert_eq!(err.to_string(), "Field is not a long, it's 2 bytes wide");
    }

    #[test]
    fn increment_of_a_short_value_fails_with_hbase_message() {
        let err = increment(Some(&cell(1, b"abc")), 1, 5).expect_err("3 bytes");
        assert_eq!(err.to_string(), "Field is not a long, it's 3 bytes wide");
    }

    #[test]
    fn append_concatenates() {
        assert_eq!(append(None, b"x", 9), (Bytes::from_static(b"x"), 9));
        assert_eq!(
            append(Some(&cell(9, b"ab")), b"c", 5),
            (Bytes::from_static(b"abc"), 10)
        );
    }

    #[test]
    fn conditions_put_expected_on_the_left() {
        let current = cell(1, b"b");
        assert!(condition_holds(
            CompareOp::Greater,
            Some(b"c"),
            Some(&current)
        ));
        assert!(!condition_holds(
            CompareOp::Less,
            Some(b"c"),
            Some(&current)
        ));
        assert!(condition_holds(
            CompareOp::Equal,
            Some(b"b"),
            Some(&current)
        ));
    }

    #[test]
    fn empty_expected_means_missing() {
        assert!(condition_holds(CompareOp::Equal, None, None));
        assert!(!condition_holds(CompareOp::NotEqual, None, None));
        assert!(!condition_holds(
            CompareOp::Equal,
            None,
            Some(&cell(1, b"x"))
        ));
        assert!(condition_holds(
            CompareOp::NotEqual,
            Some(b""),
            Some(&cell(1, b"x"))
        ));
        assert!(condition_holds(CompareOp::Equal, None, Some(&cell(1, b""))));
        assert!(!condition_holds(CompareOp::Equal, Some(b"x"), None));
        assert!(condition_holds(CompareOp::NotEqual, Some(b"x"), None));
    }
}
