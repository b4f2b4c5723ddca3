//! The region manifest: which files each family's store holds, committed atomically.
//!
//! A flush or compaction writes its new files first, then commits a new manifest in one
//! atomic rename; only then are replaced files deleted. A crash at any point leaves either
//! the old or the new manifest, and files it does not name are leftovers deleted at open.
//!
//! ```text
//! | magic "BSMF" | version u32 | next_file_id u64 | family_count u32 |
//! | per family: name_len u8 | name | flushed_seq u64 | file_count u32 | file ids u64... |
//! | crc32c u32 over everything before |
//! ```

use crate::cell_codec::CellReader;
use crate::fs::{self, FileSystem};
use crate::{Error, Result};
use bytes::{BufMut, Bytes};
use std::collections::BTreeMap;
use std::path::Path;

const MAGIC: &[u8; 4] = b"BSMF";
const VERSION: u32 = 1;
pub const FILE_NAME: &str = "MANIFEST";

/// One family's committed state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FamilyFiles {
    /// Every edit with a sequence id at or below this is in the files.
    pub flushed_seq: u64,
    /// File ids, oldest first.
    pub file_ids: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub next_file_id: u64,
    pub families: BTreeMap<Bytes, FamilyFiles>,
}

impl Manifest {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.put_slice(MAGIC);
        out.put_u32(VERSION);
        out.put_u64(self.next_file_id);
        out.put_u32(self.families.len() as u32);
        for (name, files) in &self.families {
            // Family names are at most 127 bytes (validated by the descriptor).
            out.put_u8(name.len() as u8);
            out.put_slice(name);
            out.put_u64(files.flushed_seq);
            out.put_u32(files.file_ids.len() as u32);
            for id in &files.file_ids {
                out.put_u64(*id);
            }
        }
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    pub fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let corrupt =
            |offset: usize, reason: String| Error::corruption(path, offset as u64, reason);
        if bytes.len() < 4 + 4 + 8 + 4 + 4 {
            return Err(corrupt(
                0,
                format!("manifest too short ({} bytes)", bytes.len()),
            ));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]);
        if crc32c::crc32c(body) != stored {
            return Err(corrupt(body.len(), "manifest checksum mismatch".into()));
        }
        if &body[..4] != MAGIC {
            return Err(corrupt(0, "not a manifest (bad magic)".into()));
        }
        let mut reader = CellReader::new(Bytes::copy_from_slice(&body[4..]));
        let err = |e: crate::cell_codec::DecodeError| corrupt(e.offset + 4, e.reason);
        let version = reader.u32("version").map_err(err)?;
        if version != VERSION {
            return Err(corrupt(
                4,
                format!("unsupported manifest version {version}"),
            ));
        }
        let next_file_id = reader.u64("next file id").map_err(err)?;
        let count = reader.u32("family count").map_err(err)?;
        let mut families = BTreeMap::new();
        for _ in 0..count {
            let name_len = reader.u8("family name length").map_err(err)?;
            let name = reader
                .bytes(usize::from(name_len), "family name")
                .map_err(err)?;
            let flushed_seq = reader.u64("flushed seq").map_err(err)?;
            let files = reader.u32("file count").map_err(err)?;
            let mut file_ids = Vec::new();
            for _ in 0..files {
                file_ids.push(reader.u64("file id").map_err(err)?);
            }
            families.insert(
                name,
                FamilyFiles {
                    flushed_seq,
                    file_ids,
                },
            );
        }
        if !reader.is_empty() {
            return Err(corrupt(
                reader.position() + 4,
                "trailing bytes after manifest".into(),
            ));
        }
        Ok(Self {
            next_file_id,
            families,
        })
    }

    /// Reads the manifest in `region_dir`, or an empty one when there is none yet.
    pub fn load(fs: &dyn FileSystem, region_dir: &Path) -> Result<Self> {
        let path = region_dir.join(FILE_NAME);
        if !fs
            .exists(&path)
            .map_err(|e| Error::io(format!("checking {}", path.display()), e))?
        {
            return Ok(Self::default());
        }
        let bytes = fs::read_all(fs, &path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        Self::decode(&bytes, &path)
    }

    /// Commits this manifest atomically and durably.
    pub fn store(&self, fs: &dyn FileSystem, region_dir: &Path) -> Result<()> {
        let path = region_dir.join(FILE_NAME);
        fs::write_atomic(fs, &path, &self.encode())
            .map_err(|e| Error::io(format!("committing {}", path.display()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        let mut m = Manifest {
            next_file_id: 9,
            ..Manifest::default()
        };
        m.families.insert(
            Bytes::from_static(b"cf"),
            FamilyFiles {
                flushed_seq: 42,
                file_ids: vec![3, 8],
            },
        );
        m.families
            .insert(Bytes::from_static(b"d"), FamilyFiles::default());
        m
    }

    #[test]
    fn round_trips() {
        let m = sample();
        assert_eq!(
            Manifest::decode(&m.encode(), Path::new("m")).expect("valid"),
            m
        );
    }

    #[test]
    fn every_bit_flip_and_truncation_is_detected() {
        let bytes = sample().encode();
        for bit in 0..bytes.len() * 8 {
            let mut damaged = bytes.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            assert!(
                Manifest::decode(&damaged, Path::new("m")).is_err(),
                "bit {bit}"
            );
        }
        for len in 0..bytes.len() {
            assert!(
                Manifest::decode(&bytes[..len], Path::new("m")).is_err(),
                "len {len}"
            );
        }
    }
}
