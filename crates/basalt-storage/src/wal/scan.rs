//! Reading one segment's bytes back: every record that passes its checks, and the
//! stretches that do not.
//!
//! A record that fails a check starts a damaged stretch. The stretch ends where the next
//! readable record starts: the first offset after it where a record header's own checksum
//! holds, the payload fits, its checksum holds and it decodes. When the failed record's
//! header held, its length is trusted and the search starts after its payload, so that
//! bytes inside a damaged record (a stored value may itself look like a record) are never
//! read as an edit. When no readable record follows, the stretch runs to the end of the
//! file and is a *tail* if no offset after its start holds a readable record at all: the
//! shape a torn write leaves (zeros, garbage, a partial record).
//!
//! | bytes at the stretch's start          | search for the next record from | tail if nothing readable |
//! |---------------------------------------|---------------------------------|--------------------------|
//! | fewer than a record header            | (nothing to search)             | after the start          |
//! | a header failing its checksum / limit | the next byte                   | after the start          |
//! | a valid header, payload past the end  | after the claimed payload       | after the start          |
//! | a valid header, payload failing       | after the payload               | after the start          |
//!
//! A segment header failing its checksum makes the whole file one stretch when its magic
//! or version is damaged (its records are not read: the format they were written in is
//! unknown); when both held, only the header's 24 bytes are a stretch and the records are
//! read as usual (the damage is in the id, which the file name gives, or the checksum). A header whose checksum holds
//! but that names another segment, another format or no log at all is an error: the file
//! is not a damaged segment of this log.

use super::damage::RecordHint;
use super::edit::{decode_payload, WalEdit};
use super::record::{check_payload, decode_header, RECORD_HEADER_LEN};
use super::segment::{
    check_header, SEGMENT_HEADER_LEN, SEGMENT_MAGIC, SEGMENT_VERSION, SEGMENT_VERSION_MIN,
};
use bytes::Bytes;

/// What one segment's bytes hold.
#[derive(Debug, Default)]
pub struct Scanned {
    /// Readable edits in file order, each with the byte range of its record.
    pub edits: Vec<(WalEdit, std::ops::Range<usize>)>,
    /// Damaged stretches in file order.
    pub stretches: Vec<Stretch>,
}

/// Bytes of a segment that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stretch {
    pub offset: usize,
    pub len: usize,
    pub reason: String,
    pub hint: Option<RecordHint>,
    /// How many readable edits of the segment precede it.
    pub edits_before: usize,
    /// No readable record starts anywhere after `offset`.
    pub tail: bool,
    /// The stretch is exactly one record: its header's checksum held (so its length is
    /// its own) and a readable record starts right where it ends.
    pub single_record: bool,
}

/// One record that failed, and what its header still says.
struct Failed {
    reason: String,
    /// Where the record ends if its header held (possibly past the end of the file).
    end: Option<usize>,
    hint: Option<RecordHint>,
}

