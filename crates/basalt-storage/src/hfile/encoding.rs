//! Data blocks: cells laid out by the family's DATA_BLOCK_ENCODING, plus restart points.
//!
//! ```text
//! +---------+---------+-----+-------------+-----+-------------+----------------+
//! | entry 0 | entry 1 | ... | restart0 u32| ... | restartN u32| restart_count u32 |
//! +---------+---------+-----+-------------+-----+-------------+----------------+
//! ```
//! Every [`RESTART_INTERVAL`]th entry starts a restart point: its offset is listed at the
//! end, and (for PREFIX) it stores its whole key, so a seek binary-searches the restart keys
//! and then walks at most `RESTART_INTERVAL` entries.
//!
//! - **NONE**: an entry is the cell in [`crate::cell_codec`] form (its key is the leading
//!   [`super::key`] form, so keys are compared in place and cells share the block's bytes).
//! - **PREFIX**: `shared varint | unshared varint | unshared key bytes | tail`, where the key
//!   is the previous entry's first `shared` key bytes followed by the unshared bytes, and
//!   `tail` is `ttl_flag u8 (+ ttl u64) | value_len u32 | value` as in the cell form.

use super::key::{encode_key, KeyLayout};
use crate::cell_codec;
use basalt_types::{Cell, DataBlockEncoding};
use bytes::{BufMut, Bytes};
use std::cmp::Ordering;
use std::sync::Arc;

