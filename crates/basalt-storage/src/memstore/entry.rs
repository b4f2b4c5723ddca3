//! A memstore cell in its encoded form: one contiguous run of bytes, packed big-endian
//! into the words of a skiplist node ([`super::node`]).
//!
//! ```text
//! offset  bytes  field
//!  0      2      row length r (u16)           ┐
//!  2      1      family length f (u8)         │ the fixed header: every key field a
//!  3      1      type code                    │ comparison needs
//!  4      4      flags | qualifier length q   │
//!  8      8      timestamp (i64)              │
//! 16      8      sequence id (u64)            ┘
//! 24      r      row          ┐ the cell handed out: a slice of a copy of the entry from
//!  ..     f      family       │ the row on, with these offsets (`Cell::in_buffer`)
//!  ..     q      qualifier    │
//!  ..     v      value        ┘
//!  ..     16     r, f, q as u32s and 4 zero bytes, only in the wide form
//!  ..     8      TTL in ms, only when the TTL flag is set
//! ```
//!
//! The row always starts at byte 24, a word boundary at a fixed place, so the skiplist
//! reads its first 16 bytes as the entry's words 3 and 4 for its cheap first comparison,
//! in the same loads as the header and without waiting for it.
//!
//! Integers are big-endian, as in every Basalt format. The qualifier length's top bit is
//! the TTL flag, the next one the wide flag: a cell whose row is longer than 65,534 bytes,
//! family longer than 255 or qualifier longer than 1 GiB (none of which the write path
//! lets through: rows stop at 32,767 bytes and families at 127) keeps its lengths as u32s
//! after the value, with the fixed lengths 0, so every cell has an entry and an insert
//! never fails. The value's length is what remains of the entry.

use basalt_types::cell::CellLayout;
use basalt_types::{Cell, CellType};
use bytes::Bytes;
use std::cmp::Ordering;

/// Where [`encode`] writes: a `Vec<u8>`, or a node's words ([`super::node::WordWriter`]).
pub trait Sink {
    fn put_slice(&mut self, bytes: &[u8]);
    fn put_u8(&mut self, n: u8) {
        self.put_slice(&[n]);
    }
    fn put_u16(&mut self, n: u16) {
        self.put_slice(&n.to_be_bytes());
    }
    fn put_u32(&mut self, n: u32) {
        self.put_slice(&n.to_be_bytes());
    }
    fn put_u64(&mut self, n: u64) {
        self.put_slice(&n.to_be_bytes());
    }
}

