//! The bytes of an export: numbered part files and the manifest (drawn in
//! `docs/format.md`, "Row exports"). Pure: no I/O, golden-tested.
//!
//! A part is `BSLTXPRT`, a format version (u16) and the part's number (u32), then one
//! record per cell (tag 1, row, family, qualifier, timestamp, type, value; lengths u32,
//! numbers big-endian), then the trailer: tag 0, the cell count (u64), the part's last row
//! and a CRC-32C of every byte before it. The manifest is text, one `key value…` per line,
//! ending with `end CRC` over the lines before it.

use basalt_types::{Cell, CellType};
use bytes::Bytes;

/// The first bytes of every part.
pub const PART_MAGIC: &[u8; 8] = b"BSLTXPRT";
/// The part format this build writes and reads.
pub const PART_VERSION: u16 = 1;
/// The manifest's first line's word, and the manifest format version.
pub const MANIFEST_MAGIC: &str = "basalt-export";
pub const MANIFEST_VERSION: u32 = 1;

const TAG_CELL: u8 = 1;
const TAG_END: u8 = 0;

/// A part's object name: `part-00042`.
pub fn part_name(number: u32) -> String {
    format!("part-{number:05}")
}

/// The part number in `name`, if it is one.
pub fn part_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("part-")?;
    if digits.len() < 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Builds one part in memory.
#[derive(Debug)]
pub struct PartWriter {
    buf: Vec<u8>,
    cells: u64,
    last_row: Bytes,
}

fn put_bytes(buf: &mut Vec<u8>, bytes: &[u8]) {
    // Rows, qualifiers and values are bounded far below 4 GiB by the server's limits.
    buf.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    buf.extend_from_slice(bytes);
}

impl PartWriter {
    pub fn new(number: u32) -> Self {
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(PART_MAGIC);
        buf.extend_from_slice(&PART_VERSION.to_be_bytes());
        buf.extend_from_slice(&number.to_be_bytes());
        Self {
            buf,
            cells: 0,
            last_row: Bytes::new(),
        }
    }

    pub fn add(&mut self, cell: &Cell) {
        self.buf.push(TAG_CELL);
        put_bytes(&mut self.buf, cell.row());
        put_bytes(&mut self.buf, cell.family());
        put_bytes(&mut self.buf, cell.qualifier());
        self.buf.extend_from_slice(&cell.timestamp().to_be_bytes());
        self.buf.push(cell.cell_type().code());
        put_bytes(&mut self.buf, cell.value());
        self.cells += 1;
        if self.last_row != cell.row() {
            self.last_row = cell.row_bytes();
        }
    }

    pub fn cells(&self) -> u64 {
        self.cells
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells == 0
    }

    /// The finished part and its checksum.
    pub fn finish(mut self) -> (Vec<u8>, u32) {
        self.buf.push(TAG_END);
        self.buf.extend_from_slice(&self.cells.to_be_bytes());
        put_bytes(&mut self.buf, &self.last_row.clone());
        let crc = crc32c::crc32c(&self.buf);
        self.buf.extend_from_slice(&crc.to_be_bytes());
        (self.buf, crc)
    }
}

/// A part read back and verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub number: u32,
    pub cells: Vec<Cell>,
    pub last_row: Bytes,
    pub crc: u32,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn bytes(&mut self) -> Result<Bytes, String> {
        let len = u32::from_be_bytes(self.array()?) as usize;
        Ok(Bytes::copy_from_slice(self.take(len)?))
    }
}

