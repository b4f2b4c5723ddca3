//! Cell blocks in the layout of HBase's `KeyValueCodec`: what a client that names a codec
//! in its connection header may send after a call's message (a mutation's cells, counted
//! by `associated_cell_count`), and what a server may answer with.
//!
//! Each cell is a four-byte big-endian length, then a KeyValue: key length (4 bytes),
//! value length (4), the key — row length (2), row, family length (1), family,
//! qualifier, timestamp (8), type (1) — and the value. `KeyValueCodecWithTags` adds a
//! two-byte tags length and the tags after the value; Basalt reads and drops them.
//! Every length is checked against the bytes left before anything is sliced.

use basalt_types::{Cell, CellType};
use bytes::{BufMut, Bytes};

/// The codecs a client may name (`cell_block_codec_class`).
pub const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";
pub const KEY_VALUE_CODEC_WITH_TAGS: &str = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

/// Which layout a connection's cell blocks use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    KeyValue,
    KeyValueWithTags,
}

impl Codec {
    /// The codec a connection header names; `None` for one Basalt cannot read.
    pub fn named(class: &str) -> Option<Self> {
        match class {
            KEY_VALUE_CODEC => Some(Self::KeyValue),
            KEY_VALUE_CODEC_WITH_TAGS => Some(Self::KeyValueWithTags),
            _ => None,
        }
    }
}

/// What is wrong with a cell block; `offset` counts from the block's first byte.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cell block: {cause} at offset {offset}")]
pub struct CellBlockError {
    pub offset: usize,
    pub cause: String,
}

struct Reader<'a> {
    block: &'a Bytes,
    pos: usize,
    end: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<Bytes, CellBlockError> {
        if n > self.end - self.pos {
            return Err(CellBlockError {
                offset: self.pos,
                cause: format!("{what} of {n} bytes runs past the cell's end"),
            });
        }
        let out = self.block.slice(self.pos..self.pos + n);
        self.pos += n;
        Ok(out)
    }

    fn int(&mut self, n: usize, what: &str) -> Result<u64, CellBlockError> {
        let bytes = self.take(n, what)?;
        Ok(bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }
}

/// Every cell of `block`, in order.
pub fn decode(block: &Bytes, codec: Codec) -> Result<Vec<Cell>, CellBlockError> {
    let mut cells = Vec::new();
    let mut outer = Reader {
        block,
        pos: 0,
        end: block.len(),
    };
    while outer.pos < outer.end {
        let len = outer.int(4, "a cell's length")? as usize;
        let start = outer.pos;
        if len > outer.end - start {
            return Err(CellBlockError {
                offset: start - 4,
                cause: format!("a cell of {len} bytes where {} are left", outer.end - start),
            });
        }
        let mut r = Reader {
            block,
            pos: start,
            end: start + len,
        };
        cells.push(decode_one(&mut r, codec)?);
        if r.pos != r.end {
            return Err(CellBlockError {
                offset: r.pos,
                cause: format!("{} bytes left over after a cell", r.end - r.pos),
            });
        }
        outer.pos = r.end;
    }
    Ok(cells)
}

fn decode_one(r: &mut Reader<'_>, codec: Codec) -> Result<Cell, CellBlockError> {
    let key_len = r.int(4, "the key length")? as usize;
    let value_len = r.int(4, "the value length")? as usize;
    let key_start = r.pos;
    let row_len = r.int(2, "the row length")? as usize;
    let row = r.take(row_len, "the row")?;
    let family_len = r.int(1, "the family length")? as usize;
    let family = r.take(family_len, "the family")?;
    let fixed = key_start + 2 + row_len + 1 + family_len + 8 + 1;
    let qualifier_len = (key_start + key_len)
        .checked_sub(fixed)
        .ok_or_else(|| CellBlockError {
            offset: key_start,
            cause: format!("a key length of {key_len} too short for its row and family"),
        })?;
    let qualifier = r.take(qualifier_len, "the qualifier")?;
    let timestamp = r.int(8, "the timestamp")? as i64;
    let type_offset = r.pos;
    let code = r.int(1, "the type")? as u8;
    let cell_type = CellType::from_code(code).ok_or_else(|| CellBlockError {
        offset: type_offset,
        cause: format!("unknown cell type {code}"),
    })?;
    let value = r.take(value_len, "the value")?;
    if codec == Codec::KeyValueWithTags && r.pos < r.end {
        let tags_len = r.int(2, "the tags length")? as usize;
        r.take(tags_len, "the tags")?;
    }
    Ok(Cell::new(
        row, family, qualifier, timestamp, cell_type, value,
    ))
}

