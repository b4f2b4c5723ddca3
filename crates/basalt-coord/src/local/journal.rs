//! The journal: an append-only file of committed revisions, each a length-prefixed,
//! CRC32C-checksummed record of the changes it made. Encoding and scanning only; the
//! folder (`durable`) decides what a scan's findings mean.
//!
//! ```text
//! header (24 bytes):
//! | magic "BSLTCJNL" | version u32 = 1 | base_revision i64 | crc32c(bytes 0..20) u32 |
//!
//! record:
//! | payload_len u32 | crc32c(bytes 0..4) u32 | crc32c(payload) u32 | payload |
//!
//! payload:
//! | revision i64 | event_count u32 | event | event | ... |
//! event: | 1 | key (codec's layout, mod_revision = revision) |    a put
//!        | 2 | key_len u32 | key |                               a delete
//! ```
//!
//! A scan reads records in order and stops at the first that fails a check. That record
//! is a **torn tail** (a crash mid-append, never acknowledged) only when nothing readable
//! can follow it: fewer bytes remain than a record header, the record runs past the end
//! of the file, its payload checksum fails and it ends exactly at the end of the file, or
//! its length checksum fails and every byte from there on is zero. Anything else is
//! damage.

use super::codec::{put_bytes, put_kv, Damage, Reader};
use crate::{EventKind, KeyValue, WatchEvent};

pub(crate) const MAGIC: &[u8; 8] = b"BSLTCJNL";
pub(crate) const VERSION: u32 = 1;
pub(crate) const HEADER_BYTES: usize = 24;
const RECORD_HEADER_BYTES: usize = 12;
/// The largest payload a record may claim; checked before anything is allocated.
pub(crate) const RECORD_PAYLOAD_BYTES_MAX: usize = 256 << 20;
const PUT: u8 = 1;
const DELETE: u8 = 2;

/// One committed revision and the changes it made, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    pub revision: i64,
    pub events: Vec<WatchEvent>,
}

pub(crate) fn encode_header(base_revision: i64) -> Vec<u8> {
    let mut buf = Vec::with_capacity(HEADER_BYTES);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&VERSION.to_be_bytes());
    buf.extend_from_slice(&base_revision.to_be_bytes());
    let crc = crc32c::crc32c(&buf);
    buf.extend_from_slice(&crc.to_be_bytes());
    buf
}

/// A framed record (header and payload) of `events`, which all carry `revision`.
pub(crate) fn encode_record(revision: i64, events: &[WatchEvent]) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(&revision.to_be_bytes());
    let count = u32::try_from(events.len()).unwrap_or(u32::MAX);
    payload.extend_from_slice(&count.to_be_bytes());
    for event in events {
        match event.kind {
            EventKind::Put => {
                payload.push(PUT);
                put_kv(&mut payload, &event.kv);
            }
            EventKind::Delete => {
                payload.push(DELETE);
                put_bytes(&mut payload, &event.kv.key);
            }
        }
    }
    let len = u32::try_from(payload.len())
        .unwrap_or(u32::MAX)
        .to_be_bytes();
    let mut buf = Vec::with_capacity(RECORD_HEADER_BYTES + payload.len());
    buf.extend_from_slice(&len);
    buf.extend_from_slice(&crc32c::crc32c(&len).to_be_bytes());
    buf.extend_from_slice(&crc32c::crc32c(&payload).to_be_bytes());
    buf.extend_from_slice(&payload);
    buf
}

/// What a scan found: the header's base revision, every readable record with its offset,
/// and the torn tail, if any (its offset and why).
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub base_revision: i64,
    pub records: Vec<(u64, Record)>,
    pub torn: Option<Damage>,
}

/// The version a header names, once its checksum holds (so that a newer journal is told
/// from a damaged one).
pub(crate) fn header_version(bytes: &[u8]) -> Result<u32, Damage> {
    let mut reader = Reader::new(bytes, 0);
    let header = reader.take(HEADER_BYTES, "journal header")?;
    if &header[..8] != MAGIC {
        return Err(Damage::new(0, "not a coordinator journal (bad magic)"));
    }
    let stored = u32::from_be_bytes([header[20], header[21], header[22], header[23]]);
    if crc32c::crc32c(&header[..20]) != stored {
        return Err(Damage::new(20, "journal header checksum mismatch"));
    }
    Ok(u32::from_be_bytes([
        header[8], header[9], header[10], header[11],
    ]))
}

/// Reads a whole journal of this version; the caller checked the version first.
pub(crate) fn scan(bytes: &[u8]) -> Result<Scan, Damage> {
    header_version(bytes)?;
    let mut header = Reader::new(&bytes[12..HEADER_BYTES], 12);
    let mut scan = Scan {
        base_revision: header.revision("base revision")?,
        ..Scan::default()
    };
    let mut offset = HEADER_BYTES;
    while offset < bytes.len() {
        match read_record(bytes, offset) {
            Ok((record, next)) => {
                scan.records.push((offset as u64, record));
                offset = next;
            }
            Err(Failed::Torn(cause)) => {
                scan.torn = Some(Damage::new(offset as u64, cause));
                break;
            }
            Err(Failed::Damaged(damage)) => return Err(damage),
        }
    }
    Ok(scan)
}