/// Reads and verifies a part: its magic, version, checksum and every record.
pub fn read_part(bytes: &[u8]) -> Result<Part, String> {
    if bytes.len() < PART_MAGIC.len() + 6 + 4 || &bytes[..8] != PART_MAGIC {
        return Err("not an export part (no BSLTXPRT header)".into());
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let crc = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
    let actual = crc32c::crc32c(body);
    if actual != crc {
        return Err(format!(
            "checksum mismatch: the part says {crc:08x}, its bytes give {actual:08x}"
        ));
    }
    let mut r = Reader { bytes: body, at: 8 };
    let version = u16::from_be_bytes(r.array()?);
    if version != PART_VERSION {
        return Err(format!(
            "part format version {version}; this build reads {PART_VERSION}"
        ));
    }
    let number = u32::from_be_bytes(r.array()?);
    let mut cells = Vec::new();
    loop {
        match r.take(1)?[0] {
            TAG_CELL => {
                let row = r.bytes()?;
                let family = r.bytes()?;
                let qualifier = r.bytes()?;
                let timestamp = i64::from_be_bytes(r.array()?);
                let code = r.take(1)?[0];
                let cell_type =
                    CellType::from_code(code).ok_or_else(|| format!("unknown cell type {code}"))?;
                let value = r.bytes()?;
                let mut cell = Cell::marker(row, family, qualifier, timestamp, cell_type);
                cell.set_value(value);
                cells.push(cell);
            }
            TAG_END => break,
            tag => return Err(format!("unknown record tag {tag} at byte {}", r.at - 1)),
        }
    }
    let count = u64::from_be_bytes(r.array()?);
    let last_row = r.bytes()?;
    if count != cells.len() as u64 || r.at != body.len() {
        return Err(format!(
            "the trailer counts {count} cells, the part holds {}",
            cells.len()
        ));
    }
    Ok(Part {
        number,
        cells,
        last_row,
        crc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells() -> Vec<Cell> {
        vec![
            Cell::put("r1", "f", "a", 5, "v1"),
            Cell::marker("r1", "f", "", 4, CellType::DeleteFamily),
            Cell::put("r2", "g", "b", 1, ""),
        ]
    }

    #[test]
    fn a_part_reads_back_its_cells_and_last_row() {
        let mut w = PartWriter::new(7);
        cells().iter().for_each(|c| w.add(c));
        let (bytes, crc) = w.finish();
        let part = read_part(&bytes).expect("valid");
        assert_eq!(part.number, 7);
        assert_eq!(part.cells, cells());
        assert_eq!(part.last_row.as_ref(), b"r2");
        assert_eq!(part.crc, crc);
    }

    #[test]
    fn a_part_has_a_stable_layout() {
        let mut w = PartWriter::new(1);
        w.add(&Cell::put("r", "f", "q", 2, "v"));
        let (bytes, _) = w.finish();
        let mut golden = b"BSLTXPRT\x00\x01\x00\x00\x00\x01".to_vec();
        golden.extend_from_slice(b"\x01\x00\x00\x00\x01r\x00\x00\x00\x01f\x00\x00\x00\x01q");
        golden.extend_from_slice(&2i64.to_be_bytes());
        golden.extend_from_slice(b"\x04\x00\x00\x00\x01v");
        golden.extend_from_slice(b"\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01r");
        let crc = crc32c::crc32c(&golden);
        golden.extend_from_slice(&crc.to_be_bytes());
        assert_eq!(bytes, golden);
    }

    #[test]
    fn a_flipped_byte_or_a_cut_is_refused() {
        let mut w = PartWriter::new(0);
        cells().iter().for_each(|c| w.add(c));
        let (bytes, _) = w.finish();
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(read_part(&flipped)
            .expect_err("flipped")
            .contains("checksum mismatch"));
        assert!(read_part(&bytes[..bytes.len() - 9]).is_err());
        assert!(read_part(b"garbage").is_err());
    }

    #[test]
    fn part_names_are_numbered_and_parsed_back() {
        assert_eq!(part_name(42), "part-00042");
        assert_eq!(part_number("part-00042"), Some(42));
        assert_eq!(part_number("part-123456"), Some(123_456));
        assert_eq!(part_number("part-42"), None);
        assert_eq!(part_number("MANIFEST"), None);
    }
}