impl Sink for Vec<u8> {
    fn put_slice(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// The fixed header's length, and where the row starts.
pub const HEADER_BYTES: usize = 24;
const TTL_FLAG: u32 = 1 << 31;
const WIDE_FLAG: u32 = 1 << 30;
const QUALIFIER_MAX: usize = (WIDE_FLAG - 1) as usize;
/// The wide form's lengths: three u32s, padded to two words.
const WIDE_BYTES: usize = 16;

/// The bytes after the value: the wide form's lengths and the TTL.
fn tail_len(flags: u32) -> usize {
    (if flags & WIDE_FLAG != 0 {
        WIDE_BYTES
    } else {
        0
    }) + if flags & TTL_FLAG != 0 { 8 } else { 0 }
}

/// The bytes [`encode`] writes for `cell`.
pub fn encoded_len(cell: &Cell) -> usize {
    HEADER_BYTES
        + if cell.ttl_ms().is_some() { 8 } else { 0 }
        + if is_wide(cell) { WIDE_BYTES } else { 0 }
        + cell.row().len()
        + cell.family().len()
        + cell.qualifier().len()
        + cell.value().len()
}

fn is_wide(cell: &Cell) -> bool {
    cell.row().len() >= u16::MAX as usize
        || cell.family().len() > u8::MAX as usize
        || cell.qualifier().len() > QUALIFIER_MAX
}

/// Writes `cell`'s entry to `out` ([`encoded_len`] bytes).
pub fn encode(cell: &Cell, out: &mut impl Sink) {
    let wide = is_wide(cell);
    let mut flags = 0;
    if cell.ttl_ms().is_some() {
        flags |= TTL_FLAG;
    }
    if wide {
        out.put_u16(0);
        out.put_u8(0);
        flags |= WIDE_FLAG;
    } else {
        // Fit: checked by `is_wide`.
        out.put_u16(cell.row().len() as u16);
        out.put_u8(cell.family().len() as u8);
    }
    out.put_u8(cell.cell_type().code());
    let qualifier = if wide {
        0
    } else {
        cell.qualifier().len() as u32
    };
    out.put_u32(flags | qualifier);
    out.put_u64(cell.timestamp() as u64);
    out.put_u64(cell.seq_id());
    out.put_slice(cell.row());
    out.put_slice(cell.family());
    out.put_slice(cell.qualifier());
    out.put_slice(cell.value());
    if wide {
        for part in [cell.row(), cell.family(), cell.qualifier()] {
            out.put_u32(u32::try_from(part.len()).expect("a cell's buffer is below 4 GiB"));
        }
        out.put_u32(0);
    }
    if let Some(ttl) = cell.ttl_ms() {
        out.put_u64(ttl);
    }
}

/// The row's length from an entry's first word; `None` for the wide form, whose lengths
/// are at its end.
#[inline]
pub fn row_len(first_word: u64) -> Option<usize> {
    (first_word as u32 & WIDE_FLAG == 0).then_some((first_word >> 48) as usize)
}

/// Where `cell`'s entry's qualifier ends; `None` for the wide form.
pub fn key_end_of(cell: &Cell) -> Option<usize> {
    let key = cell.row().len() + cell.family().len() + cell.qualifier().len();
    (!is_wide(cell)).then_some(HEADER_BYTES + key)
}

/// Where the qualifier ends (the bytes a comparison reads), from an entry's first word;
/// `None` for the wide form.
#[inline]
pub fn key_end(first_word: u64) -> Option<usize> {
    let flags = first_word as u32;
    let row = row_len(first_word)?;
    let family = (first_word >> 40) as u8 as usize;
    Some(HEADER_BYTES + row + family + (flags as usize & QUALIFIER_MAX))
}

/// An entry's fields, read from its bytes (always written by [`encode`]): the whole entry,
/// or for comparing an entry of the narrow form, its first [`key_end`] bytes.
pub struct View<'a> {
    bytes: &'a [u8],
    row_len: usize,
    family_len: usize,
    qualifier_len: usize,
}

fn be_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn be_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

impl<'a> View<'a> {
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Self {
        let flags = be_u32(bytes, 4);
        let (row_len, family_len, qualifier_len) = if flags & WIDE_FLAG == 0 {
            let row = u16::from_be_bytes([bytes[0], bytes[1]]);
            (
                row as usize,
                bytes[2] as usize,
                (flags & QUALIFIER_MAX as u32) as usize,
            )
        } else {
            let at = bytes.len() - tail_len(flags);
            (
                be_u32(bytes, at) as usize,
                be_u32(bytes, at + 4) as usize,
                be_u32(bytes, at + 8) as usize,
            )
        };
        Self {
            bytes,
            row_len,
            family_len,
            qualifier_len,
        }
    }

    #[inline]
    pub fn row(&self) -> &'a [u8] {
        &self.bytes[HEADER_BYTES..HEADER_BYTES + self.row_len]
    }

    #[inline]
    fn family(&self) -> &'a [u8] {
        let at = HEADER_BYTES + self.row_len;
        &self.bytes[at..at + self.family_len]
    }

    #[inline]
    fn qualifier(&self) -> &'a [u8] {
        let at = HEADER_BYTES + self.row_len + self.family_len;
        &self.bytes[at..at + self.qualifier_len]
    }

    #[inline]
    pub fn timestamp(&self) -> i64 {
        be_u64(self.bytes, 8) as i64
    }

    #[inline]
    pub fn seq_id(&self) -> u64 {
        be_u64(self.bytes, 16)
    }

    #[inline]
    fn type_code(&self) -> u8 {
        self.bytes[3]
    }

    fn flags(&self) -> u32 {
        be_u32(self.bytes, 4)
    }

    fn ttl_ms(&self) -> Option<u64> {
        (self.flags() & TTL_FLAG != 0).then(|| be_u64(self.bytes, self.bytes.len() - 8))
    }

    /// [`View::cmp_key`] against a cell.
    #[inline]
    pub fn cmp_cell(&self, other: &Cell) -> Ordering {
        self.row()
            .cmp(other.row())
            .then_with(|| self.family().cmp(other.family()))
            .then_with(|| self.qualifier().cmp(other.qualifier()))
            .then_with(|| other.timestamp().cmp(&self.timestamp()))
            .then_with(|| other.cell_type().code().cmp(&self.type_code()))
            .then_with(|| other.seq_id().cmp(&self.seq_id()))
    }

    /// The cell order (row, family, qualifier ↑; timestamp, type, sequence id ↓), as
    /// `basalt_types::cell::compare_keys` says it.
    #[inline]
    pub fn cmp_key(&self, other: &View<'_>) -> Ordering {
        self.row()
            .cmp(other.row())
            .then_with(|| self.family().cmp(other.family()))
            .then_with(|| self.qualifier().cmp(other.qualifier()))
            .then_with(|| other.timestamp().cmp(&self.timestamp()))
            .then_with(|| other.type_code().cmp(&self.type_code()))
            .then_with(|| other.seq_id().cmp(&self.seq_id()))
    }
}