/// Reads segment `id` from `bytes`. Fails only when the header's checksum holds but the
/// header is not this log's segment `id` in this format.
pub fn scan(bytes: &[u8], id: u64) -> Result<Scanned, String> {
    let mut scanned = Scanned::default();
    let header: Option<&[u8; SEGMENT_HEADER_LEN]> = bytes
        .get(..SEGMENT_HEADER_LEN)
        .and_then(|h| h.try_into().ok());
    let Some(header) = header else {
        scanned.stretches.push(Stretch {
            offset: 0,
            len: bytes.len(),
            reason: format!(
                "segment header is incomplete ({} of {SEGMENT_HEADER_LEN} bytes)",
                bytes.len()
            ),
            hint: None,
            edits_before: 0,
            tail: true,
            single_record: false,
        });
        return Ok(scanned);
    };
    if !header_checksum_holds(header) {
        let reason = match check_header(header, id) {
            Err(reason) => reason,
            Ok(()) => "segment header checksum mismatch".to_string(),
        };
        if !names_this_format(header) {
            scanned.stretches.push(Stretch {
                offset: 0,
                len: bytes.len(),
                reason,
                hint: None,
                edits_before: 0,
                tail: next_readable(bytes, 1).is_none(),
                single_record: false,
            });
            return Ok(scanned);
        }
        // Magic and version held: the damage is in the id or the checksum, which the file
        // name and each record's own checksums stand in for. Only the header is lost.
        scanned.stretches.push(Stretch {
            offset: 0,
            len: SEGMENT_HEADER_LEN,
            reason,
            hint: None,
            edits_before: 0,
            tail: next_readable(bytes, SEGMENT_HEADER_LEN).is_none(),
            single_record: false,
        });
    } else {
        check_header(header, id)?;
    }
    let mut offset = SEGMENT_HEADER_LEN;
    while offset < bytes.len() {
        match parse(bytes, offset) {
            Ok((edit, end)) => {
                scanned.edits.push((edit, offset..end));
                offset = end;
            }
            Err(failed) => {
                let search_from = failed.end.map_or(offset + 1, |end| end.max(offset + 1));
                let resume = next_readable(bytes, search_from);
                let tail = match resume {
                    Some(_) => false,
                    None if search_from == offset + 1 => true,
                    None => next_readable(bytes, offset + 1).is_none(),
                };
                let end = resume.unwrap_or(bytes.len());
                scanned.stretches.push(Stretch {
                    offset,
                    len: end - offset,
                    reason: failed.reason,
                    hint: failed.hint,
                    edits_before: scanned.edits.len(),
                    tail,
                    single_record: failed.end.is_some() && resume == failed.end,
                });
                offset = end;
            }
        }
    }
    Ok(scanned)
}

/// The header's magic and version are this log's and this format's (its id or checksum
/// may still be damaged).
fn names_this_format(header: &[u8; SEGMENT_HEADER_LEN]) -> bool {
    let version = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
    header[0..8] == SEGMENT_MAGIC && (SEGMENT_VERSION_MIN..=SEGMENT_VERSION).contains(&version)
}

fn header_checksum_holds(header: &[u8; SEGMENT_HEADER_LEN]) -> bool {
    let stored = u32::from_be_bytes([header[20], header[21], header[22], header[23]]);
    stored == crc32c::crc32c(&header[0..20])
}

/// The first offset at or after `from` where a readable record starts.
fn next_readable(bytes: &[u8], from: usize) -> Option<usize> {
    let last_start = bytes.len().checked_sub(RECORD_HEADER_LEN + 1)?;
    (from..=last_start).find(|&offset| {
        // The header's own checksum first: it rules out nearly every offset cheaply.
        header_at(bytes, offset).is_some_and(|h| decode_header(h).is_ok())
            && parse(bytes, offset).is_ok()
    })
}

fn header_at(bytes: &[u8], offset: usize) -> Option<&[u8; RECORD_HEADER_LEN]> {
    bytes
        .get(offset..offset.checked_add(RECORD_HEADER_LEN)?)
        .and_then(|h| h.try_into().ok())
}

/// The record at `offset` and where it ends, or why it cannot be read.
fn parse(bytes: &[u8], offset: usize) -> Result<(WalEdit, usize), Failed> {
    let failed =
        |reason: String, end: Option<usize>, hint: Option<RecordHint>| Failed { reason, end, hint };
    let Some(header) = header_at(bytes, offset) else {
        let left = bytes.len() - offset;
        return Err(failed(
            format!("record header is incomplete ({left} of {RECORD_HEADER_LEN} bytes)"),
            None,
            None,
        ));
    };
    let header = decode_header(header).map_err(|reason| failed(reason, None, None))?;
    let start = offset + RECORD_HEADER_LEN;
    let end = start + header.payload_len as usize;
    let Some(payload) = bytes.get(start..end) else {
        let left = bytes.len() - start;
        let reason = format!(
            "record is incomplete: its payload is {} bytes, the file holds {left}",
            header.payload_len
        );
        return Err(failed(reason, Some(end), hint(&bytes[start..])));
    };
    check_payload(&header, payload).map_err(|reason| failed(reason, Some(end), hint(payload)))?;
    let edit = decode_payload(Bytes::copy_from_slice(payload))
        .map_err(|reason| failed(reason, Some(end), hint(payload)))?;
    Ok((edit, end))
}

