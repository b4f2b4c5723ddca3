//! DIFF and FAST_DIFF entries: each key is stored as a delta of the previous entry's key,
//! after HBase's DiffKeyDeltaEncoder and FastDiffDeltaEncoder (the ideas, not their bytes).
//!
//! A key splits into its *prefix* (`row_len | row | fam_len | family | qual_len |
//! qualifier`, see `key.rs`) and its fixed tail (timestamp, type, sequence id). The prefix
//! is stored as in PREFIX (bytes shared with the previous prefix, then the rest); the tail
//! is where the two differ:
//!
//! ```text
//! DIFF:      | flags u8 | shared varint | unshared varint | unshared bytes |
//!            | ts number (ts_len bytes) | [type u8] | seq_id varint | [ttl u64] |
//!            | value_len varint | value |
//!   flags: 0x01 SAME_TYPE  0x02 TS_DIFF (number = previous ts − ts)  0x04 NEGATIVE
//!          0x08 TTL        bits 4..8 ts_len (0..=8)
//!
//! FAST_DIFF: | flags u8 | shared varint | unshared varint | unshared bytes |
//!            | ts suffix (8 − ts_shared bytes) | [type u8] | seq_id varint | [ttl u64] |
//!            | [value_len varint | value] |
//!   flags: 0x01 SAME_TYPE  0x02 SAME_VALUE (value is the previous entry's)  0x08 TTL
//!          bits 4..8 ts_shared: leading bytes of the 8-byte big-endian timestamp equal
//!          to the previous entry's (0..=8)
//! ```
//! DIFF writes the timestamp as itself or as its difference from the previous one,
//! whichever is shorter (versions of one column step down by small amounts). FAST_DIFF
//! writes only the timestamp bytes that changed, and nothing for a value equal to the
//! previous one. A restart entry refers to nothing before it: `shared = 0`, no SAME_*
//! flag, no TS_DIFF and `ts_shared = 0`; the decoder refuses such references when it has
//! no previous entry, so a damaged block is an error, never a panic.

use super::encoding::{get_varint, put_varint};
use super::key::{KeyLayout, KEY_TAIL_BYTES};
use basalt_types::Cell;
use bytes::BufMut;
use std::ops::Range;

const SAME_TYPE: u8 = 0x01;
const TS_DIFF: u8 = 0x02;
const SAME_VALUE: u8 = 0x02;
const NEGATIVE: u8 = 0x04;
const TTL: u8 = 0x08;

/// Which of the two delta encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delta {
    Diff,
    FastDiff,
}

/// What an entry may refer to: the previous entry's key parts and value.
#[derive(Debug, Clone)]
pub(crate) struct Prev<'a> {
    /// The previous entry's whole key.
    pub key: &'a [u8],
    pub timestamp: i64,
    pub type_code: u8,
    /// Where the previous entry's value bytes sit in the block being written.
    pub value_at: Range<usize>,
}

/// Bytes needed to write `v` big-endian without leading zero bytes.
fn byte_len(v: u64) -> usize {
    8 - (v.leading_zeros() / 8) as usize
}

