//! One logged row mutation ([`WalEdit`]) and its payload bytes.
//!
//! ```text
//! +----------------+-------------+------------+-------------------+----------------+-------+-----+
//! | region_len u16 | region utf8 | seq_id u64 | [nonce: 2 x u64]  | cell_count u32 | cell0 | ... |
//! +----------------+-------------+------------+-------------------+----------------+-------+-----+
//! ```
//! The top bit of `region_len` (`0x8000`) says a nonce (group, then nonce) follows the
//! sequence id: the client's name for an increment, append or check-and-mutate, read back
//! on replay so that a retry reaching the region's next server is not applied twice
//! (segment format version 2; version 1 segments never set the bit). Cells use the shared cell form ([`crate::cell_codec`]). Big-endian. Decoding checks every
//! length against the bytes left and refuses trailing bytes, so a payload that passed its
//! checksum but is still malformed is an error, never a panic or a huge allocation.

use super::numbered;
use super::record::{self, RECORD_HEADER_LEN};
use crate::cell_codec::{self, CellReader};
use basalt_types::{Cell, Nonce};
use bytes::{BufMut, Bytes};

/// The smallest encoded cell (empty row, family, qualifier and value, no TTL), used to bound
/// what a claimed cell count may pre-allocate.
const CELL_ENCODED_MIN_BYTES: usize = 29;

/// One atomic row mutation as the log stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalEdit {
    /// The region the mutation belongs to (its encoded name).
    pub region: String,
    /// The mutation's sequence id within its region.
    pub seq_id: u64,
    pub cells: Vec<Cell>,
    /// The client's nonce of the operation that wrote it, if it carried one.
    pub nonce: Option<Nonce>,
}

/// The region name of a time mark: no region has an empty name.
pub const TIME_MARK_REGION: &str = "";

impl WalEdit {
    /// A time mark (see `docs/format.md`, "Time mark"): a barrier-shaped record (no
    /// cells) of no region whose sequence id field holds the wall-clock millisecond at
    /// which it was logged. Every edit after it in the log was logged at or after that
    /// millisecond. Replay and retention skip it; readers that predate it take it for the
    /// barrier of a region that does not exist, which changes nothing.
    pub fn time_mark(now_ms: u64) -> Self {
        WalEdit {
            region: TIME_MARK_REGION.to_string(),
            seq_id: now_ms,
            cells: Vec::new(),
            nonce: None,
        }
    }

    /// The millisecond a time mark holds; `None` for any other record.
    pub fn mark_ms(&self) -> Option<u64> {
        (self.region == TIME_MARK_REGION && self.cells.is_empty()).then_some(self.seq_id)
    }
}

/// The bit of `region_len` saying a nonce follows the sequence id.
pub(super) const NONCE_FLAG: u16 = 0x8000;

