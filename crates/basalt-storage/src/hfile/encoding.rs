//! Data blocks: cells laid out by the family's DATA_BLOCK_ENCODING, plus restart points.
//!
//! ```text
//! +---------+---------+-----+-------------+-----+-------------+----------------+
//! | entry 0 | entry 1 | ... | restart0 u32| ... | restartN u32| restart_count u32 |
//! +---------+---------+-----+-------------+-----+-------------+----------------+
//! ```
//! A restart point is an entry that stands alone (its whole key can be read without the
//! entries before it); its offset is listed at the end, so a seek binary-searches the
//! restart keys and then walks forward. NONE, PREFIX, DIFF and FAST_DIFF make every
//! [`RESTART_INTERVAL`]th entry a restart point; ROW_INDEX_V1 makes the first cell of
//! every row one, so its restart array is the row index.
//!
//! - **NONE** and **ROW_INDEX_V1**: an entry is the cell in [`crate::cell_codec`] form (its
//!   key is the leading [`super::key`] form, so keys are compared in place and cells share
//!   the block's bytes).
//! - **PREFIX**: `shared varint | unshared varint | unshared key bytes | tail`, where the key
//!   is the previous entry's first `shared` key bytes followed by the unshared bytes, and
//!   `tail` is `ttl_flag u8 (+ ttl u64) | value_len u32 | value` as in the cell form.
//! - **DIFF**, **FAST_DIFF**: see `delta.rs`.

use super::delta::{self, Delta, Prev};
use super::key::encode_key;
use crate::cell_codec;
use basalt_types::{Cell, DataBlockEncoding};
use bytes::{BufMut, Bytes};
use std::ops::Range;

/// Entries between restart points (all encodings but ROW_INDEX_V1).
pub(crate) const RESTART_INTERVAL: usize = 16;

/// Builds one data block's raw (uncompressed) bytes.
#[derive(Debug)]
pub(crate) struct BlockBuilder {
    encoding: DataBlockEncoding,
    buf: Vec<u8>,
    restarts: Vec<u32>,
    count: usize,
    prev_key: Vec<u8>,
    key: Vec<u8>,
    /// DIFF / FAST_DIFF: the previous entry's timestamp, type and value bytes in `buf`.
    prev_timestamp: i64,
    prev_type: u8,
    prev_value: Range<usize>,
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn get_varint(buf: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or("varint runs past the end")?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("varint longer than 10 bytes".into())
}

/// The delta encoding an encoding uses, if any.
pub(crate) fn delta_of(encoding: DataBlockEncoding) -> Option<Delta> {
    match encoding {
        DataBlockEncoding::Diff => Some(Delta::Diff),
        DataBlockEncoding::FastDiff => Some(Delta::FastDiff),
        DataBlockEncoding::None | DataBlockEncoding::Prefix | DataBlockEncoding::RowIndexV1 => None,
    }
}

impl BlockBuilder {
    pub fn new(encoding: DataBlockEncoding) -> Self {
        Self {
            encoding,
            buf: Vec::new(),
            restarts: Vec::new(),
            count: 0,
            prev_key: Vec::new(),
            key: Vec::new(),
            prev_timestamp: 0,
            prev_type: 0,
            prev_value: 0..0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the block would take now (entries and restart array).
    pub fn size_bytes(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// Whether `cell` starts a restart point.
    fn is_restart(&self, cell: &Cell) -> bool {
        match self.encoding {
            DataBlockEncoding::RowIndexV1 => {
                // `prev_key` holds the previous row here.
                self.count == 0 || self.prev_key[..] != cell.row()[..]
            }
            _ => self.count.is_multiple_of(RESTART_INTERVAL),
        }
    }

    pub fn add(&mut self, cell: &Cell) -> Result<(), String> {
        let restart = self.is_restart(cell);
        if restart {
            let offset = u32::try_from(self.buf.len()).map_err(|_| "data block past 4 GiB")?;
            self.restarts.push(offset);
        }
        self.count += 1;
        match self.encoding {
            DataBlockEncoding::None => cell_codec::encode(cell, &mut self.buf),
            DataBlockEncoding::RowIndexV1 => {
                if restart {
                    self.prev_key.clear();
                    self.prev_key.extend_from_slice(cell.row());
                }
                cell_codec::encode(cell, &mut self.buf)
            }
            DataBlockEncoding::Prefix => self.add_prefix(cell, restart),
            DataBlockEncoding::Diff | DataBlockEncoding::FastDiff => {
                let kind = delta_of(self.encoding).expect("a delta encoding");
                self.key.clear();
                encode_key(cell, &mut self.key)?;
                let prev = (!restart).then(|| Prev {
                    key: &self.prev_key,
                    timestamp: self.prev_timestamp,
                    type_code: self.prev_type,
                    value_at: self.prev_value.clone(),
                });
                self.prev_value =
                    delta::encode(kind, cell, &self.key, prev.as_ref(), &mut self.buf)?;
                self.prev_timestamp = cell.timestamp();
                self.prev_type = cell.cell_type().code();
                std::mem::swap(&mut self.prev_key, &mut self.key);
                Ok(())
            }
        }
    }

    fn add_prefix(&mut self, cell: &Cell, restart: bool) -> Result<(), String> {
        self.key.clear();
        encode_key(cell, &mut self.key)?;
        let shared = if restart {
            0
        } else {
            self.prev_key
                .iter()
                .zip(&self.key)
                .take_while(|(a, b)| a == b)
                .count()
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (self.key.len() - shared) as u64);
        self.buf.put_slice(&self.key[shared..]);
        match cell.ttl_ms() {
            None => self.buf.put_u8(0),
            Some(ttl) => {
                self.buf.put_u8(1);
                self.buf.put_u64(ttl);
            }
        }
        let value_len = u32::try_from(cell.value().len()).map_err(|_| "value longer than 4 GiB")?;
        self.buf.put_u32(value_len);
        self.buf.put_slice(cell.value());
        std::mem::swap(&mut self.prev_key, &mut self.key);
        Ok(())
    }

    /// The finished block's raw bytes; the builder is empty again afterwards.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.put_u32(*r);
        }
        out.put_u32(self.restarts.len() as u32);
        self.restarts.clear();
        self.count = 0;
        self.prev_key.clear();
        out
    }
}

/// A verified, decompressed data block: what the block cache holds.
#[derive(Debug)]
pub struct DataBlock {
    pub(crate) encoding: DataBlockEncoding,
    pub(crate) entries: Bytes,
    pub(crate) restarts: Vec<u32>,
}

impl DataBlock {
    /// Splits `raw` into entries and restart points, checking the restart array's shape.
    pub(crate) fn parse(raw: Bytes, encoding: DataBlockEncoding) -> Result<Self, String> {
        let n = raw.len();
        if n < 4 {
            return Err(format!("data block of {n} bytes has no restart count"));
        }
        let count = u32::from_be_bytes(raw[n - 4..].try_into().expect("4 bytes")) as usize;
        let entries_len = count
            .checked_mul(4)
            .and_then(|b| (n - 4).checked_sub(b))
            .ok_or_else(|| format!("{count} restart points do not fit a {n}-byte block"))?;
        if (count == 0) != (entries_len == 0) {
            return Err(format!(
                "{count} restart points for {entries_len} entry bytes"
            ));
        }
        let mut restarts = Vec::with_capacity(count);
        for i in 0..count {
            let at = entries_len + 4 * i;
            let r = u32::from_be_bytes(raw[at..at + 4].try_into().expect("4 bytes"));
            let ok = if i == 0 { r == 0 } else { r > restarts[i - 1] };
            if !ok || r as usize >= entries_len {
                return Err(format!("restart point {i} at {r} is out of order or range"));
            }
            restarts.push(r);
        }
        Ok(Self {
            encoding,
            entries: raw.slice(..entries_len),
            restarts,
        })
    }

