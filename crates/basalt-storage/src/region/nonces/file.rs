//! `recent.nonces`: the nonces of a region's flushed edits, beside its manifest.
//!
//! ```text
//! | magic "BSNC" | version u32 (1) | count u32 |
//! | per entry: group u64 | nonce u64 | seq_id u64 | applied_ms i64 |
//! | crc32c u32 over everything before |
//! ```
//!
//! Written whole (temporary file, sync, rename) at a flush that flushed an edit with a
//! nonce, before the manifest commit that lets the log go. A file that does not decode
//! costs only the protection it gave: it is reported by [`decode`] and the region opens
//! without it.

use super::Entry;
use basalt_types::Nonce;
use bytes::{Buf, BufMut};

/// The file's name in a region folder.
pub const FILE_NAME: &str = "recent.nonces";

const MAGIC: &[u8; 4] = b"BSNC";
const VERSION: u32 = 1;
const HEADER: usize = 12;
const ENTRY: usize = 32;

/// The file's bytes for `entries`.
pub fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + entries.len() * ENTRY + 4);
    out.put_slice(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(u32::try_from(entries.len()).unwrap_or(u32::MAX));
    for e in entries.iter().take(u32::MAX as usize) {
        out.put_u64(e.nonce.group);
        out.put_u64(e.nonce.nonce);
        out.put_u64(e.seq_id);
        out.put_i64(e.applied_ms);
    }
    let crc = crc32c::crc32c(&out);
    out.put_u32(crc);
    out
}

/// The entries of a file, or what is wrong with it.
pub fn decode(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    if bytes.len() < HEADER + 4 || &bytes[..4] != MAGIC {
        return Err(format!(
            "not a nonce file ({} bytes, no magic)",
            bytes.len()
        ));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let mut head = &body[4..];
    let stored = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if crc32c::crc32c(body) != stored {
        return Err("nonce file checksum mismatch".into());
    }
    // Only a file whose checksum holds can be a newer one rather than a damaged one.
    let version = head.get_u32();
    if version != VERSION {
        return Err(format!(
            "nonce file format version {version} is not the one this Basalt reads ({VERSION})"
        ));
    }
    let count = head.get_u32() as usize;
    if head.len() != count.saturating_mul(ENTRY) {
        return Err(format!(
            "nonce file says {count} entries but holds {} bytes of them",
            head.len()
        ));
    }
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        entries.push(Entry {
            nonce: Nonce {
                group: head.get_u64(),
                nonce: head.get_u64(),
            },
            seq_id: head.get_u64(),
            applied_ms: head.get_i64(),
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: u64) -> Entry {
        Entry {
            nonce: Nonce { group: 7, nonce: n },
            seq_id: 100 + n,
            applied_ms: 1_000 * n as i64,
        }
    }

    #[test]
    fn entries_read_back() {
        let entries: Vec<_> = (1..=3).map(entry).collect();
        assert_eq!(decode(&encode(&entries)).expect("ok"), entries);
        assert_eq!(decode(&encode(&[])).expect("ok"), vec![]);
    }

    #[test]
    fn damage_is_named_never_a_panic() {
        let good = encode(&[entry(1), entry(2)]);
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            assert!(decode(&bad).is_err(), "flipped byte {i}");
        }
        let mut newer = good[..good.len() - 4].to_vec();
        newer[7] = 2;
        let crc = crc32c::crc32c(&newer);
        newer.put_u32(crc);
        assert!(decode(&newer).expect_err("an error").contains("version 2"));
    }
}
