//! The byte form of a cell's key, and comparing it with a [`Cell`] without decoding.
//!
//! ```text
//! | row_len u16 | row | fam_len u8 | family | qual_len u32 | qualifier | timestamp i64 | type u8 | seq_id u64 |
//! ```
//! This is exactly the first part of [`crate::cell_codec`]'s cell form, so in a NONE-encoded
//! data block the key of a cell is a contiguous prefix of its bytes; PREFIX-encoded blocks and
//! the block index store keys in this same form.

use basalt_types::cell::CellLayout;
use basalt_types::{Cell, CellType};
use bytes::{BufMut, Bytes};
use std::cmp::Ordering;
use std::ops::Range;

/// Bytes of a key besides the row, family and qualifier.
pub(crate) const KEY_FIXED_BYTES: usize = 2 + 1 + 4 + 8 + 1 + 8;

/// Bytes at the end of every key: timestamp, type and sequence id.
pub(crate) const KEY_TAIL_BYTES: usize = 8 + 1 + 8;

/// Where the parts of one key sit, relative to the key's first byte.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyLayout {
    pub row: Range<usize>,
    pub family: Range<usize>,
    pub qualifier: Range<usize>,
    pub timestamp: i64,
    pub type_code: u8,
    pub seq_id: u64,
    /// Total length of the key.
    pub len: usize,
}

fn be<const N: usize>(buf: &[u8], at: usize) -> Result<[u8; N], String> {
    buf.get(at..at + N)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| format!("key runs past the end ({} bytes)", buf.len()))
}

impl KeyLayout {
    /// Parses the key at the start of `buf` (trailing bytes are left alone). Checks every
    /// length against `buf` and the type code against the types a file may hold.
    pub fn parse(buf: &[u8]) -> Result<Self, String> {
        let row_len = usize::from(u16::from_be_bytes(be(buf, 0)?));
        let row = 2..2 + row_len;
        let fam_len = usize::from(be::<1>(buf, row.end)?[0]);
        let family = row.end + 1..row.end + 1 + fam_len;
        let qual_len = u32::from_be_bytes(be(buf, family.end)?) as usize;
        let qual_start = family.end + 4;
        let qualifier = qual_start..qual_start.saturating_add(qual_len);
        let rest = qualifier.end;
        if rest.saturating_add(17) > buf.len() {
            return Err(format!(
                "key of {} bytes runs past the end ({} bytes)",
                rest.saturating_add(17),
                buf.len()
            ));
        }
        let timestamp = i64::from_be_bytes(be(buf, rest)?);
        let type_code = be::<1>(buf, rest + 8)?[0];
        let seq_id = u64::from_be_bytes(be(buf, rest + 9)?);
        if !matches!(
            CellType::from_code(type_code),
            Some(t) if t != CellType::Minimum && t != CellType::Maximum
        ) {
            return Err(format!("unknown cell type code {type_code}"));
        }
        Ok(Self {
            row,
            family,
            qualifier,
            timestamp,
            type_code,
            seq_id,
            len: rest + 17,
        })
    }

    /// Compares the key laid out in `buf` with `cell` in cell order.
    #[inline]
    pub fn cmp_cell(&self, buf: &[u8], cell: &Cell) -> Ordering {
        buf[self.row.clone()]
            .cmp(cell.row())
            .then_with(|| buf[self.family.clone()].cmp(cell.family()))
            .then_with(|| buf[self.qualifier.clone()].cmp(cell.qualifier()))
            .then_with(|| cell.timestamp().cmp(&self.timestamp))
            .then_with(|| cell.cell_type().code().cmp(&self.type_code))
            .then_with(|| cell.seq_id().cmp(&self.seq_id))
    }

    /// A cell that is one slice of `bytes`: its key laid out from `base` (the buffer this
    /// layout was parsed from), its value at `value` (offsets into `bytes`, after the key).
    /// One reference count on `bytes`, no copy.
    #[inline]
    pub fn to_cell(
        &self,
        bytes: &Bytes,
        base: usize,
        value: Range<usize>,
        ttl_ms: Option<u64>,
    ) -> Result<Cell, String> {
        let start = base + self.row.start;
        let layout = CellLayout {
            row_len: self.row.len(),
            family_at: self.family.start - self.row.start,
            family_len: self.family.len(),
            qualifier_at: self.qualifier.start - self.row.start,
            qualifier_len: self.qualifier.len(),
            value_at: value.start.wrapping_sub(start),
            value_len: value.len(),
        };
        if value.start < start || value.end > bytes.len() {
            return Err(format!("value at {value:?} lies outside its entry"));
        }
        let cell_type = CellType::from_code(self.type_code).ok_or("checked by parse")?;
        Cell::in_buffer(
            bytes.slice(start..value.end),
            layout,
            self.timestamp,
            cell_type,
        )
        .map(|cell| cell.with_seq(self.seq_id).with_ttl_ms(ttl_ms))
        .ok_or_else(|| {
            format!(
                "a cell's parts run past its entry ({} bytes)",
                value.end - start
            )
        })
    }
}

/// Appends the key of `cell` to `out`.
pub(crate) fn encode_key(cell: &Cell, out: &mut Vec<u8>) -> Result<(), String> {
    let row_len = u16::try_from(cell.row().len()).map_err(|_| "row longer than 65535 bytes")?;
    let fam_len = u8::try_from(cell.family().len()).map_err(|_| "family longer than 255 bytes")?;
    let qual_len =
        u32::try_from(cell.qualifier().len()).map_err(|_| "qualifier longer than 4 GiB")?;
    out.put_u16(row_len);
    out.put_slice(cell.row());
    out.put_u8(fam_len);
    out.put_slice(cell.family());
    out.put_u32(qual_len);
    out.put_slice(cell.qualifier());
    out.put_i64(cell.timestamp());
    out.put_u8(cell.cell_type().code());
    out.put_u64(cell.seq_id());
    Ok(())
}

/// The cell (empty value) whose key is exactly `bytes`.
pub(crate) fn decode_key(bytes: &Bytes) -> Result<Cell, String> {
    let layout = KeyLayout::parse(bytes)?;
    if layout.len != bytes.len() {
        return Err(format!(
            "key is {} bytes but its fields take {}",
            bytes.len(),
            layout.len
        ));
    }
    layout.to_cell(bytes, 0, layout.len..layout.len, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compares_like_cells() {
        let a = Cell::put("row", "cf", "q", 5, "v").with_seq(3);
        let mut buf = Vec::new();
        encode_key(&a, &mut buf).expect("small");
        let bytes = Bytes::from(buf);
        let back = decode_key(&bytes).expect("valid");
        assert_eq!(back.cmp_key(&a), Ordering::Equal);
        let layout = KeyLayout::parse(&bytes).expect("valid");
        for other in [
            Cell::first_on_row(Bytes::from_static(b"row")),
            Cell::put("row", "cf", "q", 4, ""),
            Cell::put("roa", "cf", "q", 5, ""),
        ] {
            assert_eq!(layout.cmp_cell(&bytes, &other), a.cmp_key(&other));
        }
        for len in 0..bytes.len() {
            assert!(decode_key(&bytes.slice(..len)).is_err());
        }
    }
}
