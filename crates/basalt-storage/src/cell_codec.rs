//! The byte form of one cell, shared by the write-ahead log and the HFile data blocks.
//!
//! ```text
//! +---------+-----+---------+--------+----------+-------+-----------+------+--------+-----------+-------+
//! | row_len | row | fam_len | family | qual_len | qual  | timestamp | type | seq_id | ttl_flag  | ...   |
//! | u16     |     | u8      |        | u32      |       | i64       | u8   | u64    | u8 (+u64) |       |
//! +---------+-----+---------+--------+----------+-------+-----------+------+--------+-----------+-------+
//!   ... | value_len u32 | value |
//! ```
//! All integers big-endian. `ttl_flag` is 0 (no cell TTL) or 1 (followed by the TTL in ms).
//! Decoding checks every length against the bytes left and every code against its domain,
//! so a damaged buffer is an error, never a panic or an oversized allocation.

use basalt_types::{Cell, CellType};
use bytes::{BufMut, Bytes};

/// Why a buffer is not a valid cell, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub offset: usize,
    pub reason: String,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

/// Appends `cell`'s byte form to `out`. Fails only on fields too long for their length
/// prefix (checked by the data-model limits long before).
pub fn encode(cell: &Cell, out: &mut Vec<u8>) -> Result<(), String> {
    let row_len = u16::try_from(cell.row().len()).map_err(|_| "row longer than 65535 bytes")?;
    let fam_len = u8::try_from(cell.family().len()).map_err(|_| "family longer than 255 bytes")?;
    let qual_len =
        u32::try_from(cell.qualifier().len()).map_err(|_| "qualifier longer than 4 GiB")?;
    let value_len = u32::try_from(cell.value().len()).map_err(|_| "value longer than 4 GiB")?;
    out.reserve(encoded_len(cell));
    out.put_u16(row_len);
    out.put_slice(cell.row());
    out.put_u8(fam_len);
    out.put_slice(cell.family());
    out.put_u32(qual_len);
    out.put_slice(cell.qualifier());
    out.put_i64(cell.timestamp());
    out.put_u8(cell.cell_type().code());
    out.put_u64(cell.seq_id());
    match cell.ttl_ms() {
        None => out.put_u8(0),
        Some(ttl) => {
            out.put_u8(1);
            out.put_u64(ttl);
        }
    }
    out.put_u32(value_len);
    out.put_slice(cell.value());
    Ok(())
}

/// The length [`encode`] writes for `cell`.
pub fn encoded_len(cell: &Cell) -> usize {
    let ttl = if cell.ttl_ms().is_some() { 9 } else { 1 };
    2 + cell.row().len()
        + 1
        + cell.family().len()
        + 4
        + cell.qualifier().len()
        + 8
        + 1
        + 8
        + ttl
        + 4
        + cell.value().len()
}

/// Reads cells from a buffer without copying their bytes.
#[derive(Debug)]
pub struct CellReader {
    buf: Bytes,
    pos: usize,
}

impl CellReader {
    pub fn new(buf: Bytes) -> Self {
        Self { buf, pos: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn error(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError {
            offset: self.pos,
            reason: reason.into(),
        }
    }

    fn take(&mut self, len: usize, what: &str) -> Result<Bytes, DecodeError> {
        let end = self
            .pos
            .checked_add(len)
            .filter(|end| *end <= self.buf.len());
        let Some(end) = end else {
            return Err(self.error(format!(
                "{what} of {len} bytes runs past the end ({} bytes left)",
                self.buf.len() - self.pos.min(self.buf.len())
            )));
        };
        let bytes = self.buf.slice(self.pos..end);
        self.pos = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], DecodeError> {
        let bytes = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(&bytes);
        Ok(out)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    pub fn i64(&mut self, what: &str) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    /// `len` raw bytes, shared with the buffer.
    pub fn bytes(&mut self, len: usize, what: &str) -> Result<Bytes, DecodeError> {
        self.take(len, what)
    }

    /// The next cell.
    pub fn cell(&mut self) -> Result<Cell, DecodeError> {
        let row_len = self.u16("row length")?;
        let row = self.take(usize::from(row_len), "row")?;
        let fam_len = self.u8("family length")?;
        let family = self.take(usize::from(fam_len), "family")?;
        let qual_len = self.u32("qualifier length")?;
        let qualifier = self.take(qual_len as usize, "qualifier")?;
        let timestamp = self.i64("timestamp")?;
        let code = self.u8("cell type")?;
        let cell_type = CellType::from_code(code)
            .filter(|t| !matches!(t, CellType::Minimum | CellType::Maximum))
            .ok_or_else(|| self.error(format!("unknown cell type code {code}")))?;
        let seq_id = self.u64("sequence id")?;
        let ttl_ms = match self.u8("ttl flag")? {
            0 => None,
            1 => Some(self.u64("ttl")?),
            other => return Err(self.error(format!("bad ttl flag {other}"))),
        };
        let value_len = self.u32("value length")?;
        let value = self.take(value_len as usize, "value")?;
        Ok(
            Cell::new(row, family, qualifier, timestamp, cell_type, value)
                .with_seq(seq_id)
                .with_ttl_ms(ttl_ms),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let cells = vec![
            Cell::put("row", "cf", "q", 42, "value").with_seq(7),
            Cell::marker("r", "f", "", -5, CellType::DeleteFamily).with_ttl_ms(Some(9)),
        ];
        let mut buf = Vec::new();
        for c in &cells {
            encode(c, &mut buf).expect("encodable");
        }
        assert_eq!(buf.len(), cells.iter().map(encoded_len).sum::<usize>());
        let mut reader = CellReader::new(Bytes::from(buf));
        for c in &cells {
            assert_eq!(&reader.cell().expect("valid"), c);
        }
        assert!(reader.is_empty());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let mut buf = Vec::new();
        encode(
            &Cell::put("row", "cf", "q", 42, "value").with_ttl_ms(Some(1)),
            &mut buf,
        )
        .expect("encodable");
        for len in 0..buf.len() {
            let mut reader = CellReader::new(Bytes::copy_from_slice(&buf[..len]));
            assert!(reader.cell().is_err(), "truncated at {len}");
        }
    }
}
