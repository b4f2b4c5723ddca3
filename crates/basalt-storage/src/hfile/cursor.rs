//! Walking a data block: a forward cursor that decodes one entry at a time, compares keys
//! in place, and seeks by binary search over the restart points (see `encoding.rs` for the
//! layout). Cells it hands out share the block's bytes when the encoding is NONE or
//! ROW_INDEX_V1; the delta encodings rebuild each key in a buffer.

use super::delta::{self, Delta};
use super::encoding::{delta_of, get_varint, DataBlock};
use super::key::KeyLayout;
use basalt_types::{Cell, DataBlockEncoding};
use bytes::{Bytes, BytesMut};
use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

/// Size of each rebuilt-key arena chunk.
const KEY_ARENA_BYTES: usize = 16 * 1024;

/// A forward cursor over one data block's entries.
#[derive(Debug)]
pub(crate) struct BlockCursor {
    block: Arc<DataBlock>,
    /// DIFF / FAST_DIFF of the block, if it is one.
    delta: Option<Delta>,
    /// Start of the current entry; `usize::MAX` before the first.
    pos: usize,
    /// Start of the next entry.
    next: usize,
    layout: KeyLayout,
    /// NONE, ROW_INDEX_V1: the key's start in `entries`. Others: unused (key in `key_buf`).
    key_start: usize,
    key_buf: Vec<u8>,
    /// DIFF / FAST_DIFF: the current entry is one the next may refer to (false after a
    /// rewind to a restart point, whose entry refers to nothing).
    have_prev: bool,
    ttl_ms: Option<u64>,
    /// The current entry's value within `entries`.
    value: Range<usize>,
    /// DIFF / FAST_DIFF: a restart point's key, rebuilt for comparing during a search.
    scratch: Vec<u8>,
    /// Rebuilt keys handed out in cells are carved from this, so cells cost one
    /// allocation per [`KEY_ARENA_BYTES`] of keys rather than one each.
    arena: BytesMut,
}

/// The `ttl_flag u8 (+ ttl u64) | value_len u32 | value` tail at `at`: the TTL, the
/// value's range and where the entry ends.
fn cell_tail(entries: &[u8], mut at: usize) -> Result<(Option<u64>, Range<usize>), String> {
    let flag = *entries.get(at).ok_or("entry ends before its ttl flag")?;
    let ttl_ms = match flag {
        0 => None,
        1 => {
            let raw = entries
                .get(at + 1..at + 9)
                .ok_or("entry ends inside its ttl")?;
            Some(u64::from_be_bytes(raw.try_into().expect("8 bytes")))
        }
        other => return Err(format!("bad ttl flag {other}")),
    };
    at += if ttl_ms.is_some() { 9 } else { 1 };
    let len_bytes = entries
        .get(at..at + 4)
        .ok_or("entry ends before its value length")?;
    let value_len = u32::from_be_bytes(len_bytes.try_into().expect("4 bytes")) as usize;
    let end = (at + 4)
        .checked_add(value_len)
        .filter(|end| *end <= entries.len())
        .ok_or("value runs past the end")?;
    Ok((ttl_ms, at + 4..end))
}

impl BlockCursor {
    /// A cursor that carves rebuilt keys (and their values) from `arena` (the previous
    /// block's leftover).
    pub fn with_arena(block: Arc<DataBlock>, arena: BytesMut) -> Self {
        Self {
            delta: delta_of(block.encoding),
            block,
            pos: usize::MAX,
            next: 0,
            layout: KeyLayout::default(),
            key_start: 0,
            key_buf: Vec::new(),
            have_prev: false,
            ttl_ms: None,
            value: 0..0,
            scratch: Vec::new(),
            arena,
        }
    }

    /// The unused part of the key arena, for the cursor on the next block.
    pub fn into_arena(self) -> BytesMut {
        self.arena
    }

    /// Whether keys sit in the block as they are (else they are rebuilt in `key_buf`).
    fn keys_in_place(&self) -> bool {
        matches!(
            self.block.encoding,
            DataBlockEncoding::None | DataBlockEncoding::RowIndexV1
        )
    }

    /// The current entry's key bytes.
    pub fn raw_key(&self) -> &[u8] {
        if self.keys_in_place() {
            &self.block.entries[self.key_start..self.key_start + self.layout.len]
        } else {
            &self.key_buf
        }
    }