/// The region and sequence id a payload's first bytes name, if they can be read at all.
/// The length's top bit says a nonce follows the sequence id (an edit of a client's
/// mutation): it is not part of the length.
fn hint(payload: &[u8]) -> Option<RecordHint> {
    let region_len = u16::from_be_bytes([*payload.first()?, *payload.get(1)?]);
    let region_len = usize::from(region_len & !super::edit::NONCE_FLAG);
    let region = payload.get(2..2 + region_len)?;
    let region = std::str::from_utf8(region).ok()?.to_string();
    let seq: [u8; 8] = payload
        .get(2 + region_len..2 + region_len + 8)?
        .try_into()
        .ok()?;
    Some(RecordHint {
        region,
        seq_id: u64::from_be_bytes(seq),
    })
}

#[cfg(test)]
mod tests {
    use super::super::edit::encode_record;
    use super::super::segment::encode_header;
    use super::*;
    use basalt_types::Cell;

    fn edit(region: &str, seq: u64) -> WalEdit {
        WalEdit {
            region: region.into(),
            seq_id: seq,
            cells: vec![Cell::put("row", "cf", "q", 1, "value").with_seq(seq)],
            nonce: None,
        }
    }

    /// A segment of `edits` and where each record starts.
    fn segment(edits: &[WalEdit]) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = encode_header(1).to_vec();
        let mut starts = Vec::new();
        for e in edits {
            starts.push(bytes.len());
            encode_record(e, &mut bytes).expect("encodable");
        }
        (bytes, starts)
    }

    #[test]
    fn a_clean_segment_has_no_stretch() {
        let edits = [edit("a", 1), edit("b", 1)];
        let (bytes, starts) = segment(&edits);
        let scanned = scan(&bytes, 1).expect("ours");
        assert!(scanned.stretches.is_empty());
        let read: Vec<_> = scanned
            .edits
            .iter()
            .map(|(e, r)| (e.clone(), r.start))
            .collect();
        assert_eq!(
            read,
            vec![(edits[0].clone(), starts[0]), (edits[1].clone(), starts[1])]
        );
    }

    #[test]
    fn a_damaged_payload_is_skipped_by_its_length_and_hints_its_region() {
        let edits = [edit("a", 1), edit("b", 2), edit("a", 3)];
        let (mut bytes, starts) = segment(&edits);
        bytes[starts[2] - 1] ^= 1;
        let scanned = scan(&bytes, 1).expect("ours");
        assert_eq!(scanned.edits.len(), 2);
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert_eq!(
            (stretch.offset, stretch.len),
            (starts[1], starts[2] - starts[1])
        );
        assert_eq!((stretch.edits_before, stretch.tail), (1, false));
        assert!(
            stretch.reason.contains("payload checksum"),
            "{}",
            stretch.reason
        );
        let hint = stretch
            .hint
            .clone()
            .expect("the name is before the flipped byte");
        assert_eq!((hint.region.as_str(), hint.seq_id), ("b", 2));
    }

    #[test]
    fn a_damaged_payload_carrying_a_nonce_hints_its_region_too() {
        let mut with_nonce = edit("b", 2);
        with_nonce.nonce = Some(basalt_types::Nonce { group: 7, nonce: 9 });
        let edits = [edit("a", 1), with_nonce, edit("a", 3)];
        let (mut bytes, starts) = segment(&edits);
        bytes[starts[2] - 1] ^= 1;
        let scanned = scan(&bytes, 1).expect("ours");
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        let hint = stretch
            .hint
            .clone()
            .expect("the flag is not part of the length");
        assert_eq!((hint.region.as_str(), hint.seq_id), ("b", 2));
    }

    #[test]
    fn a_damaged_length_is_resynchronised_at_the_next_record() {
        let edits = [edit("a", 1), edit("b", 2), edit("a", 3)];
        let (mut bytes, starts) = segment(&edits);
        bytes[starts[1]] ^= 0x80;
        let scanned = scan(&bytes, 1).expect("ours");
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert_eq!(
            (stretch.offset, stretch.len),
            (starts[1], starts[2] - starts[1])
        );
        assert_eq!(stretch.hint, None);
        assert_eq!(scanned.edits.len(), 2);
    }

    #[test]
    fn zeros_garbage_and_partial_records_at_the_end_are_tails() {
        let (bytes, _) = segment(&[edit("a", 1)]);
        let (next, _) = segment(&[edit("a", 2)]);
        let partial = &next[SEGMENT_HEADER_LEN..next.len() - 3];
        let garbage: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        for tail in [&[0u8; 300][..], &garbage, partial, &partial[..5]] {
            let mut torn = bytes.clone();
            torn.extend_from_slice(tail);
            let scanned = scan(&torn, 1).expect("ours");
            assert_eq!(scanned.edits.len(), 1);
            let [stretch] = scanned.stretches.as_slice() else {
                panic!("{:?}", scanned.stretches)
            };
            assert_eq!((stretch.offset, stretch.len), (bytes.len(), tail.len()));
            assert!(stretch.tail, "{}", stretch.reason);
        }
    }

    #[test]
    fn a_record_inside_a_damaged_payload_is_not_read_but_keeps_it_from_being_a_tail() {
        let mut inner = Vec::new();
        encode_record(&edit("evil", 9), &mut inner).expect("encodable");
        let value = Bytes::from(inner);
        let outer = WalEdit {
            region: "a".into(),
            seq_id: 1,
            cells: vec![Cell::put("row", "cf", "q", 1, value).with_seq(1)],
            nonce: None,
        };
        let (mut bytes, starts) = segment(&[outer]);
        // The stored payload checksum: the header's own checksum still holds.
        bytes[starts[0] + 8] ^= 1;
        let scanned = scan(&bytes, 1).expect("ours");
        assert!(scanned.edits.is_empty(), "the inner record is not an edit");
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert_eq!(stretch.offset, starts[0]);
        assert!(
            !stretch.tail,
            "something readable follows the damage's start"
        );
    }

    #[test]
    fn header_damage_covers_the_file_and_a_foreign_header_is_an_error() {
        let (mut bytes, _) = segment(&[edit("a", 1)]);
        assert!(scan(&bytes, 2)
            .expect_err("another id")
            .contains("names segment 1"));
        bytes[3] ^= 1;
        let scanned = scan(&bytes, 1).expect("damage, not an error");
        assert!(scanned.edits.is_empty());
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert_eq!((stretch.offset, stretch.len), (0, bytes.len()));
        assert!(!stretch.tail, "a readable record follows");
        let short = scan(&bytes[..10], 1).expect("damage");
        assert!(short.stretches[0].tail);
    }

    #[test]
    fn damage_in_the_header_id_or_checksum_costs_only_the_header() {
        let (good, _) = segment(&[edit("a", 1), edit("b", 2)]);
        for byte in 12..SEGMENT_HEADER_LEN {
            let mut bytes = good.clone();
            bytes[byte] ^= 0x40;
            let scanned = scan(&bytes, 1).expect("damage, not an error");
            assert_eq!(scanned.edits.len(), 2, "byte {byte}: the records are read");
            let [stretch] = scanned.stretches.as_slice() else {
                panic!("byte {byte}: {:?}", scanned.stretches)
            };
            assert_eq!(
                (stretch.offset, stretch.len),
                (0, SEGMENT_HEADER_LEN),
                "byte {byte}"
            );
            assert!(!stretch.tail, "byte {byte}");
        }
    }
}
