//! Cell blocks: many cells in one byte string, in the layout of HBase's `KeyValueCodec`
//! (and `KeyValueCodecWithTags` when a cell carries tags), so that a row result crosses the
//! wire as one `bytes` field rather than one protobuf message per cell. The native HBase
//! protocol carries cells the same way.
//!
//! ```text
//! block: | cell | cell | ... |                 (no count: cells run to the block's end)
//!
//! cell:  | cell_len u32 | key_len u32 | value_len u32 | key | value | tags_len u16 | tags |
//!                                                                  \____ only when the cell
//!                                                                        has tags ____/
//!        cell_len = 8 + key_len + value_len (+ 2 + tags_len)
//!
//! key:   | row_len u16 | row | family_len u8 | family | qualifier | timestamp i64 | type u8 |
//!        key_len = 12 + row_len + family_len + qualifier length (which is not written)
//!
//! tag:   | tag_len u16 | tag_type u8 | tag value |          tag_len = 1 + value length
//! ```
//!
//! Big-endian throughout, as HBase. `type` is HBase's `KeyValue.Type` code (4 Put,
//! 8 Delete, 10 DeleteFamilyVersion, 12 DeleteColumn, 14 DeleteFamily). A row is at most
//! 32,767 bytes and a family at most 127 (HBase reads both lengths as signed).
//!
//! Two fields of a Basalt cell have no place in a `KeyValue` and travel as tags, written
//! only when they carry something, so an ordinary cell is byte for byte what HBase's
//! `KeyValueCodec` writes:
//!
//! | tag type | value | field |
//! |----------|-------|-------|
//! | 8 (HBase's `TTL_TAG_TYPE`) | u64 milliseconds | `ttl_ms` when set |
//! | 66 (in HBase's custom range, 64 and up) | u64 | `seq_id` when not 0 |
//!
//! Tags of other types are skipped when read: HBase's own (ACL, visibility) mean nothing
//! to Basalt, and a later Basalt may add more.
//!
//! Decoding checks every length against the bytes left before it slices anything, takes
//! the cells' fields as slices of the block (no copy, no allocation sized by the input) and
//! fails with the offset and the reason; it never panics.

use basalt_types::cell::CellLayout;
use basalt_types::{Cell, CellType};
use bytes::{BufMut, Bytes};

/// HBase's `TTL_TAG_TYPE`: the cell's time to live in milliseconds.
pub const TTL_TAG_TYPE: u8 = 8;
/// Basalt's tag for the cell's sequence id, in HBase's custom range (64 and up).
pub const SEQ_ID_TAG_TYPE: u8 = 66;
/// The longest row a block carries (HBase's `Short.MAX_VALUE`).
pub const ROW_MAX_BYTES: usize = i16::MAX as usize;
/// The longest family a block carries (HBase's `Byte.MAX_VALUE`).
pub const FAMILY_MAX_BYTES: usize = i8::MAX as usize;
/// The longest cell a block carries (HBase's lengths are Java `int`s).
pub const CELL_MAX_BYTES: usize = i32::MAX as usize;

/// Key bytes besides row, family and qualifier: row length, family length, timestamp, type.
const KEY_INFRASTRUCTURE_BYTES: usize = 2 + 1 + 8 + 1;

/// Why cells do not make a block, or a block does not make cells.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CellBlockError {
    /// A cell is larger than the layout can say (see the `*_MAX_BYTES` limits).
    #[error("cell {cell} does not fit a cell block: {reason}")]
    TooLarge { cell: usize, reason: String },
    /// The block's bytes are not cells.
    #[error("damaged cell block at offset {offset} (cell {cell}): {reason}")]
    Damaged {
        offset: usize,
        cell: usize,
        reason: String,
    },
}

/// The block holding `cells`, in order; an error when one is larger than the layout allows.
pub fn encode(cells: &[Cell]) -> Result<Bytes, CellBlockError> {
    let mut total = 0usize;
    for (index, cell) in cells.iter().enumerate() {
        total = total.saturating_add(4 + cell_len(index, cell)?);
    }
    let mut out = Vec::with_capacity(total);
    for cell in cells {
        write_cell(&mut out, cell);
    }
    Ok(Bytes::from(out))
}

/// Whether `cell` fits a block.
pub fn fits(cell: &Cell) -> bool {
    cell_len(0, cell).is_ok()
}

/// The tags `cell` needs: (type, value).
fn tags(cell: &Cell) -> impl Iterator<Item = (u8, u64)> {
    let ttl = cell.ttl_ms().map(|ttl| (TTL_TAG_TYPE, ttl));
    let seq = (cell.seq_id() != 0).then_some((SEQ_ID_TAG_TYPE, cell.seq_id()));
    ttl.into_iter().chain(seq)
}