/// Appends one entry for `cell`, whose whole key is `key`, to `out` (the block so far).
/// Returns where the value's bytes are (the previous entry's for a FAST_DIFF SAME_VALUE
/// entry).
pub(crate) fn encode(
    delta: Delta,
    cell: &Cell,
    key: &[u8],
    prev: Option<&Prev<'_>>,
    out: &mut Vec<u8>,
) -> Result<Range<usize>, String> {
    let prefix = &key[..key.len() - KEY_TAIL_BYTES];
    let shared = prev.map_or(0, |p| {
        let prev_prefix = &p.key[..p.key.len() - KEY_TAIL_BYTES];
        prev_prefix
            .iter()
            .zip(prefix)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let type_code = cell.cell_type().code();
    let mut flags = if cell.ttl_ms().is_some() { TTL } else { 0 };
    if prev.is_some_and(|p| p.type_code == type_code) {
        flags |= SAME_TYPE;
    }
    let ts = cell.timestamp();
    let mut ts_bytes = [0u8; 8];
    let ts_len;
    match delta {
        Delta::Diff => {
            let plain = ts.unsigned_abs();
            let diff = prev.map(|p| i128::from(p.timestamp) - i128::from(ts));
            // |diff| < 2^64: both timestamps are i64.
            let diff_mag = diff.map(|d| d.unsigned_abs() as u64);
            let (negative, number) = match diff_mag {
                Some(m) if byte_len(m) < byte_len(plain) => {
                    flags |= TS_DIFF;
                    (diff.is_some_and(|d| d < 0), m)
                }
                _ => (ts < 0, plain),
            };
            if negative {
                flags |= NEGATIVE;
            }
            ts_len = byte_len(number);
            ts_bytes = number.to_be_bytes();
            ts_bytes.rotate_left(8 - ts_len);
        }
        Delta::FastDiff => {
            let now = ts.to_be_bytes();
            let same = prev.map_or(0, |p| {
                let before = p.timestamp.to_be_bytes();
                before.iter().zip(&now).take_while(|(a, b)| a == b).count()
            });
            ts_len = 8 - same;
            ts_bytes[..ts_len].copy_from_slice(&now[same..]);
            flags |= (same as u8) << 4;
        }
    }
    let same_value = delta == Delta::FastDiff
        && prev.is_some_and(|p| out.get(p.value_at.clone()) == Some(cell.value()));
    if same_value {
        flags |= SAME_VALUE;
    }
    if delta == Delta::Diff {
        flags |= (ts_len as u8) << 4;
    }
    out.put_u8(flags);
    put_varint(out, shared as u64);
    put_varint(out, (prefix.len() - shared) as u64);
    out.put_slice(&prefix[shared..]);
    out.put_slice(&ts_bytes[..ts_len]);
    if flags & SAME_TYPE == 0 {
        out.put_u8(type_code);
    }
    put_varint(out, cell.seq_id());
    if let Some(ttl) = cell.ttl_ms() {
        out.put_u64(ttl);
    }
    if same_value {
        return Ok(prev.map(|p| p.value_at.clone()).unwrap_or_default());
    }
    put_varint(out, cell.value().len() as u64);
    let start = out.len();
    out.put_slice(cell.value());
    Ok(start..out.len())
}

/// One decoded entry: its key is in the caller's key buffer.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub layout: KeyLayout,
    pub ttl_ms: Option<u64>,
    pub value: Range<usize>,
    /// Where the next entry starts.
    pub next: usize,
}

fn take<'a>(buf: &'a [u8], at: &mut usize, len: usize, what: &str) -> Result<&'a [u8], String> {
    let end = at
        .checked_add(len)
        .filter(|end| *end <= buf.len())
        .ok_or_else(|| format!("{what} runs past the end of the block"))?;
    let bytes = &buf[*at..end];
    *at = end;
    Ok(bytes)
}