enum Failed {
    Torn(String),
    Damaged(Damage),
}

/// The record at `offset` and the offset after it.
fn read_record(bytes: &[u8], offset: usize) -> Result<(Record, usize), Failed> {
    let rest = &bytes[offset..];
    if rest.len() < RECORD_HEADER_BYTES {
        return Err(Failed::Torn(format!(
            "a record header needs {RECORD_HEADER_BYTES} bytes, {} remain",
            rest.len()
        )));
    }
    let be = |i: usize| u32::from_be_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
    let (len, len_crc, payload_crc) = (be(0), be(4), be(8));
    let damaged = |cause: String| Failed::Damaged(Damage::new(offset as u64, cause));
    if crc32c::crc32c(&rest[..4]) != len_crc {
        let cause = "record length checksum mismatch".to_string();
        if rest.iter().all(|b| *b == 0) {
            return Err(Failed::Torn(format!("{cause} (zeros to the end)")));
        }
        return Err(damaged(cause));
    }
    let len = len as usize;
    if len > RECORD_PAYLOAD_BYTES_MAX {
        return Err(damaged(format!(
            "record length {len} is above the limit {RECORD_PAYLOAD_BYTES_MAX}"
        )));
    }
    let end = RECORD_HEADER_BYTES + len;
    if rest.len() < end {
        return Err(Failed::Torn(format!(
            "the record needs {end} bytes, {} remain",
            rest.len()
        )));
    }
    let payload = &rest[RECORD_HEADER_BYTES..end];
    if crc32c::crc32c(payload) != payload_crc {
        let cause = "record payload checksum mismatch".to_string();
        if rest.len() == end {
            return Err(Failed::Torn(format!("{cause} (the last record)")));
        }
        return Err(damaged(cause));
    }
    let record =
        decode_payload(payload, (offset + RECORD_HEADER_BYTES) as u64).map_err(Failed::Damaged)?;
    Ok((record, offset + end))
}

fn decode_payload(payload: &[u8], base: u64) -> Result<Record, Damage> {
    let mut reader = Reader::new(payload, base);
    let revision = reader.revision("revision")?;
    let count = reader.u32("event count")?;
    let mut events = Vec::new();
    for _ in 0..count {
        let at = reader.offset();
        let kind = reader.u8("event kind")?;
        let event = match kind {
            PUT => {
                let kv = reader.kv()?;
                if kv.mod_revision != revision {
                    return Err(Damage::new(
                        at,
                        format!(
                            "a put at mod revision {} in the record of revision {revision}",
                            kv.mod_revision
                        ),
                    ));
                }
                WatchEvent {
                    kind: EventKind::Put,
                    kv,
                }
            }
            DELETE => WatchEvent {
                kind: EventKind::Delete,
                kv: KeyValue {
                    key: reader.bytes("key")?,
                    value: Vec::new(),
                    create_revision: 0,
                    mod_revision: revision,
                    version: 0,
                    lease: 0,
                },
            },
            other => return Err(Damage::new(at, format!("unknown event kind {other}"))),
        };
        events.push(event);
    }
    if reader.remaining() != 0 || events.is_empty() {
        return Err(Damage::new(
            reader.offset(),
            format!(
                "a record of {count} events with {} bytes left over",
                reader.remaining()
            ),
        ));
    }
    Ok(Record { revision, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &str, revision: i64) -> WatchEvent {
        WatchEvent {
            kind: EventKind::Put,
            kv: KeyValue {
                key: key.as_bytes().to_vec(),
                value: b"v".to_vec(),
                create_revision: 2,
                mod_revision: revision,
                version: revision - 1,
                lease: 0,
            },
        }
    }

    fn journal(records: &[(i64, Vec<WatchEvent>)]) -> Vec<u8> {
        let mut bytes = encode_header(1);
        for (revision, events) in records {
            bytes.extend(encode_record(*revision, events));
        }
        bytes
    }

    #[test]
    fn records_read_back_as_written() {
        let records = vec![(2, vec![put("a", 2)]), (3, vec![put("a", 3), put("b", 3)])];
        let scan = scan(&journal(&records)).expect("scans");
        let read: Vec<_> = scan
            .records
            .into_iter()
            .map(|(_, r)| (r.revision, r.events))
            .collect();
        assert_eq!(read, records);
        assert!(scan.torn.is_none());
    }

    #[test]
    fn every_cut_of_the_last_record_is_a_torn_tail() {
        let whole = journal(&[(2, vec![put("a", 2)]), (3, vec![put("b", 3)])]);
        let second = journal(&[(2, vec![put("a", 2)])]).len();
        for len in second + 1..whole.len() {
            let scan = scan(&whole[..len]).expect("a cut tail scans");
            assert_eq!(scan.records.len(), 1, "cut at {len}");
            assert_eq!(scan.torn.map(|t| t.offset), Some(second as u64));
        }
    }

    #[test]
    fn a_flipped_byte_before_the_last_record_is_damage() {
        let mut bytes = journal(&[(2, vec![put("a", 2)]), (3, vec![put("b", 3)])]);
        bytes[HEADER_BYTES + 20] ^= 1;
        let damage = scan(&bytes).expect_err("damage refuses");
        assert_eq!(damage.offset, HEADER_BYTES as u64);
    }
}