    /// Bytes this block holds in memory, for the cache's weigher.
    pub fn weight_bytes(&self) -> usize {
        self.entries.len() + 4 * self.restarts.len() + 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_entry_matches_the_documented_example() {
        let mut b = BlockBuilder::new(DataBlockEncoding::Prefix);
        let first = Cell::put("r1", "cf", "a", 5, "x");
        b.add(&first).expect("small");
        let second_at = b.buf.len();
        b.add(&Cell::put("r1", "cf", "b", 5, "y")).expect("small");
        let raw = b.finish();
        assert_eq!(&raw[second_at..second_at + 4], &[11, 18, b'b', 0]);
        // One restart point (offset 0), then the count.
        assert_eq!(&raw[raw.len() - 8..], &[0, 0, 0, 0, 0, 0, 0, 1]);
        let block = DataBlock::parse(Bytes::from(raw), DataBlockEncoding::Prefix).expect("valid");
        assert_eq!(block.restarts, vec![0]);
    }

    #[test]
    fn varints_round_trip_and_reject_overlong() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            let mut at = 0;
            assert_eq!(get_varint(&buf, &mut at), Ok(v));
            assert_eq!(at, buf.len());
        }
        assert!(get_varint(&[0x80; 11], &mut 0).is_err());
        assert!(get_varint(&[0x80], &mut 0).is_err());
    }

    #[test]
    fn bad_restart_arrays_are_rejected() {
        let bad: [&[u8]; 4] = [
            &[0, 0, 0],
            &[9, 0, 0, 0, 0],
            &[9, 0, 0, 0, 1, 0, 0, 0, 1],
            &[9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        ];
        for raw in bad {
            let raw = Bytes::copy_from_slice(raw);
            assert!(DataBlock::parse(raw, DataBlockEncoding::None).is_err());
        }
    }
}
