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
//! In a segment of format version 3 (records naming their segment, [`numbered`]) the
//! records end at the first offset holding zeros (a record header's worth, or to the end
//! of the file) or a sound record header of another segment, unless a readable record of
//! this segment follows somewhere after it: that is a preallocated or reused file's unused
//! space ([`Scanned::end`]), never a stretch. When one does follow, the bytes are a
//! stretch as below (zeros in the middle of a segment are damage). A readable record, in
//! the search for where a stretch ends, is one of this segment. A sound version 3 header
//! naming an earlier segment than the file's name is a reused file whose new header was
//! never written: the whole file is a tail stretch (it holds nothing of this segment).
//!
//! A segment header failing its checksum makes the whole file one stretch when its magic
//! or version is damaged (its records are not read: the format they were written in is
//! unknown); when both held, only the header's 24 bytes are a stretch and the records are
//! read as usual (the damage is in the id, which the file name gives, or the checksum). A header whose checksum holds
//! but that names another segment, another format or no log at all is an error: the file
//! is not a damaged segment of this log.

use super::damage::RecordHint;
use super::edit::{decode_payload, WalEdit};
use super::numbered::{self, NUMBERED_HEADER_LEN};
use super::record::{check_payload, decode_header, RecordHeader, RECORD_HEADER_LEN};
use super::segment::{
    self, check_header, SEGMENT_HEADER_LEN, SEGMENT_MAGIC, SEGMENT_VERSION, SEGMENT_VERSION_MIN,
    SEGMENT_VERSION_NUMBERED,
};
use bytes::Bytes;

/// What one segment's bytes hold.
#[derive(Debug, Default)]
pub struct Scanned {
    /// Readable edits in file order, each with the byte range of its record.
    pub edits: Vec<(WalEdit, std::ops::Range<usize>)>,
    /// Damaged stretches in file order.
    pub stretches: Vec<Stretch>,
    /// Where the segment's records end: the file's length, or (format version 3) where its
    /// unused space starts (zeros, or records of the file's earlier use).
    pub end: usize,
    /// The format version its header names (the current one if the header is unreadable).
    pub version: u32,
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

/// How a segment's records are framed: its format version says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// Versions 1 and 2 ([`super::record`]).
    Plain,
    /// Version 3 ([`super::numbered`]): records naming this segment id.
    Numbered(u64),
}

impl Framing {
    fn of(version: u32, id: u64) -> Self {
        match version >= SEGMENT_VERSION_NUMBERED {
            true => Framing::Numbered(id),
            false => Framing::Plain,
        }
    }

    fn header_len(self) -> usize {
        match self {
            Framing::Plain => RECORD_HEADER_LEN,
            Framing::Numbered(_) => NUMBERED_HEADER_LEN,
        }
    }
}

/// One record that failed, and what its header still says.
struct Failed {
    reason: String,
    /// Where the record ends if its header held (possibly past the end of the file).
    end: Option<usize>,
    hint: Option<RecordHint>,
    /// Version 3: the bytes are zeros, or a record of another segment (the file's earlier
    /// use): the end of the records unless a record of this segment follows.
    unused: bool,
}

/// Reads segment `id` from `bytes`. Fails only when the header's checksum holds but the
/// header is not this log's segment `id` in this format.
pub fn scan(bytes: &[u8], id: u64) -> Result<Scanned, String> {
    let mut scanned = Scanned {
        end: bytes.len(),
        version: SEGMENT_VERSION,
        ..Scanned::default()
    };
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
            let readable = |framing| next_readable(bytes, 1, framing).is_some();
            scanned.stretches.push(Stretch {
                offset: 0,
                len: bytes.len(),
                reason,
                hint: None,
                edits_before: 0,
                tail: !readable(Framing::Plain) && !readable(Framing::Numbered(id)),
                single_record: false,
            });
            return Ok(scanned);
        }
        // Magic and version look sound: the damage is in the id or the checksum, which the
        // file name and each record's own checksums stand in for. Only the header is lost.
        scanned.version = damaged_header_version(bytes, id, segment::version_of(header));
        scanned.stretches.push(Stretch {
            offset: 0,
            len: SEGMENT_HEADER_LEN,
            reason,
            hint: None,
            edits_before: 0,
            tail: next_readable(bytes, SEGMENT_HEADER_LEN, Framing::of(scanned.version, id))
                .is_none(),
            single_record: false,
        });
    } else if let Some(earlier) = earlier_use(header, id) {
        // A recycled file renamed for segment `id` whose new header was never written:
        // nothing was logged into it as `id` (a segment's header is synced first).
        scanned.stretches.push(Stretch {
            offset: 0,
            len: bytes.len(),
            reason: format!(
                "the header is still the one of the file's earlier use as segment {earlier}: \
                 nothing was logged into it as segment {id}"
            ),
            hint: None,
            edits_before: 0,
            tail: true,
            single_record: false,
        });
        return Ok(scanned);
    } else {
        check_header(header, id)?;
        scanned.version = segment::version_of(header);
    }
    read_records(bytes, Framing::of(scanned.version, id), &mut scanned);
    Ok(scanned)
}