/// Bytes of the tags of `cell`, 0 when it has none (each tag: length, type, 8 bytes).
fn tags_len(cell: &Cell) -> usize {
    tags(cell).count() * (2 + 1 + 8)
}

/// `cell_len` of `cell` (the bytes after the length itself), checked against the limits.
fn cell_len(index: usize, cell: &Cell) -> Result<usize, CellBlockError> {
    let too_large = |reason: String| CellBlockError::TooLarge {
        cell: index,
        reason,
    };
    if cell.row().len() > ROW_MAX_BYTES {
        return Err(too_large(format!(
            "its row is {} bytes long, above {ROW_MAX_BYTES}",
            cell.row().len()
        )));
    }
    if cell.family().len() > FAMILY_MAX_BYTES {
        return Err(too_large(format!(
            "its family is {} bytes long, above {FAMILY_MAX_BYTES}",
            cell.family().len()
        )));
    }
    let tags = match tags_len(cell) {
        0 => 0,
        n => 2 + n,
    };
    let len = [
        8,
        KEY_INFRASTRUCTURE_BYTES,
        cell.row().len(),
        cell.family().len(),
        cell.qualifier().len(),
        cell.value().len(),
        tags,
    ]
    .iter()
    .try_fold(0usize, |sum, n| sum.checked_add(*n))
    .filter(|len| *len <= CELL_MAX_BYTES);
    len.ok_or_else(|| too_large(format!("it takes more than {CELL_MAX_BYTES} bytes")))
}

/// Appends `cell`; its lengths were checked by [`cell_len`].
fn write_cell(out: &mut Vec<u8>, cell: &Cell) {
    let key_len =
        KEY_INFRASTRUCTURE_BYTES + cell.row().len() + cell.family().len() + cell.qualifier().len();
    let tags_len = tags_len(cell);
    let tags_part = if tags_len == 0 { 0 } else { 2 + tags_len };
    let cell_len = 8 + key_len + cell.value().len() + tags_part;
    // The casts hold: every length is within the limits `cell_len` checked.
    out.put_u32(cell_len as u32);
    out.put_u32(key_len as u32);
    out.put_u32(cell.value().len() as u32);
    out.put_u16(cell.row().len() as u16);
    out.put_slice(cell.row());
    out.put_u8(cell.family().len() as u8);
    out.put_slice(cell.family());
    out.put_slice(cell.qualifier());
    out.put_i64(cell.timestamp());
    out.put_u8(cell.cell_type().code());
    out.put_slice(cell.value());
    if tags_len > 0 {
        out.put_u16(tags_len as u16);
        for (tag_type, value) in tags(cell) {
            out.put_u16(1 + 8);
            out.put_u8(tag_type);
            out.put_u64(value);
        }
    }
}

/// The cells of `block`, in order; its fields are slices of `block`.
pub fn decode(block: &Bytes) -> Result<Vec<Cell>, CellBlockError> {
    let mut cells = Vec::new();
    let mut at = 0;
    while at < block.len() {
        let mut whole = Reader {
            block,
            at,
            end: block.len(),
            cell: cells.len(),
            within: "the block",
        };
        let len = whole.u32("the cell length")? as usize;
        if len > CELL_MAX_BYTES {
            return Err(whole.damaged(at, format!("cell length {len} is above {CELL_MAX_BYTES}")));
        }
        whole.check(len, "the cell")?;
        let mut reader = Reader {
            end: whole.at + len,
            within: "the cell",
            ..whole
        };
        cells.push(read_cell(&mut reader, len)?);
        at = reader.end;
    }
    Ok(cells)
}

