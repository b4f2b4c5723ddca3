//! The region manifest: which files each family's store holds, committed atomically.
//!
//! A flush or compaction writes its new files first, then commits a new manifest in one
//! atomic rename; only then are replaced files deleted. A crash at any point leaves either
//! the old or the new manifest, and files it does not name are leftovers deleted at open.
//! Each manifest is written twice ([`copies`]), so that one damaged copy costs nothing.
//!
//! A store's file is either its own HFile or a [`Reference`] to (part of) a file of a
//! sibling region, as splits and merges leave them. Version 3 (written now) adds the
//! generation the copies are told apart by; versions 2 (references, no generation) and 1
//! (own files only) are still read, as generation 0. A version above 3 is a manifest of a
//! newer Basalt: [`Error::NewerFormat`], never read.
//!
//! ```text
//! | magic "BSMF" | version u32 | v3: generation u64 | next_file_id u64 | family_count u32 |
//! | per family: name_len u8 | name | flushed_seq u64 | file_count u32 | entries... |
//! | crc32c u32 over everything before |
//! v1 entry: | file id u64 |
//! v2, v3 entry: | file id u64 | kind u8: 0 own, 1 reference |
//!   reference: | region_len u16 | region folder (UTF-8) | source file id u64 |
//!              | range u8: 0 whole, 1 bottom, 2 top | (bottom, top) key_len u16 | key |
//! ```
//!
//! Every later version keeps the magic and version first and the checksum of everything
//! before it last, so that this code tells a newer manifest from a damaged one.
//!
//! # Layout
//! - [`copies`]: the two copies on disk, which one to trust, repairing the other.

pub mod copies;
pub use copies::{FILE_NAME, SECOND_COPY};

use crate::cell_codec::{CellReader, DecodeError};
use crate::store::reference::{valid_region_folder, RefRange, Reference};
use crate::{Error, FileKind, Result};
use bytes::{BufMut, Bytes};
use std::collections::BTreeMap;
use std::path::Path;

const MAGIC: &[u8; 4] = b"BSMF";
const VERSION_OWN_FILES_ONLY: u32 = 1;
const VERSION_NO_GENERATION: u32 = 2;
/// The version written.
pub const VERSION: u32 = 3;

const KIND_OWN: u8 = 0;
const KIND_REFERENCE: u8 = 1;
const RANGE_WHOLE: u8 = 0;
const RANGE_BOTTOM: u8 = 1;
const RANGE_TOP: u8 = 2;

/// One file of a store: its id in this manifest and, for a reference, what it points at.
/// An own file `id` is `<family>/<id as 20 digits>.hfile`; a reference's id only names it
/// within the region (ids come from the same counter, so they never clash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub id: u64,
    pub reference: Option<Reference>,
}

impl FileEntry {
    pub fn own(id: u64) -> Self {
        Self {
            id,
            reference: None,
        }
    }
}

/// One family's committed state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FamilyFiles {
    /// Every edit with a sequence id at or below this is in the files.
    pub flushed_seq: u64,
    /// Oldest first.
    pub files: Vec<FileEntry>,
}

impl FamilyFiles {
    /// Ids of the family's own files (not references).
    pub fn own_file_ids(&self) -> Vec<u64> {
        self.files
            .iter()
            .filter(|f| f.reference.is_none())
            .map(|f| f.id)
            .collect()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Raised by every commit: of two valid copies, the higher generation is the newer.
    pub generation: u64,
    pub next_file_id: u64,
    pub families: BTreeMap<Bytes, FamilyFiles>,
}

impl Manifest {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.put_slice(MAGIC);
        out.put_u32(VERSION);
        out.put_u64(self.generation);
        out.put_u64(self.next_file_id);
        out.put_u32(self.families.len() as u32);
        for (name, files) in &self.families {
            // Family names are at most 127 bytes (validated by the descriptor).
            out.put_u8(name.len() as u8);
            out.put_slice(name);
            out.put_u64(files.flushed_seq);
            out.put_u32(files.files.len() as u32);
            for entry in &files.files {
                encode_entry(entry, &mut out);
            }
        }
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    pub fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let corrupt = |offset: usize, reason: String| {
            Error::corruption(FileKind::Manifest, path, offset as u64, reason)
        };
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
        let err = |e: DecodeError| corrupt(e.offset + 4, e.reason);
        let version = reader.u32("version").map_err(err)?;
        if version > VERSION {
            return Err(Error::newer_format(path, "manifest", version, VERSION));
        }
        if version == 0 {
            return Err(corrupt(4, "unsupported manifest version 0".into()));
        }
        let generation = if version > VERSION_NO_GENERATION {
            reader.u64("generation").map_err(err)?
        } else {
            0
        };
        let next_file_id = reader.u64("next file id").map_err(err)?;
        let count = reader.u32("family count").map_err(err)?;
        let mut families = BTreeMap::new();
        for _ in 0..count {
            let name_len = reader.u8("family name length").map_err(err)?;
            let name = reader
                .bytes(usize::from(name_len), "family name")
                .map_err(err)?;
            let flushed_seq = reader.u64("flushed seq").map_err(err)?;
            let file_count = reader.u32("file count").map_err(err)?;
            let mut files = Vec::new();
            for _ in 0..file_count {
                let entry = if version == VERSION_OWN_FILES_ONLY {
                    FileEntry::own(reader.u64("file id").map_err(err)?)
                } else {
                    decode_entry(&mut reader).map_err(err)?
                };
                files.push(entry);
            }
            families.insert(name, FamilyFiles { flushed_seq, files });
        }
        if !reader.is_empty() {
            return Err(corrupt(
                reader.position() + 4,
                "trailing bytes after manifest".into(),
            ));
        }
        Ok(Self {
            generation,
            next_file_id,
            families,
        })
    }