/// Decodes the entry at `at` of `entries`. `key` holds the previous entry's whole key when
/// `prev` is given (its prefix is what `shared` counts from) and receives this entry's.
pub(crate) fn decode(
    delta: Delta,
    entries: &[u8],
    mut at: usize,
    key: &mut Vec<u8>,
    prev: Option<(i64, u8, Range<usize>)>,
) -> Result<Decoded, String> {
    let start = at;
    let flags = *take(entries, &mut at, 1, "entry flags")?
        .first()
        .unwrap_or(&0);
    let known = match delta {
        Delta::Diff => 0xff,
        Delta::FastDiff => !NEGATIVE,
    };
    let needs_prev = match delta {
        Delta::Diff => flags & (SAME_TYPE | TS_DIFF) != 0,
        Delta::FastDiff => flags & (SAME_TYPE | SAME_VALUE) != 0 || flags >> 4 != 0,
    };
    if flags & !known != 0 || flags >> 4 > 8 || (needs_prev && prev.is_none()) {
        return Err(format!("entry at {start} has bad flags {flags:#04x}"));
    }
    let shared = get_varint(entries, &mut at)?;
    let unshared = get_varint(entries, &mut at)?;
    let prev_prefix = if prev.is_some() {
        key.len().saturating_sub(KEY_TAIL_BYTES)
    } else {
        0
    };
    if shared > prev_prefix as u64 {
        return Err(format!("entry at {start} shares {shared} key bytes"));
    }
    let unshared = usize::try_from(unshared).map_err(|_| "key length overflows")?;
    let rest = take(entries, &mut at, unshared, "key")?;
    key.truncate(shared as usize);
    key.extend_from_slice(rest);
    let ts_field = usize::from(flags >> 4);
    let timestamp = match delta {
        Delta::Diff => {
            let mut number = [0u8; 8];
            number[8 - ts_field..].copy_from_slice(take(entries, &mut at, ts_field, "timestamp")?);
            let magnitude = i128::from(u64::from_be_bytes(number));
            let signed = if flags & NEGATIVE != 0 {
                -magnitude
            } else {
                magnitude
            };
            let ts = match prev.as_ref() {
                Some((p, _, _)) if flags & TS_DIFF != 0 => i128::from(*p) - signed,
                _ => signed,
            };
            i64::try_from(ts).map_err(|_| format!("entry at {start} has timestamp {ts}"))?
        }
        Delta::FastDiff => {
            let mut bytes = prev.as_ref().map_or(0, |p| p.0).to_be_bytes();
            let suffix = take(entries, &mut at, 8 - ts_field, "timestamp")?;
            bytes[ts_field..].copy_from_slice(suffix);
            i64::from_be_bytes(bytes)
        }
    };
    let type_code = match prev.as_ref() {
        Some((_, t, _)) if flags & SAME_TYPE != 0 => *t,
        _ => take(entries, &mut at, 1, "type")?[0],
    };
    let seq_id = get_varint(entries, &mut at)?;
    key.put_i64(timestamp);
    key.put_u8(type_code);
    key.put_u64(seq_id);
    let layout = KeyLayout::parse(key)?;
    if layout.len != key.len() {
        return Err(format!("key of entry at {start} has trailing bytes"));
    }
    let ttl_ms = if flags & TTL != 0 {
        let raw = take(entries, &mut at, 8, "ttl")?;
        Some(u64::from_be_bytes(raw.try_into().expect("8 bytes")))
    } else {
        None
    };
    let value = match prev {
        Some((_, _, value)) if delta == Delta::FastDiff && flags & SAME_VALUE != 0 => value,
        _ => {
            let len = get_varint(entries, &mut at)?;
            let len = usize::try_from(len).map_err(|_| "value length overflows")?;
            let from = at;
            take(entries, &mut at, len, "value")?;
            from..at
        }
    };
    Ok(Decoded {
        layout,
        ttl_ms,
        value,
        next: at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hfile::encoding::{BlockBuilder, DataBlock};
    use basalt_types::{CellType, DataBlockEncoding};
    use bytes::Bytes;

    /// The bytes of the second of two entries (the first is a restart point).
    fn second_entry(encoding: DataBlockEncoding, a: &Cell, b: &Cell) -> Vec<u8> {
        let mut one = BlockBuilder::new(encoding);
        one.add(a).expect("small");
        let first_len = one.size_bytes() - 8;
        one.add(b).expect("small");
        let raw = one.finish();
        raw[first_len..raw.len() - 8].to_vec()
    }

    const PUT: u8 = 4;

    #[test]
    fn diff_entries_match_the_documented_example() {
        assert_eq!(CellType::Put.code(), PUT);
        let a = Cell::put("r1", "cf", "a", 1000, "x");
        let b = Cell::put("r1", "cf", "a", 990, "x").with_seq(300);
        let mut first = BlockBuilder::new(DataBlockEncoding::Diff);
        first.add(&a).expect("small");
        // flags 0x20 (ts_len 2, plain), shared 0, unshared 12 (the prefix), ts 03e8, type,
        // seq 0, value_len 1, 'x'.
        let mut want = vec![
            0x20, 0, 12, 0, 2, b'r', b'1', 2, b'c', b'f', 0, 0, 0, 1, b'a',
        ];
        want.extend_from_slice(&[0x03, 0xe8, PUT, 0, 1, b'x']);
        assert_eq!(&first.finish()[..want.len()], &want[..]);
        // SAME_TYPE | TS_DIFF, ts_len 1: 1000 − 990 = 10; the whole prefix shared; seq 300
        // as a varint.
        assert_eq!(
            second_entry(DataBlockEncoding::Diff, &a, &b),
            [0x13, 12, 0, 10, 0xac, 0x02, 1, b'x']
        );
        // A newer timestamp in the next column: a negative difference.
        let c = Cell::put("r1", "cf", "b", 1001, "");
        assert_eq!(
            second_entry(DataBlockEncoding::Diff, &a, &c),
            [0x17, 11, 1, b'b', 1, 0, 0]
        );
    }

    #[test]
    fn fast_diff_entries_match_the_documented_example() {
        let a = Cell::put("r1", "cf", "a", 1000, "x");
        let b = Cell::put("r1", "cf", "a", 990, "x");
        // SAME_TYPE | SAME_VALUE, 7 timestamp bytes shared: only 0xde is written, no value.
        assert_eq!(
            second_entry(DataBlockEncoding::FastDiff, &a, &b),
            [0x73, 12, 0, 0xde, 0]
        );
        // A delete marker after a put: its type and (empty) value are written.
        let d = Cell::marker("r1", "cf", "a", 990, CellType::DeleteColumn);
        assert_eq!(
            second_entry(DataBlockEncoding::FastDiff, &a, &d),
            [0x70, 12, 0, 0xde, CellType::DeleteColumn.code(), 0, 0]
        );
    }

    #[test]
    fn row_index_restarts_at_each_row() {
        let cells = [
            Cell::put("r1", "cf", "a", 1, "x"),
            Cell::put("r1", "cf", "b", 1, "x"),
            Cell::put("r2", "cf", "a", 1, ""),
        ];
        let mut b = BlockBuilder::new(DataBlockEncoding::RowIndexV1);
        let mut none = Vec::new();
        for c in &cells {
            b.add(c).expect("small");
            crate::cell_codec::encode(c, &mut none).expect("small");
        }
        let raw = b.finish();
        // The entries are the NONE cell form exactly; the row index follows.
        assert_eq!(&raw[..none.len()], &none[..]);
        let second_row = 2 * crate::cell_codec::encoded_len(&cells[0]) as u32;
        let block =
            DataBlock::parse(Bytes::from(raw), DataBlockEncoding::RowIndexV1).expect("valid");
        assert_eq!(block.restarts, vec![0, second_row]);
    }

    /// Entries that refer to a previous one are refused where there is none (a restart
    /// point, or the first entry), and every truncation of an entry is an error.
    #[test]
    fn bad_entries_are_errors() {
        let a = Cell::put("r1", "cf", "a", 1000, "x");
        let b = Cell::put("r1", "cf", "a", 990, "x");
        for (delta, encoding) in [
            (Delta::Diff, DataBlockEncoding::Diff),
            (Delta::FastDiff, DataBlockEncoding::FastDiff),
        ] {
            let entry = second_entry(encoding, &a, &b);
            let mut key = Vec::new();
            assert!(
                decode(delta, &entry, 0, &mut key, None).is_err(),
                "{delta:?}"
            );
            let mut whole = BlockBuilder::new(encoding);
            whole.add(&a).expect("small");
            let raw = whole.finish();
            let entry = &raw[..raw.len() - 8];
            let d = decode(delta, entry, 0, &mut key, None).expect("whole entry");
            assert_eq!(d.next, entry.len());
            for len in 0..entry.len() {
                assert!(decode(delta, &entry[..len], 0, &mut key, None).is_err());
            }
        }
        // Unknown flag bits and a timestamp field longer than 8 bytes.
        let mut key = Vec::new();
        assert!(decode(Delta::FastDiff, &[0x04, 0, 0], 0, &mut key, None).is_err());
        assert!(decode(Delta::Diff, &[0x90, 0, 0], 0, &mut key, None).is_err());
    }
}
