//! A snapshot's manifest, `snapshots/<name>/SNAPSHOT`: the table's descriptor and, per
//! region, its key range and each family's files (oldest first). The files themselves are
//! links beside it, `<region folder>/<family>/<file id, 20 digits>.hfile`.
//!
//! ```text
//! | magic "BSSN" | version u32 (1) |
//! | name_len u16 | name | table_len u16 | table "ns:qualifier" |
//! | creation_ms i64 | ttl_secs u64 (0: none) |
//! | descriptor_len u32 | descriptor (the catalog's table value) |
//! | region_count u32 | per region:
//! |   folder_len u16 | folder | start_len u32 | start | end_len u32 | end | family_count u32 |
//! |   per family: name_len u8 | name | file_count u32 | per file: file_id u64 | size u64 |
//! | crc32c u32 of every byte before |
//! ```
//!
//! A later version keeps the magic, the version at bytes 4..8 and the checksum as the last
//! four bytes, so a newer manifest is told from a damaged one.

use crate::meta::codec;
use basalt_api::{ApiError, ErrorKind};
use basalt_types::{TableDescriptor, TableName};
use bytes::{BufMut, Bytes};

pub const MAGIC: &[u8; 4] = b"BSSN";
/// The version written.
pub const VERSION: u32 = 1;

/// One snapshot: what `SNAPSHOT` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotManifest {
    pub name: String,
    pub table: TableName,
    pub creation_ms: i64,
    pub ttl_secs: Option<u64>,
    pub descriptor: TableDescriptor,
    /// By start key.
    pub regions: Vec<SnapshotRegion>,
}

/// One region of the table when the snapshot was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRegion {
    /// The region's folder name, which names the links' folder in the snapshot.
    pub folder: String,
    pub start_key: Bytes,
    pub end_key: Bytes,
    pub families: Vec<SnapshotFamily>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFamily {
    pub name: Bytes,
    /// `(file id, size in bytes)`, oldest first.
    pub files: Vec<(u64, u64)>,
}

impl SnapshotManifest {
    /// Whether its TTL has run out at `now_ms`.
    pub fn expired(&self, now_ms: i64) -> bool {
        self.ttl_secs
            .is_some_and(|ttl| now_ms >= self.creation_ms.saturating_add(ttl as i64 * 1000))
    }