/// How much of segment `id` a seal fixes as its replayable length: for a version 3
/// segment whose only damage is a tail (a write in progress) or none, the end of its last
/// readable record, so that what a fenced writer writes later into the preallocated or
/// reused space past it is never replayed; the whole file otherwise.
pub fn sealed_len(bytes: &[u8], id: u64) -> usize {
    match scan(bytes, id) {
        Ok(scanned)
            if scanned.version >= SEGMENT_VERSION_NUMBERED
                && scanned
                    .stretches
                    .iter()
                    .all(|s| s.tail && s.offset >= SEGMENT_HEADER_LEN) =>
        {
            scanned
                .edits
                .last()
                .map_or(SEGMENT_HEADER_LEN, |(_, range)| range.end)
        }
        _ => bytes.len(),
    }
}

/// Reads the records after the segment header into `scanned`.
fn read_records(bytes: &[u8], framing: Framing, scanned: &mut Scanned) {
    let mut offset = SEGMENT_HEADER_LEN;
    while offset < bytes.len() {
        match parse(bytes, offset, framing) {
            Ok((edit, end)) => {
                scanned.edits.push((edit, offset..end));
                offset = end;
            }
            Err(failed) => {
                if failed.unused && next_readable(bytes, offset + 1, framing).is_none() {
                    scanned.end = offset;
                    return;
                }
                let search_from = failed.end.map_or(offset + 1, |end| end.max(offset + 1));
                let resume = next_readable(bytes, search_from, framing);
                let tail = match resume {
                    Some(_) => false,
                    None if search_from == offset + 1 => true,
                    None => next_readable(bytes, offset + 1, framing).is_none(),
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
}

/// The format version of a segment whose header failed its checksum but names a known
/// version: the version whose framing reads the first record (a flipped bit may have
/// turned one known version into another), else the one named.
fn damaged_header_version(bytes: &[u8], id: u64, named: u32) -> u32 {
    if parse(bytes, SEGMENT_HEADER_LEN, Framing::Numbered(id)).is_ok() {
        SEGMENT_VERSION_NUMBERED
    } else if parse(bytes, SEGMENT_HEADER_LEN, Framing::Plain).is_ok() {
        named.min(SEGMENT_VERSION_NUMBERED - 1)
    } else {
        named
    }
}

/// The id of the segment a sound version 3 header names, when it is an earlier one than
/// `id`: the file's earlier use (see `scan`).
fn earlier_use(header: &[u8; SEGMENT_HEADER_LEN], id: u64) -> Option<u64> {
    let named = segment::id_of(header);
    let recyclable = header[0..8] == SEGMENT_MAGIC
        && (SEGMENT_VERSION_NUMBERED..=SEGMENT_VERSION).contains(&segment::version_of(header));
    (recyclable && named < id).then_some(named)
}

/// The header's magic and version are this log's and this format's (its id or checksum
/// may still be damaged).
fn names_this_format(header: &[u8; SEGMENT_HEADER_LEN]) -> bool {
    let version = segment::version_of(header);
    header[0..8] == SEGMENT_MAGIC && (SEGMENT_VERSION_MIN..=SEGMENT_VERSION).contains(&version)
}

fn header_checksum_holds(header: &[u8; SEGMENT_HEADER_LEN]) -> bool {
    let stored = u32::from_be_bytes([header[20], header[21], header[22], header[23]]);
    stored == crc32c::crc32c(&header[0..20])
}

/// The first offset at or after `from` where a readable record (of this segment) starts.
/// A record's first four bytes (its length, at least 1) are never all zero, so runs of
/// zeros (preallocated space) are skipped without checking each offset.
fn next_readable(bytes: &[u8], from: usize, framing: Framing) -> Option<usize> {
    let last_start = bytes.len().checked_sub(framing.header_len() + 1)?;
    let mut offset = from;
    while offset <= last_start {
        if bytes[offset..offset + 4] == [0; 4] {
            let nonzero = bytes[offset + 4..].iter().position(|&b| b != 0)?;
            offset = (offset + 4 + nonzero).saturating_sub(3).max(offset + 1);
            continue;
        }
        // The header's own checksum first: it rules out nearly every offset cheaply.
        if header_holds(bytes, offset, framing) && parse(bytes, offset, framing).is_ok() {
            return Some(offset);
        }
        offset += 1;
    }
    None
}

fn header_holds(bytes: &[u8], offset: usize, framing: Framing) -> bool {
    match framing {
        Framing::Plain => header_at(bytes, offset).is_some_and(|h| decode_header(h).is_ok()),
        // The id first: it rules out the earlier use's records (whole segments of them in
        // a reused file) without a checksum.
        Framing::Numbered(id) => header_at::<NUMBERED_HEADER_LEN>(bytes, offset)
            .is_some_and(|h| h[4..12] == id.to_be_bytes() && numbered::decode_header(h).is_ok()),
    }
}

fn header_at<const N: usize>(bytes: &[u8], offset: usize) -> Option<&[u8; N]> {
    bytes
        .get(offset..offset.checked_add(N)?)
        .and_then(|h| h.try_into().ok())
}

/// The record at `offset` and where it ends, or why it cannot be read.
fn parse(bytes: &[u8], offset: usize, framing: Framing) -> Result<(WalEdit, usize), Failed> {
    let failed = |reason: String, end: Option<usize>, hint: Option<RecordHint>| Failed {
        reason,
        end,
        hint,
        unused: false,
    };
    let header_len = framing.header_len();
    let rest = &bytes[offset..];
    let header = match framing {
        Framing::Plain => header_at(bytes, offset).map(|h| decode_header(h).map_err(failed_at)),
        Framing::Numbered(id) => header_at(bytes, offset).map(|h| numbered_header(h, id)),
    };
    let header = match header {
        None if framing != Framing::Plain && numbered::is_unused(rest) => {
            return Err(unused("zeros (unused space)".into()));
        }
        None => {
            let left = rest.len();
            return Err(failed(
                format!("record header is incomplete ({left} of {header_len} bytes)"),
                None,
                None,
            ));
        }
        Some(header) => header?,
    };
    let start = offset + header_len;
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

fn failed_at(reason: String) -> Failed {
    Failed {
        reason,
        end: None,
        hint: None,
        unused: false,
    }
}

fn unused(reason: String) -> Failed {
    Failed {
        unused: true,
        ..failed_at(reason)
    }
}

/// A version 3 header as a [`RecordHeader`] if it holds and names segment `id`. A header
/// of zeros, or a sound one of another segment, fails as unused space.
fn numbered_header(bytes: &[u8; NUMBERED_HEADER_LEN], id: u64) -> Result<RecordHeader, Failed> {
    match numbered::decode_header(bytes) {
        Ok(h) if h.segment_id == id => Ok(RecordHeader {
            payload_len: h.payload_len,
            payload_crc: h.payload_crc,
        }),
        Ok(h) => Err(unused(format!(
            "a record of segment {} (the file's earlier use)",
            h.segment_id
        ))),
        Err(_) if numbered::is_unused(bytes) => Err(unused("zeros (unused space)".into())),
        Err(reason) => Err(failed_at(reason)),
    }
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
    use super::super::edit::{encode_record, encode_segment_record};
    use super::super::segment::{encode_header, encode_header_version};
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

    /// Segment 1 of `edits` (the current format) and where each record starts.
    fn segment(edits: &[WalEdit]) -> (Vec<u8>, Vec<usize>) {
        segment_of(1, edits)
    }

    fn segment_of(id: u64, edits: &[WalEdit]) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = encode_header(id).to_vec();
        let mut starts = Vec::new();
        for e in edits {
            starts.push(bytes.len());
            encode_segment_record(e, id, &mut bytes).expect("encodable");
        }
        (bytes, starts)
    }

    /// Segment 1 of `edits` in format version 2 (records without the segment's id).
    fn segment_v2(edits: &[WalEdit]) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = encode_header_version(1, 2).to_vec();
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
    fn zeros_garbage_and_partial_records_at_the_end_of_a_version_2_segment_are_tails() {
        let (bytes, _) = segment_v2(&[edit("a", 1)]);
        let (next, _) = segment_v2(&[edit("a", 2)]);
        let partial = &next[SEGMENT_HEADER_LEN..next.len() - 3];
        let garbage: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        for tail in [&[0u8; 300][..], &garbage, partial, &partial[..5]] {
            let mut torn = bytes.clone();
            torn.extend_from_slice(tail);
            let scanned = scan(&torn, 1).expect("ours");
            assert_eq!((scanned.edits.len(), scanned.version), (1, 2));
            let [stretch] = scanned.stretches.as_slice() else {
                panic!("{:?}", scanned.stretches)
            };
            assert_eq!((stretch.offset, stretch.len), (bytes.len(), tail.len()));
            assert!(stretch.tail, "{}", stretch.reason);
        }
    }

    #[test]
    fn zeros_and_an_earlier_uses_records_end_a_segment_without_damage() {
        let (bytes, _) = segment(&[edit("a", 1)]);
        let (earlier, earlier_starts) = segment_of(7, &[edit("old", 1), edit("old", 2)]);
        let stale_whole = &earlier[earlier_starts[1]..];
        let stale_cut = &earlier[earlier_starts[0] + 5..];
        for after in [&[0u8; 3000][..], &[0u8; 5], stale_whole] {
            let mut recycled = bytes.clone();
            recycled.extend_from_slice(after);
            let scanned = scan(&recycled, 1).expect("ours");
            assert_eq!(scanned.edits.len(), 1);
            assert!(scanned.stretches.is_empty(), "{:?}", scanned.stretches);
            assert_eq!(scanned.end, bytes.len());
        }
        // The bytes right after the new records are the inside of an old record: that is
        // a torn tail (the newest segment is cut there), never damage.
        let mut recycled = bytes.clone();
        recycled.extend_from_slice(stale_cut);
        let scanned = scan(&recycled, 1).expect("ours");
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert!(stretch.tail && stretch.offset == bytes.len(), "{stretch:?}");
    }

    #[test]
    fn damage_followed_by_this_segments_records_is_still_damage_in_a_recycled_file() {
        let (mut bytes, starts) = segment(&[edit("a", 1), edit("b", 2), edit("a", 3)]);
        let (earlier, _) = segment_of(7, &[edit("old", 1)]);
        bytes.extend_from_slice(&earlier[SEGMENT_HEADER_LEN..]);
        bytes[starts[2] - 1] ^= 1;
        let scanned = scan(&bytes, 1).expect("ours");
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert_eq!((stretch.offset, stretch.tail), (starts[1], false));
        assert_eq!(scanned.edits.len(), 2);
        let stale_len = earlier.len() - SEGMENT_HEADER_LEN;
        assert_eq!(scanned.end, bytes.len() - stale_len);
    }

    #[test]
    fn zeros_in_the_middle_followed_by_this_segments_records_are_damage() {
        let (mut bytes, starts) = segment(&[edit("a", 1), edit("b", 2), edit("a", 3)]);
        bytes[starts[1]..starts[2]].fill(0);
        let scanned = scan(&bytes, 1).expect("ours");
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert_eq!(
            (stretch.offset, stretch.len),
            (starts[1], starts[2] - starts[1])
        );
        assert!(!stretch.tail);
        assert_eq!(scanned.edits.len(), 2);
    }

    #[test]
    fn a_header_left_from_the_files_earlier_use_holds_nothing_of_this_segment() {
        let (earlier, _) = segment_of(7, &[edit("old", 1)]);
        let scanned = scan(&earlier, 9).expect("an earlier use, not an error");
        assert!(scanned.edits.is_empty());
        let [stretch] = scanned.stretches.as_slice() else {
            panic!("{:?}", scanned.stretches)
        };
        assert!(stretch.tail && stretch.offset == 0, "{stretch:?}");
        assert!(scan(&earlier, 6)
            .expect_err("a later id")
            .contains("names segment 7"));
    }

    #[test]
    fn a_seal_fixes_a_preallocated_segment_at_its_last_record() {
        let (bytes, _) = segment(&[edit("a", 1)]);
        let mut preallocated = bytes.clone();
        preallocated.extend_from_slice(&[0; 4096]);
        assert_eq!(sealed_len(&preallocated, 1), bytes.len());
        let (v2, _) = segment_v2(&[edit("a", 1)]);
        assert_eq!(
            sealed_len(&v2, 1),
            v2.len(),
            "older formats: the whole file"
        );
    }

    #[test]
    fn garbage_and_partial_records_at_the_end_are_tails() {
        let (bytes, _) = segment(&[edit("a", 1)]);
        let (next, _) = segment(&[edit("a", 2)]);
        let partial = &next[SEGMENT_HEADER_LEN..next.len() - 3];
        let garbage: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8 | 1).collect();
        for tail in [&garbage[..], partial, &partial[..5]] {
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
        encode_segment_record(&edit("evil", 9), 1, &mut inner).expect("encodable");
        let value = Bytes::from(inner);
        let outer = WalEdit {
            region: "a".into(),
            seq_id: 1,
            cells: vec![Cell::put("row", "cf", "q", 1, value).with_seq(1)],
            nonce: None,
        };
        let (mut bytes, starts) = segment(&[outer]);
        // The stored payload checksum: the header's own checksum still holds.
        bytes[starts[0] + 16] ^= 1;
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
        let (later, _) = segment_of(2, &[edit("a", 1)]);
        assert!(scan(&later, 1)
            .expect_err("another id")
            .contains("names segment 2"));
        let (mut bytes, _) = segment(&[edit("a", 1)]);
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