    pub fn cmp_current(&self, key: &Cell) -> Ordering {
        self.layout.cmp_cell(self.raw_key(), key)
    }

    /// Moves to the next entry; `false` at the end of the block. After an error the cursor
    /// stands nowhere (the next seek starts from a restart point).
    pub fn step(&mut self) -> Result<bool, String> {
        let r = self.step_inner();
        if r.is_err() {
            self.pos = usize::MAX;
            self.next = self.block.entries.len();
            self.key_buf.clear();
            self.have_prev = false;
        }
        r
    }

    fn step_inner(&mut self) -> Result<bool, String> {
        let entries = &self.block.entries;
        if self.next >= entries.len() {
            return Ok(false);
        }
        let mut at = self.next;
        if let Some(kind) = self.delta {
            let prev = self.have_prev.then(|| {
                (
                    self.layout.timestamp,
                    self.layout.type_code,
                    self.value.clone(),
                )
            });
            let d = delta::decode(kind, entries, at, &mut self.key_buf, prev)?;
            self.layout = d.layout;
            self.ttl_ms = d.ttl_ms;
            self.value = d.value;
            self.have_prev = true;
            self.pos = self.next;
            self.next = d.next;
            return Ok(true);
        }
        if self.keys_in_place() {
            self.layout = KeyLayout::parse(&entries[at..])?;
            self.key_start = at;
            at += self.layout.len;
        } else {
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
        let (ttl_ms, value) =
            cell_tail(entries, at).map_err(|e| format!("entry at {}: {e}", self.next))?;
        self.ttl_ms = ttl_ms;
        self.pos = self.next;
        self.next = value.end;
        self.value = value;
        Ok(true)
    }

    /// The current entry as a cell: a slice of the block where keys sit in it as they are,
    /// else its rebuilt key and its value copied side by side into the arena.
    #[inline]
    pub fn cell(&mut self) -> Result<Cell, String> {
        if self.keys_in_place() {
            self.layout.to_cell(
                &self.block.entries,
                self.key_start,
                self.value.clone(),
                self.ttl_ms,
            )
        } else {
            let (carved, value) = self.carve_key_and_value();
            self.layout.to_cell(&carved, 0, value, self.ttl_ms)
        }
    }

    /// The current rebuilt key followed by the value, as shared bytes copied into the
    /// arena, with where the value sits in them.
    fn carve_key_and_value(&mut self) -> (Bytes, Range<usize>) {
        let value = &self.block.entries[self.value.clone()];
        let len = self.key_buf.len() + value.len();
        if self.arena.capacity() - self.arena.len() < len {
            self.arena = BytesMut::with_capacity(KEY_ARENA_BYTES.max(len));
        }
        self.arena.extend_from_slice(&self.key_buf);
        self.arena.extend_from_slice(value);
        (self.arena.split().freeze(), self.key_buf.len()..len)
    }

    /// Positions before the entry at restart point `i` (the next `step` reads it).
    fn rewind_to_restart(&mut self, i: usize) {
        self.next = self.block.restarts[i] as usize;
        self.pos = usize::MAX;
        self.key_buf.clear();
        self.have_prev = false;
    }

    /// Restart point `i`'s key compared with `key`, without moving the cursor.
    fn cmp_restart(&mut self, i: usize, key: &Cell) -> Result<Ordering, String> {
        let entries = &self.block.entries;
        let mut at = self.block.restarts[i] as usize;
        if let Some(kind) = self.delta {
            let d = delta::decode(kind, entries, at, &mut self.scratch, None)
                .map_err(|e| format!("restart point {i}: {e}"))?;
            return Ok(d.layout.cmp_cell(&self.scratch, key));
        }
        let raw = match self.block.encoding {
            DataBlockEncoding::None | DataBlockEncoding::RowIndexV1 => &entries[at..],
            DataBlockEncoding::Prefix | DataBlockEncoding::Diff | DataBlockEncoding::FastDiff => {
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
    fn restart_search(&mut self, key: &Cell) -> Result<usize, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hfile::encoding::BlockBuilder;
    use basalt_types::CellType;

    const ALL: [DataBlockEncoding; 5] = [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndexV1,
    ];

    /// Deletes, TTLs, empty and repeated values, many versions, long keys, extreme
    /// timestamps: what each encoding must carry through.
    fn cells() -> Vec<Cell> {
        let mut out = Vec::new();
        out.push(Cell::marker(
            "a",
            "cf",
            "",
            i64::MAX,
            CellType::DeleteFamily,
        ));
        out.push(Cell::put("a", "cf", "neg", -7, ""));
        for r in 0..6 {
            for q in 0..6 {
                let value = if q % 2 == 0 { "value" } else { "" };
                let mut c = Cell::put(format!("row{r}"), "cf", format!("q{q}"), 9 - q, value);
                if q == 3 {
                    c = Cell::marker(
                        c.row_bytes(),
                        c.family_bytes(),
                        c.qualifier_bytes(),
                        1,
                        CellType::DeleteColumn,
                    )
                    .with_ttl_ms(Some(5));
                }
                out.push(c.with_seq(r * 100 + q as u64));
            }
        }
        for v in 0..40i64 {
            out.push(Cell::put(
                "rowv",
                "cf",
                "q",
                1_700_000_000_000 - v * 1000,
                "same",
            ));
        }
        out.push(Cell::marker("rowv", "cf", "q", 5, CellType::Delete));
        out.push(Cell::put("rowv", "cf", "q", 0, "zero"));
        let long_row = "r".repeat(3000);
        out.push(Cell::put(long_row.clone(), "cf", "q".repeat(500), 3, "x"));
        out.push(Cell::put(long_row, "cf", "q".repeat(501), 3, "x"));
        out.push(Cell::put("s", "cf", "q", i64::MIN, "min"));
        out
    }

    fn block(encoding: DataBlockEncoding, cells: &[Cell]) -> Vec<u8> {
        let mut b = BlockBuilder::new(encoding);
        for c in cells {
            b.add(c).expect("small");
        }
        b.finish()
    }

    /// Reads every entry and seeks to every cell, collecting what comes back.
    fn exercise(
        raw: Vec<u8>,
        encoding: DataBlockEncoding,
        keys: &[Cell],
    ) -> Result<Vec<Cell>, String> {
        let block = Arc::new(DataBlock::parse(Bytes::from(raw), encoding)?);
        let mut cursor = BlockCursor::with_arena(block, BytesMut::new());
        let mut out = Vec::new();
        while cursor.step()? {
            out.push(cursor.cell().expect("cell"));
        }
        for key in keys.iter().rev().chain(keys) {
            if cursor.seek(key)? {
                out.push(cursor.cell().expect("cell"));
            }
            let _ = cursor.last_row_before(key)?;
        }
        Ok(out)
    }

    #[test]
    fn walks_and_seeks_every_encoding() {
        let cells = cells();
        assert!(cells.windows(2).all(|w| w[0].cmp_key(&w[1]).is_lt()));
        for encoding in ALL {
            let got = exercise(block(encoding, &cells), encoding, &cells).expect("valid");
            assert_eq!(&got[..cells.len()], &cells[..]);
            // Each seek to a cell lands on that cell, backwards and forwards.
            let seeks: Vec<Cell> = cells.iter().rev().chain(&cells).cloned().collect();
            assert_eq!(&got[cells.len()..], &seeks[..]);
        }
    }

    /// The checksum normally stops damage before this code; behind it, decoding a damaged
    /// block must still fail cleanly or decode something, and never panic.
    #[test]
    fn damaged_blocks_never_panic() {
        let cells: Vec<Cell> = cells()
            .into_iter()
            .filter(|c| c.row().len() < 100)
            .collect();
        let keys: Vec<Cell> = cells.iter().step_by(5).cloned().collect();
        for encoding in ALL {
            let good = block(encoding, &cells);
            // Every byte flipped low, high and whole (every bit of every byte took 80 s on
            // a loaded 2-core machine for the five encodings).
            for (at, flip) in (0..good.len()).flat_map(|at| [(at, 0x01), (at, 0x80), (at, 0xff)]) {
                let mut bad = good.clone();
                bad[at] ^= flip;
                let _ = exercise(bad, encoding, &keys);
            }
            for len in 0..good.len() {
                let _ = exercise(good[..len].to_vec(), encoding, &keys);
            }
        }
    }
}
