//! The snapshot: every key at one revision, in one checksummed file, written whole to a
//! temporary name, synced, renamed into place and the folder synced, so that it is either
//! the old snapshot or the new one after a crash.
//!
//! ```text
//! | magic "BSLTCSNP" | version u32 = 1 | revision i64 | key_count u64 |
//! | key | key | ... (codec's layout, in key order) | crc32c(every earlier byte) u32 |
//! ```

use super::codec::{put_kv, Damage, Reader};
use crate::KeyValue;

pub(crate) const MAGIC: &[u8; 8] = b"BSLTCSNP";
pub(crate) const VERSION: u32 = 1;
/// Magic, version, revision, count and the checksum.
const FIXED_BYTES: usize = 8 + 4 + 8 + 8 + 4;

/// Every key at one revision.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub revision: i64,
    pub kvs: Vec<KeyValue>,
}

pub(crate) fn encode<'a>(
    revision: i64,
    kvs: impl ExactSizeIterator<Item = &'a KeyValue>,
) -> Vec<u8> {
    let mut buf = Vec::new();
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&VERSION.to_be_bytes());
    buf.extend_from_slice(&revision.to_be_bytes());
    buf.extend_from_slice(&(kvs.len() as u64).to_be_bytes());
    for kv in kvs {
        put_kv(&mut buf, kv);
    }
    let crc = crc32c::crc32c(&buf);
    buf.extend_from_slice(&crc.to_be_bytes());
    buf
}

/// The version a snapshot names, once its magic and checksum hold (so that a newer
/// snapshot is told from a damaged one).
pub(crate) fn version(bytes: &[u8]) -> Result<u32, Damage> {
    if bytes.len() < FIXED_BYTES {
        return Err(Damage::new(
            0,
            format!(
                "a snapshot needs at least {FIXED_BYTES} bytes, the file has {}",
                bytes.len()
            ),
        ));
    }
    if &bytes[..8] != MAGIC {
        return Err(Damage::new(0, "not a coordinator snapshot (bad magic)"));
    }
    let body = bytes.len() - 4;
    let stored = u32::from_be_bytes([
        bytes[body],
        bytes[body + 1],
        bytes[body + 2],
        bytes[body + 3],
    ]);
    if crc32c::crc32c(&bytes[..body]) != stored {
        return Err(Damage::new(
            body as u64,
            format!("snapshot checksum mismatch over bytes 0..{body}"),
        ));
    }
    Ok(u32::from_be_bytes([
        bytes[8], bytes[9], bytes[10], bytes[11],
    ]))
}

/// Reads a whole snapshot of this version; the caller checked the version first.
pub(crate) fn decode(bytes: &[u8]) -> Result<Snapshot, Damage> {
    version(bytes)?;
    let body = bytes.len() - 4;
    let mut reader = Reader::new(&bytes[12..body], 12);
    let revision = reader.revision("revision")?;
    let count = reader.u64("key count")?;
    let mut kvs = Vec::new();
    for _ in 0..count {
        let at = reader.offset();
        let kv = reader.kv()?;
        if kv.mod_revision > revision {
            return Err(Damage::new(
                at,
                format!(
                    "a key changed at {} in a snapshot of revision {revision}",
                    kv.mod_revision
                ),
            ));
        }
        if kvs.last().is_some_and(|last: &KeyValue| last.key >= kv.key) {
            return Err(Damage::new(at, "keys out of order"));
        }
        kvs.push(kv);
    }
    if reader.remaining() != 0 {
        return Err(Damage::new(
            reader.offset(),
            format!(
                "{} bytes after the last of {count} keys",
                reader.remaining()
            ),
        ));
    }
    Ok(Snapshot { revision, kvs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_back_and_a_flipped_byte_is_named() {
        let kvs = [KeyValue {
            key: b"k".to_vec(),
            value: b"v".to_vec(),
            create_revision: 2,
            mod_revision: 3,
            version: 2,
            lease: 0,
        }];
        let bytes = encode(3, kvs.iter());
        let read = decode(&bytes).expect("decodes");
        assert_eq!((read.revision, read.kvs.as_slice()), (3, &kvs[..]));
        let mut flipped = bytes.clone();
        flipped[30] ^= 4;
        let damage = decode(&flipped).expect_err("refused");
        assert_eq!(damage.offset, bytes.len() as u64 - 4);
    }
}