/// Appends `edit` as a complete record (header and payload) in the framing of segment
/// format versions 1 and 2 and of recovered-edits files ([`record`]) to `out`. On error
/// `out` is left as it was.
pub fn encode_record(edit: &WalEdit, out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    out.extend_from_slice(&[0; RECORD_HEADER_LEN]);
    let result = encode_payload(edit, out).and_then(|()| record::seal(out, start));
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Appends `edit` as a complete record of segment format version 3 ([`super::numbered`])
/// naming segment `segment_id` (0 while the segment is not known yet: the writer stamps
/// it). On error `out` is left as it was.
pub fn encode_segment_record(
    edit: &WalEdit,
    segment_id: u64,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let start = out.len();
    out.extend_from_slice(&[0; numbered::NUMBERED_HEADER_LEN]);
    let result = encode_payload(edit, out)
        .and_then(|()| numbered::seal(out, start))
        .and_then(|()| numbered::stamp(&mut out[start..], segment_id));
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn encode_payload(edit: &WalEdit, out: &mut Vec<u8>) -> Result<(), String> {
    let region_len = u16::try_from(edit.region.len())
        .ok()
        .filter(|len| len & NONCE_FLAG == 0)
        .ok_or_else(|| format!("region name of {} bytes is too long", edit.region.len()))?;
    let cell_count = u32::try_from(edit.cells.len())
        .map_err(|_| format!("edit of {} cells has too many", edit.cells.len()))?;
    let flag = if edit.nonce.is_some() { NONCE_FLAG } else { 0 };
    out.put_u16(region_len | flag);
    out.put_slice(edit.region.as_bytes());
    out.put_u64(edit.seq_id);
    if let Some(nonce) = edit.nonce {
        out.put_u64(nonce.group);
        out.put_u64(nonce.nonce);
    }
    out.put_u32(cell_count);
    for cell in &edit.cells {
        cell_codec::encode(cell, out)?;
    }
    Ok(())
}

/// Reads an edit back from a payload whose checksum already held.
pub fn decode_payload(payload: Bytes) -> Result<WalEdit, String> {
    let total = payload.len();
    let mut reader = CellReader::new(payload);
    let fail = |e: cell_codec::DecodeError| format!("malformed edit: {e}");
    let region_len = reader.u16("region length").map_err(fail)?;
    let region = reader
        .bytes(usize::from(region_len & !NONCE_FLAG), "region")
        .map_err(fail)?;
    let region = String::from_utf8(region.to_vec())
        .map_err(|_| "malformed edit: region name is not UTF-8".to_string())?;
    let seq_id = reader.u64("sequence id").map_err(fail)?;
    let nonce = match region_len & NONCE_FLAG {
        0 => None,
        _ => Some(Nonce {
            group: reader.u64("nonce group").map_err(fail)?,
            nonce: reader.u64("nonce").map_err(fail)?,
        }),
    };
    let cell_count = reader.u32("cell count").map_err(fail)? as usize;
    let room = total.saturating_sub(reader.position()) / CELL_ENCODED_MIN_BYTES;
    if cell_count > room {
        return Err(format!(
            "malformed edit: {cell_count} cells cannot fit in {} bytes",
            total.saturating_sub(reader.position())
        ));
    }
    let mut cells = Vec::with_capacity(cell_count);
    for _ in 0..cell_count {
        cells.push(reader.cell().map_err(fail)?);
    }
    if !reader.is_empty() {
        return Err(format!(
            "malformed edit: {} bytes follow the last cell",
            total - reader.position()
        ));
    }
    Ok(WalEdit {
        region,
        seq_id,
        cells,
        nonce,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::CellType;

    fn edit() -> WalEdit {
        WalEdit {
            region: "t1,,1.abc".into(),
            seq_id: 42,
            cells: vec![
                Cell::put("row", "cf", "q", 7, "value").with_seq(42),
                Cell::marker("row", "cf", "", 7, CellType::DeleteFamily).with_ttl_ms(Some(5)),
            ],
            nonce: None,
        }
    }

    fn with_nonce() -> WalEdit {
        WalEdit {
            nonce: Some(Nonce {
                group: u64::MAX,
                nonce: 3,
            }),
            ..edit()
        }
    }

    #[test]
    fn round_trips_through_a_record() {
        for edit in [edit(), with_nonce()] {
            let mut out = b"xx".to_vec();
            encode_record(&edit, &mut out).expect("encodable");
            let payload = Bytes::copy_from_slice(&out[2 + RECORD_HEADER_LEN..]);
            assert_eq!(decode_payload(payload).expect("valid"), edit);
        }
    }

    #[test]
    fn a_region_name_as_long_as_the_nonce_flag_is_refused() {
        let long = WalEdit {
            region: "r".repeat(usize::from(NONCE_FLAG)),
            ..edit()
        };
        let mut out = Vec::new();
        let err = encode_record(&long, &mut out).expect_err("too long");
        assert!(err.contains("too long"), "{err}");
        assert!(out.is_empty(), "nothing written");
    }

    #[test]
    fn smallest_cell_matches_the_bound() {
        let cell = Cell::put("", "", "", 0, "");
        assert_eq!(cell_codec::encoded_len(&cell), CELL_ENCODED_MIN_BYTES);
    }

    #[test]
    fn every_truncation_and_trailing_byte_is_refused() {
        for edit in [edit(), with_nonce()] {
            let mut out = Vec::new();
            encode_record(&edit, &mut out).expect("encodable");
            let payload = &out[RECORD_HEADER_LEN..];
            for len in 0..payload.len() {
                assert!(decode_payload(Bytes::copy_from_slice(&payload[..len])).is_err());
            }
            let mut longer = payload.to_vec();
            longer.push(0);
            assert!(decode_payload(Bytes::from(longer)).is_err());
        }
    }

    #[test]
    fn a_huge_cell_count_does_not_allocate() {
        let mut payload = Vec::new();
        payload.put_u16(1);
        payload.put_slice(b"r");
        payload.put_u64(1);
        payload.put_u32(u32::MAX);
        let err = decode_payload(Bytes::from(payload)).expect_err("cannot fit");
        assert!(err.contains("cannot fit"), "{err}");
    }
}