/// One cell, `len` bytes after its length.
fn read_cell(r: &mut Reader<'_>, len: usize) -> Result<Cell, CellBlockError> {
    let start = r.at;
    let key_len = r.u32("the key length")? as usize;
    let value_len = r.u32("the value length")? as usize;
    if key_len.saturating_add(value_len) > len - 8 {
        return Err(r.damaged(
            start,
            format!(
                "key length {key_len} and value length {value_len} run past the cell's {len} bytes"
            ),
        ));
    }
    let key_start = r.at;
    let mut key = Reader {
        end: key_start + key_len,
        within: "the key",
        ..*r
    };
    let row_len = key.u16("the row length")? as usize;
    if row_len > ROW_MAX_BYTES {
        return Err(r.damaged(
            key_start,
            format!("row length {row_len} is above {ROW_MAX_BYTES}"),
        ));
    }
    let row_at = key.skip(row_len, "the row")?;
    let family_at = key.at;
    let family_len = key.u8("the family length")? as usize;
    if family_len > FAMILY_MAX_BYTES {
        return Err(r.damaged(
            family_at,
            format!("family length {family_len} is above {FAMILY_MAX_BYTES}"),
        ));
    }
    key.skip(family_len, "the family")?;
    let Some(qualifier_len) = key_len.checked_sub(KEY_INFRASTRUCTURE_BYTES + row_len + family_len)
    else {
        return Err(r.damaged(
            key_start,
            format!("key length {key_len} is shorter than its row ({row_len}), family ({family_len}) and fixed fields"),
        ));
    };
    key.skip(qualifier_len, "the qualifier")?;
    let timestamp = key.i64("the timestamp")?;
    let type_at = key.at;
    let code = key.u8("the type")?;
    let cell_type = CellType::from_code(code)
        .ok_or_else(|| r.damaged(type_at, format!("{code} is not a cell type")))?;
    r.at = key.at;
    let value_at = r.skip(value_len, "the value")?;
    // The row, family, qualifier and value as one slice of the block (the lengths and the
    // timestamp between them included): one reference count, no copy.
    let layout = CellLayout {
        row_len,
        family_at: row_len + 1,
        family_len,
        qualifier_at: row_len + 1 + family_len,
        qualifier_len,
        value_at: value_at - row_at,
        value_len,
    };
    let mut cell = Cell::in_buffer(r.block.slice(row_at..r.at), layout, timestamp, cell_type)
        .ok_or_else(|| r.damaged(start, "the cell's parts do not fit its bytes".into()))?;
    if r.at < r.end {
        read_tags(r, &mut cell)?;
    }
    Ok(cell)
}

/// The tags after the value, which must fill the cell exactly.
fn read_tags(r: &mut Reader<'_>, cell: &mut Cell) -> Result<(), CellBlockError> {
    let tags_at = r.at;
    let tags_len = r.u16("the tags length")? as usize;
    if tags_len != r.end - r.at {
        return Err(r.damaged(
            tags_at,
            format!(
                "tags length {tags_len} does not match the {} bytes left in the cell",
                r.end - r.at
            ),
        ));
    }
    let (mut ttl, mut seq) = (false, false);
    while r.at < r.end {
        let tag_at = r.at;
        let tag_len = r.u16("a tag length")? as usize;
        if tag_len == 0 {
            return Err(r.damaged(tag_at, "a tag of length 0 has no type".to_string()));
        }
        let tag_type = r.u8("a tag type")?;
        let value = r.take(tag_len - 1, "a tag value")?;
        let (field, seen) = match tag_type {
            TTL_TAG_TYPE => ("TTL", &mut ttl),
            SEQ_ID_TAG_TYPE => ("sequence id", &mut seq),
            _ => continue,
        };
        let bytes: [u8; 8] = value[..].try_into().map_err(|_| {
            r.damaged(
                tag_at,
                format!("a {field} tag holds {} bytes, not 8", value.len()),
            )
        })?;
        if std::mem::replace(seen, true) {
            return Err(r.damaged(tag_at, format!("a second {field} tag")));
        }
        match tag_type {
            TTL_TAG_TYPE => cell.set_ttl_ms(Some(u64::from_be_bytes(bytes))),
            _ => cell.set_seq_id(u64::from_be_bytes(bytes)),
        }
    }
    Ok(())
}

/// Reads big-endian fields of the block, a cell or a key, never past `end`.
#[derive(Clone, Copy)]
struct Reader<'a> {
    block: &'a Bytes,
    at: usize,
    end: usize,
    /// The index of the cell being read, for errors.
    cell: usize,
    /// What `end` is the end of, for errors.
    within: &'static str,
}

impl Reader<'_> {
    fn damaged(&self, offset: usize, reason: String) -> CellBlockError {
        CellBlockError::Damaged {
            offset,
            cell: self.cell,
            reason,
        }
    }

    /// Fails unless `n` bytes are left for `what`.
    fn check(&self, n: usize, what: &str) -> Result<(), CellBlockError> {
        let left = self.end - self.at;
        if n > left {
            return Err(self.damaged(
                self.at,
                format!("{what} needs {n} bytes, {left} left in {}", self.within),
            ));
        }
        Ok(())
    }

    /// Steps over `n` bytes; returns where they start.
    fn skip(&mut self, n: usize, what: &str) -> Result<usize, CellBlockError> {
        self.check(n, what)?;
        self.at += n;
        Ok(self.at - n)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<Bytes, CellBlockError> {
        self.check(n, what)?;
        let bytes = self.block.slice(self.at..self.at + n);
        self.at += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], CellBlockError> {
        self.check(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(&self.block[self.at..self.at + N]);
        self.at += N;
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8, CellBlockError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, CellBlockError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    fn u32(&mut self, what: &str) -> Result<u32, CellBlockError> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    fn i64(&mut self, what: &str) -> Result<i64, CellBlockError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }
}