/// `cells` as a cell block (no tags).
pub fn encode(cells: &[Cell]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(&mut out, cells);
    out
}

/// Appends `cells` to the cell block `out` (no tags): an answer's block is built a
/// result at a time.
pub fn encode_into(out: &mut Vec<u8>, cells: &[Cell]) {
    out.reserve(cells.iter().map(encoded_len).sum());
    for cell in cells {
        let key_len =
            2 + cell.row().len() + 1 + cell.family().len() + cell.qualifier().len() + 8 + 1;
        let kv_len = 8 + key_len + cell.value().len();
        out.put_u32(kv_len as u32);
        out.put_u32(key_len as u32);
        out.put_u32(cell.value().len() as u32);
        out.put_u16(cell.row().len() as u16);
        out.extend_from_slice(cell.row());
        out.put_u8(cell.family().len() as u8);
        out.extend_from_slice(cell.family());
        out.extend_from_slice(cell.qualifier());
        out.put_i64(cell.timestamp());
        out.put_u8(cell.cell_type().code());
        out.extend_from_slice(cell.value());
    }
}

/// The bytes `cell` takes in a block: its length prefix and its KeyValue.
fn encoded_len(cell: &Cell) -> usize {
    4 + 8
        + 2
        + cell.row().len()
        + 1
        + cell.family().len()
        + cell.qualifier().len()
        + 8
        + 1
        + cell.value().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell(row: &[u8], q: &[u8], ts: i64, v: &[u8]) -> Cell {
        Cell::put(
            Bytes::copy_from_slice(row),
            Bytes::from_static(b"cf"),
            Bytes::copy_from_slice(q),
            ts,
            Bytes::copy_from_slice(v),
        )
    }

    #[test]
    fn cells_round_trip_in_key_value_layout() {
        let cells = vec![cell(b"r1", b"a", 5, b"x"), cell(b"r2", b"", 7, b"")];
        let block = Bytes::from(encode(&cells));
        // The first cell: 4 + (8 + key 2+2+1+2+1+8+1 = 17) + value 1.
        assert_eq!(&block[..4], &(8u32 + 17 + 1).to_be_bytes());
        assert_eq!(decode(&block, Codec::KeyValue).expect("decodes"), cells);
    }

    #[test]
    fn a_cell_longer_than_the_block_is_refused_with_its_offset() {
        let mut block = encode(&[cell(b"r", b"q", 1, b"v")]);
        block[3] = 200;
        let err = decode(&Bytes::from(block), Codec::KeyValue).expect_err("refused");
        assert_eq!(err.offset, 0);
    }

    #[test]
    fn tags_are_read_and_dropped() {
        let mut block = encode(&[cell(b"r", b"q", 1, b"v")]);
        let len = u32::from_be_bytes([block[0], block[1], block[2], block[3]]) + 4;
        block[..4].copy_from_slice(&len.to_be_bytes());
        block.extend_from_slice(&[0, 2, 9, 9]);
        let cells = decode(&Bytes::from(block), Codec::KeyValueWithTags).expect("decodes");
        assert_eq!(cells, vec![cell(b"r", b"q", 1, b"v")]);
    }

    proptest! {
        #[test]
        fn random_blocks_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let block = Bytes::from(bytes);
            let _ = decode(&block, Codec::KeyValue);
            let _ = decode(&block, Codec::KeyValueWithTags);
        }
    }
}