/// The cell an entry holds: a slice of `entry` from the row to the value's end (one
/// reference count). `entry` is the whole entry and nothing after it.
pub fn to_cell(entry: &Bytes) -> Cell {
    let view = View::new(entry);
    let key = view.row_len + view.family_len + view.qualifier_len;
    let value = entry.len() - HEADER_BYTES - key - tail_len(view.flags());
    let layout = CellLayout::packed(view.row_len, view.family_len, view.qualifier_len, value);
    let cell_type = CellType::from_code(view.type_code()).expect("a code written from a CellType");
    Cell::in_buffer(
        entry.slice(HEADER_BYTES..HEADER_BYTES + key + value),
        layout,
        view.timestamp(),
        cell_type,
    )
    .expect("the layout of an entry written by encode")
    .with_seq(view.seq_id())
    .with_ttl_ms(view.ttl_ms())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(cell: &Cell) -> Bytes {
        let mut out = Vec::new();
        encode(cell, &mut out);
        assert_eq!(out.len(), encoded_len(cell));
        Bytes::from(out)
    }

    #[test]
    fn the_entry_layout_is_as_drawn() {
        let cell = Cell::put("row", "f", "qual", 0x0102, "value").with_seq(7);
        let golden: &[u8] = b"\x00\x03\x01\x04\x00\x00\x00\x04\
            \x00\x00\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x00\x00\x00\x07\
            rowfqualvalue";
        assert_eq!(&entry(&cell)[..], golden);
        let with_ttl = Cell::marker("r", "f", "", -1, CellType::DeleteColumn)
            .with_seq(1)
            .with_ttl_ms(Some(5));
        let golden: &[u8] = b"\x00\x01\x01\x0c\x80\x00\x00\x00\
            \xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x01\
            rf\x00\x00\x00\x00\x00\x00\x00\x05";
        assert_eq!(&entry(&with_ttl)[..], golden);
    }

    #[test]
    fn cells_read_back_equal_and_borrow_the_entry() {
        let long_row = vec![b'r'; u16::MAX as usize];
        let wide_family = vec![b'f'; 300];
        for cell in [
            Cell::put("row", "f", "qual", 5, "value").with_seq(9),
            Cell::put("", "", "", i64::MIN, "").with_ttl_ms(Some(0)),
            Cell::marker("r", "f", "q", 3, CellType::DeleteFamilyVersion).with_seq(u64::MAX),
            Cell::put(&long_row, "f", "q", 1, "v").with_ttl_ms(Some(9)),
            Cell::put("r", &wide_family, "q", 1, "v"),
        ] {
            let bytes = entry(&cell);
            let back = to_cell(&bytes);
            assert_eq!(back, cell);
            assert_eq!(
                back.row_bytes().as_ptr(),
                bytes[HEADER_BYTES..].as_ptr(),
                "a slice of the entry"
            );
        }
    }

    #[test]
    fn entries_compare_as_their_cells() {
        let cells = [
            Cell::put("a", "f", "q", 5, "v").with_seq(3),
            Cell::put("a", "f", "q", 5, "v").with_seq(2),
            Cell::marker("a", "f", "q", 5, CellType::DeleteColumn).with_seq(1),
            Cell::put("a", "f", "q", 4, "v"),
            Cell::put("a", "f", "qq", 9, "v"),
            Cell::put("a", "g", "", 9, "v"),
            Cell::put("a\0", "", "", 9, "v"),
            Cell::put(vec![b'a'; 70_000], "f", "q", 1, "v"),
            Cell::first_on_row("b"),
            Cell::put("b", "f", "q", 1, "v").with_ttl_ms(Some(1)),
        ];
        for a in &cells {
            for b in &cells {
                let (ea, eb) = (entry(a), entry(b));
                assert_eq!(View::new(&ea).cmp_key(&View::new(&eb)), a.cmp_key(b));
            }
        }
    }
}