    /// Bytes of every file it names.
    pub fn size_bytes(&self) -> u64 {
        self.regions
            .iter()
            .flat_map(|r| &r.families)
            .flat_map(|f| &f.files)
            .map(|(_, size)| size)
            .sum()
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.put_slice(MAGIC);
        out.put_u32(VERSION);
        put_short(&mut out, self.name.as_bytes());
        put_short(&mut out, self.table.to_string().as_bytes());
        out.put_i64(self.creation_ms);
        out.put_u64(self.ttl_secs.unwrap_or(0));
        let descriptor = codec::encode_table(&self.descriptor);
        out.put_u32(descriptor.len() as u32);
        out.put_slice(&descriptor);
        out.put_u32(self.regions.len() as u32);
        for region in &self.regions {
            put_short(&mut out, region.folder.as_bytes());
            out.put_u32(region.start_key.len() as u32);
            out.put_slice(&region.start_key);
            out.put_u32(region.end_key.len() as u32);
            out.put_slice(&region.end_key);
            out.put_u32(region.families.len() as u32);
            for family in &region.families {
                // Family names are at most 127 bytes (validated by the descriptor).
                out.put_u8(family.name.len() as u8);
                out.put_slice(&family.name);
                out.put_u32(family.files.len() as u32);
                for (id, size) in &family.files {
                    out.put_u64(*id);
                    out.put_u64(*size);
                }
            }
        }
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    /// Reads a manifest; `file` names it in errors.
    pub fn decode(bytes: &[u8], file: &str) -> Result<Self, ApiError> {
        let damaged = |why: &str| {
            ApiError::new(
                ErrorKind::DataCorruption,
                "org.apache.hadoop.hbase.snapshot.CorruptedSnapshotException",
                format!("snapshot manifest {file} is damaged: {why}"),
            )
        };
        let Some((body, crc)) = bytes.split_last_chunk::<4>() else {
            return Err(damaged("too short"));
        };
        if body.len() < 8 || crc32c::crc32c(body) != u32::from_be_bytes(*crc) {
            return Err(damaged("checksum mismatch"));
        }
        if &body[..4] != MAGIC {
            return Err(damaged("bad magic"));
        }
        let version = u32::from_be_bytes([body[4], body[5], body[6], body[7]]);
        if version > VERSION {
            return Err(ApiError::invalid(format!(
                "snapshot manifest format version {version} in {file} is newer than this \
                 Basalt supports ({VERSION}); upgrade Basalt"
            )));
        }
        if version == 0 {
            return Err(damaged("version 0"));
        }
        let mut r = Reader(&body[8..]);
        let bad = |what: &str| damaged(&format!("truncated or malformed {what}"));
        let name = r.text_short().ok_or_else(|| bad("name"))?;
        let table_text = r.text_short().ok_or_else(|| bad("table"))?;
        let table = TableName::parse(&table_text).map_err(|_| bad("table name"))?;
        let creation_ms = r.u64().ok_or_else(|| bad("creation time"))? as i64;
        let ttl = r.u64().ok_or_else(|| bad("ttl"))?;
        let len = r.u32().ok_or_else(|| bad("descriptor"))? as usize;
        let descriptor_bytes = r.take(len).ok_or_else(|| bad("descriptor"))?;
        let descriptor =
            codec::decode_table(descriptor_bytes).map_err(|e| damaged(&e.to_string()))?;
        let region_count = r.u32().ok_or_else(|| bad("region count"))?;
        let mut regions = Vec::new();
        for _ in 0..region_count {
            regions.push(r.region().ok_or_else(|| bad("region"))?);
        }
        if !r.0.is_empty() {
            return Err(damaged("bytes after the last region"));
        }
        Ok(Self {
            name,
            table,
            creation_ms,
            ttl_secs: (ttl > 0).then_some(ttl),
            descriptor,
            regions,
        })
    }
}

fn put_short(out: &mut Vec<u8>, bytes: &[u8]) {
    out.put_u16(bytes.len() as u16);
    out.put_slice(bytes);
}

/// A big-endian reader over a record's bytes (the lineage records read with it too).
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    pub(super) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    pub(super) fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }

    pub(super) fn text_short(&mut self) -> Option<String> {
        let len = self.u16()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }

    fn bytes_long(&mut self) -> Option<Bytes> {
        let len = self.u32()? as usize;
        Some(Bytes::copy_from_slice(self.take(len)?))
    }

    fn region(&mut self) -> Option<SnapshotRegion> {
        let folder = self.text_short()?;
        let start_key = self.bytes_long()?;
        let end_key = self.bytes_long()?;
        let family_count = self.u32()?;
        let mut families = Vec::new();
        for _ in 0..family_count {
            let len = self.u8()? as usize;
            let name = Bytes::copy_from_slice(self.take(len)?);
            let count = self.u32()?;
            let mut files = Vec::new();
            for _ in 0..count {
                files.push((self.u64()?, self.u64()?));
            }
            families.push(SnapshotFamily { name, files });
        }
        Some(SnapshotRegion {
            folder,
            start_key,
            end_key,
            families,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::FamilyDescriptor;

    fn sample() -> SnapshotManifest {
        let table = TableName::parse("t1").expect("valid name");
        SnapshotManifest {
            name: "s1".into(),
            table: table.clone(),
            creation_ms: 1_700_000_000_123,
            ttl_secs: Some(86_400),
            descriptor: TableDescriptor::new(
                table,
                vec![FamilyDescriptor::new("f").expect("valid family")],
            ),
            regions: vec![SnapshotRegion {
                folder: "abc".into(),
                start_key: Bytes::new(),
                end_key: Bytes::from_static(b"m"),
                families: vec![SnapshotFamily {
                    name: Bytes::from_static(b"f"),
                    files: vec![(3, 4096)],
                }],
            }],
        }
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let m = sample();
        assert_eq!(
            SnapshotManifest::decode(&m.encode(), "x").expect("decodes"),
            m
        );
    }

    #[test]
    fn the_header_is_magic_version_name_and_table() {
        let bytes = sample().encode();
        assert_eq!(&bytes[..8], b"BSSN\0\0\0\x01");
        assert_eq!(&bytes[8..12], b"\0\x02s1");
        // The table as HBase names it: the default namespace is left out.
        assert_eq!(&bytes[12..16], b"\0\x02t1");
        assert_eq!(&bytes[16..24], &1_700_000_000_123i64.to_be_bytes());
        assert_eq!(&bytes[24..32], &86_400u64.to_be_bytes());
    }

    #[test]
    fn a_flipped_byte_is_damage_and_a_newer_version_is_refused_by_name() {
        let mut bytes = sample().encode();
        bytes[30] ^= 1;
        let err = SnapshotManifest::decode(&bytes, "snapshots/s1/SNAPSHOT").expect_err("damaged");
        assert!(err.message.contains("damaged"), "{err}");
        let mut newer = sample().encode();
        newer[7] = 2;
        let body = newer.len() - 4;
        let crc = crc32c::crc32c(&newer[..body]);
        newer[body..].copy_from_slice(&crc.to_be_bytes());
        let err = SnapshotManifest::decode(&newer, "snapshots/s1/SNAPSHOT").expect_err("newer");
        assert!(err.message.contains("version 2"), "{err}");
        assert!(err.message.contains("upgrade"), "{err}");
    }

    #[test]
    fn ttl_expiry_is_creation_plus_ttl() {
        let m = sample();
        let end = m.creation_ms + 86_400_000;
        assert!(!m.expired(end - 1));
        assert!(m.expired(end));
        let forever = SnapshotManifest {
            ttl_secs: None,
            ..sample()
        };
        assert!(!forever.expired(i64::MAX));
    }
}