    /// Whether any family lists a reference.
    pub fn has_references(&self) -> bool {
        self.families
            .values()
            .any(|f| f.files.iter().any(|e| e.reference.is_some()))
    }
}

fn encode_entry(entry: &FileEntry, out: &mut Vec<u8>) {
    out.put_u64(entry.id);
    let Some(reference) = &entry.reference else {
        out.put_u8(KIND_OWN);
        return;
    };
    out.put_u8(KIND_REFERENCE);
    // Region folder names and split rows are checked to fit when a split or merge builds
    // the reference.
    out.put_u16(reference.region.len() as u16);
    out.put_slice(reference.region.as_bytes());
    out.put_u64(reference.file_id);
    let (tag, key) = match &reference.range {
        RefRange::Whole => (RANGE_WHOLE, None),
        RefRange::Bottom(k) => (RANGE_BOTTOM, Some(k)),
        RefRange::Top(k) => (RANGE_TOP, Some(k)),
    };
    out.put_u8(tag);
    if let Some(key) = key {
        out.put_u16(key.len() as u16);
        out.put_slice(key);
    }
}

fn decode_entry(reader: &mut CellReader) -> std::result::Result<FileEntry, DecodeError> {
    let id = reader.u64("file id")?;
    let at = reader.position();
    let bad = |reason: String| DecodeError { offset: at, reason };
    match reader.u8("file kind")? {
        KIND_OWN => return Ok(FileEntry::own(id)),
        KIND_REFERENCE => {}
        other => return Err(bad(format!("unknown file kind {other}"))),
    }
    let region_len = reader.u16("source region length")?;
    let region = reader.bytes(usize::from(region_len), "source region")?;
    let region = String::from_utf8(region.to_vec())
        .ok()
        .filter(|r| valid_region_folder(r))
        .ok_or_else(|| bad("source region is not a plain folder name".into()))?;
    let file_id = reader.u64("source file id")?;
    let range = match reader.u8("reference range")? {
        RANGE_WHOLE => RefRange::Whole,
        tag @ (RANGE_BOTTOM | RANGE_TOP) => {
            let len = reader.u16("split key length")?;
            let key = reader.bytes(usize::from(len), "split key")?;
            if key.is_empty() {
                return Err(bad("empty split key".into()));
            }
            if tag == RANGE_BOTTOM {
                RefRange::Bottom(key)
            } else {
                RefRange::Top(key)
            }
        }
        other => return Err(bad(format!("unknown reference range {other}"))),
    };
    Ok(FileEntry {
        id,
        reference: Some(Reference {
            region,
            file_id,
            range,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(id: u64, file_id: u64, range: RefRange) -> FileEntry {
        FileEntry {
            id,
            reference: Some(Reference {
                region: "parent".into(),
                file_id,
                range,
            }),
        }
    }

    fn sample() -> Manifest {
        let mut m = Manifest {
            generation: 17,
            next_file_id: 9,
            ..Manifest::default()
        };
        m.families.insert(
            Bytes::from_static(b"cf"),
            FamilyFiles {
                flushed_seq: 42,
                files: vec![
                    FileEntry::own(3),
                    reference(4, 1, RefRange::Bottom(Bytes::from_static(b"row5"))),
                    reference(5, 2, RefRange::Top(Bytes::from_static(b"row5"))),
                    reference(6, 3, RefRange::Whole),
                    FileEntry::own(8),
                ],
            },
        );
        m.families
            .insert(Bytes::from_static(b"d"), FamilyFiles::default());
        m
    }

    /// A version-1 manifest, byte by byte as that version wrote it.
    fn version_1_bytes() -> Vec<u8> {
        let mut out = Vec::new();
        out.put_slice(b"BSMF");
        out.put_u32(1);
        out.put_u64(9);
        out.put_u32(2);
        out.put_u8(2);
        out.put_slice(b"cf");
        out.put_u64(42);
        out.put_u32(2);
        out.put_u64(3);
        out.put_u64(8);
        out.put_u8(1);
        out.put_slice(b"d");
        out.put_u64(0);
        out.put_u32(0);
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    /// A version-2 manifest (references, no generation), byte by byte as it was written.
    fn version_2_bytes() -> Vec<u8> {
        let mut out = Vec::new();
        out.put_slice(b"BSMF");
        out.put_u32(2);
        out.put_u64(9);
        out.put_u32(1);
        out.put_u8(2);
        out.put_slice(b"cf");
        out.put_u64(42);
        out.put_u32(2);
        out.put_u64(3);
        out.put_u8(0);
        out.put_u64(4);
        out.put_u8(1);
        out.put_u16(6);
        out.put_slice(b"parent");
        out.put_u64(1);
        out.put_u8(1);
        out.put_u16(4);
        out.put_slice(b"row5");
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    #[test]
    fn reads_version_2_as_generation_0() {
        let m = Manifest::decode(&version_2_bytes(), Path::new("m")).expect("valid v2");
        assert_eq!(m.generation, 0);
        assert_eq!(m.next_file_id, 9);
        let cf = &m.families[&Bytes::from_static(b"cf")];
        assert_eq!(cf.flushed_seq, 42);
        let bottom = RefRange::Bottom(Bytes::from_static(b"row5"));
        assert_eq!(cf.files, [FileEntry::own(3), reference(4, 1, bottom)]);
    }

    /// A manifest of a newer Basalt (valid checksum, version 4) is refused naming both
    /// versions, whatever follows the version.
    #[test]
    fn refuses_a_newer_version() {
        let mut bytes = sample().encode();
        bytes.truncate(bytes.len() - 4);
        bytes[4..8].copy_from_slice(&4u32.to_be_bytes());
        bytes.extend_from_slice(b"fields of version 4");
        let crc = crc32c::crc32c(&bytes);
        bytes.put_u32(crc);
        let err = Manifest::decode(&bytes, Path::new("/r/MANIFEST")).expect_err("newer");
        assert!(matches!(
            err,
            Error::NewerFormat {
                found: 4,
                supported: 3,
                ..
            }
        ));
        assert_eq!(
            err.to_string(),
            "manifest format version 4 in /r/MANIFEST is newer than this Basalt supports (3); upgrade Basalt"
        );
    }

    #[test]
    fn round_trips() {
        let m = sample();
        assert_eq!(
            Manifest::decode(&m.encode(), Path::new("m")).expect("valid"),
            m
        );
        assert!(m.has_references());
        assert_eq!(
            m.families[&Bytes::from_static(b"cf")].own_file_ids(),
            [3, 8]
        );
    }

    #[test]
    fn reads_version_1() {
        let m = Manifest::decode(&version_1_bytes(), Path::new("m")).expect("valid v1");
        let cf = &m.families[&Bytes::from_static(b"cf")];
        assert_eq!(m.next_file_id, 9);
        assert_eq!(cf.flushed_seq, 42);
        assert_eq!(cf.files, [FileEntry::own(3), FileEntry::own(8)]);
        assert!(!m.has_references());
        // Written back, it becomes version 3 and reads the same.
        assert_eq!(
            Manifest::decode(&m.encode(), Path::new("m")).expect("v2"),
            m
        );
    }

    #[test]
    fn rejects_bad_entries_even_with_a_good_checksum() {
        let mut m = sample();
        let cf = m.families.get_mut(&Bytes::from_static(b"cf")).expect("cf");
        cf.files = vec![FileEntry {
            id: 1,
            reference: Some(Reference {
                region: "../escape".into(),
                file_id: 1,
                range: RefRange::Whole,
            }),
        }];
        assert!(Manifest::decode(&m.encode(), Path::new("m")).is_err());
        let cf = m.families.get_mut(&Bytes::from_static(b"cf")).expect("cf");
        cf.files = vec![reference(1, 1, RefRange::Top(Bytes::new()))];
        assert!(Manifest::decode(&m.encode(), Path::new("m")).is_err());
    }

    #[test]
    fn every_bit_flip_and_truncation_is_detected() {
        for bytes in [sample().encode(), version_2_bytes(), version_1_bytes()] {
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
}