/// Entries between restart points.
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
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(buf: &[u8], pos: &mut usize) -> Result<u64, String> {
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

impl BlockBuilder {
    pub fn new(encoding: DataBlockEncoding) -> Self {
        Self {
            encoding,
            buf: Vec::new(),
            restarts: Vec::new(),
            count: 0,
            prev_key: Vec::new(),
            key: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the block would take now (entries and restart array).
    pub fn size_bytes(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    pub fn add(&mut self, cell: &Cell) -> Result<(), String> {
        let restart = self.count.is_multiple_of(RESTART_INTERVAL);
        if restart {
            let offset = u32::try_from(self.buf.len()).map_err(|_| "data block past 4 GiB")?;
            self.restarts.push(offset);
        }
        self.count += 1;
        match self.encoding {
            DataBlockEncoding::None => cell_codec::encode(cell, &mut self.buf),
            DataBlockEncoding::Prefix => {
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
                match cell.ttl_ms {
                    None => self.buf.put_u8(0),
                    Some(ttl) => {
                        self.buf.put_u8(1);
                        self.buf.put_u64(ttl);
                    }
                }
                let value_len =
                    u32::try_from(cell.value.len()).map_err(|_| "value longer than 4 GiB")?;
                self.buf.put_u32(value_len);
                self.buf.put_slice(&cell.value);
                std::mem::swap(&mut self.prev_key, &mut self.key);
                Ok(())
            }
        }
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
    encoding: DataBlockEncoding,
    entries: Bytes,
    restarts: Vec<u32>,
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

/// A forward cursor over one data block's entries.
#[derive(Debug)]
pub(crate) struct BlockCursor {
    block: Arc<DataBlock>,
    /// Start of the current entry; `usize::MAX` before the first.
    pos: usize,
    /// Start of the next entry.
    next: usize,
    layout: KeyLayout,
    /// NONE: the key's start in `entries`. PREFIX: unused (key lives in `key_buf`).
    key_start: usize,
    key_buf: Vec<u8>,
    tail: usize,
}

impl BlockCursor {
    pub fn new(block: Arc<DataBlock>) -> Self {
        Self {
            block,
            pos: usize::MAX,
            next: 0,
            layout: KeyLayout::default(),
            key_start: 0,
            key_buf: Vec::new(),
            tail: 0,
        }
    }

    /// The current entry's key bytes.
    pub fn raw_key(&self) -> &[u8] {
        match self.block.encoding {
            DataBlockEncoding::None => {
                &self.block.entries[self.key_start..self.key_start + self.layout.len]
            }
            DataBlockEncoding::Prefix => &self.key_buf,
        }
    }

    pub fn cmp_current(&self, key: &Cell) -> Ordering {
        self.layout.cmp_cell(self.raw_key(), key)
    }

    /// Moves to the next entry; `false` at the end of the block.
    pub fn step(&mut self) -> Result<bool, String> {
        let entries = &self.block.entries;
        if self.next >= entries.len() {
            return Ok(false);
        }
        let mut at = self.next;
        match self.block.encoding {
            DataBlockEncoding::None => {
                self.layout = KeyLayout::parse(&entries[at..])?;
                self.key_start = at;
                at += self.layout.len;
            }
            DataBlockEncoding::Prefix => {
                let shared = get_varint(entries, &mut at)?;
                let unshared = get_varint(entries, &mut at)?;
                if shared > self.key_buf.len() as u64 {
                    return Err(format!("entry at {} shares {shared} key bytes", self.next));
                }
                let end = usize::try_from(unshared)
                    .ok()
                    .and_then(|u| at.checked_add(u))
                    .filter(|end| *end <= entries.len())
                    .ok_or_else(|| format!("key of entry at {} runs past the end", self.next))?;
                self.key_buf.truncate(shared as usize);
                self.key_buf.extend_from_slice(&entries[at..end]);
                self.layout = KeyLayout::parse(&self.key_buf)?;
                if self.layout.len != self.key_buf.len() {
                    return Err(format!("key of entry at {} has trailing bytes", self.next));
                }
                at = end;
            }
        }
        self.tail = at;
        let flag = *entries.get(at).ok_or("entry ends before its ttl flag")?;
        at += match flag {
            0 => 1,
            1 => 9,
            other => return Err(format!("bad ttl flag {other}")),
        };
        let len_bytes = entries
            .get(at..at + 4)
            .ok_or("entry ends before its value length")?;
        let value_len = u32::from_be_bytes(len_bytes.try_into().expect("4 bytes")) as usize;
        let end = (at + 4)
            .checked_add(value_len)
            .filter(|end| *end <= entries.len())
            .ok_or_else(|| format!("value of entry at {} runs past the end", self.next))?;
        self.pos = self.next;
        self.next = end;
        Ok(true)
    }

    /// The current entry as a cell, sharing the block's bytes where the encoding allows.
    pub fn cell(&self) -> Cell {
        let entries = &self.block.entries;
        let mut cell = match self.block.encoding {
            DataBlockEncoding::None => self.layout.to_cell(entries, self.key_start),
            DataBlockEncoding::Prefix => self
                .layout
                .to_cell(&Bytes::copy_from_slice(&self.key_buf), 0),
        };
        let mut at = self.tail;
        if entries[at] == 1 {
            cell.ttl_ms = Some(u64::from_be_bytes(
                entries[at + 1..at + 9].try_into().expect("checked by step"),
            ));
            at += 8;
        }
        at += 5;
        cell.value = entries.slice(at..self.next);
        cell
    }

    /// Positions before the entry at restart point `i` (the next `step` reads it).
    fn rewind_to_restart(&mut self, i: usize) {
        self.next = self.block.restarts[i] as usize;
        self.pos = usize::MAX;
        self.key_buf.clear();
    }

    /// Restart point `i`'s key compared with `key`, without moving the cursor.
    fn cmp_restart(&self, i: usize, key: &Cell) -> Result<Ordering, String> {
        let entries = &self.block.entries;
        let mut at = self.block.restarts[i] as usize;
        let raw = match self.block.encoding {
            DataBlockEncoding::None => &entries[at..],
            DataBlockEncoding::Prefix => {
                let shared = get_varint(entries, &mut at)?;
                let unshared = get_varint(entries, &mut at)?;
                let end = usize::try_from(unshared)
                    .ok()
                    .and_then(|u| at.checked_add(u))
                    .filter(|end| shared == 0 && *end <= entries.len())
                    .ok_or_else(|| format!("restart point {i} is not a whole key"))?;
                &entries[at..end]
            }
        };
        Ok(KeyLayout::parse(raw)?.cmp_cell(raw, key))
    }

    /// Moves to the first entry `>= key`; `false` (and exhausted) when every entry is
    /// smaller. When already on an entry `< key` at or after the restart point the search
    /// picks, walks on from here instead (a cheap forward reseek).
    pub fn seek(&mut self, key: &Cell) -> Result<bool, String> {
        let lo = self.restart_search(key)?;
        let walk_on = self.pos != usize::MAX
            && self
                .block
                .restarts
                .get(lo)
                .is_some_and(|r| *r as usize <= self.pos)
            && self.cmp_current(key).is_lt();
        if !walk_on {
            if self.block.restarts.is_empty() {
                return Ok(false);
            }
            self.rewind_to_restart(lo);
            if !self.step()? {
                return Ok(false);
            }
        }
        while self.cmp_current(key).is_lt() {
            if !self.step()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The last restart point whose key is < `key` (0 when none is).
    fn restart_search(&self, key: &Cell) -> Result<usize, String> {
        let (mut lo, mut hi) = (0, self.block.restarts.len());
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.cmp_restart(mid, key)?.is_lt() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// The row of the last entry `< key` in this block, if any; leaves the cursor on the
    /// first entry `>= key` or past the end.
    pub fn last_row_before(&mut self, key: &Cell) -> Result<Option<Vec<u8>>, String> {
        if self.block.restarts.is_empty() {
            return Ok(None);
        }
        let lo = self.restart_search(key)?;
        self.rewind_to_restart(lo);
        let mut row: Option<Vec<u8>> = None;
        while self.step()? && self.cmp_current(key).is_lt() {
            let current = &self.raw_key()[self.layout.row.clone()];
            if row.as_deref() != Some(current) {
                row = Some(current.to_vec());
            }
        }
        Ok(row)
    }
}
