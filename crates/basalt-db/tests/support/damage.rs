//! Damage on purpose: where the parts of a store file are (from its trailer, as
//! docs/format.md draws it), flipping one byte, and an inventory of every store file under
//! a data folder, quarantine included, to show that none was deleted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The trailer's size at the end of every store file.
pub const TRAILER_BYTES: u64 = 108;

/// Where a store file's parts start, read from its trailer.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub index_root_offset: u64,
    pub bloom_offset: u64,
    pub bloom_size: u32,
    pub trailer_offset: u64,
}

fn be_u64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}

fn be_u32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().expect("4 bytes"))
}

pub fn layout(path: &Path) -> Layout {
    let bytes = std::fs::read(path).expect("read store file");
    let trailer_offset = bytes.len() as u64 - TRAILER_BYTES;
    let t = &bytes[trailer_offset as usize..];
    Layout {
        index_root_offset: be_u64(&t[56..]),
        bloom_offset: be_u64(&t[72..]),
        bloom_size: be_u32(&t[80..]),
        trailer_offset,
    }
}

/// Inverts the byte at `offset`.
pub fn flip(path: &Path, offset: u64) {
    let mut bytes = std::fs::read(path).expect("read");
    bytes[offset as usize] ^= 0xff;
    std::fs::write(path, bytes).expect("write");
}

/// The parts of a store file a test can damage.
#[derive(Debug, Clone, Copy)]
pub enum Part {
    Trailer,
    IndexRoot,
    Bloom,
}

/// Flips a byte inside `part` of the store file at `path`: past each part's block header,
/// so the damage is caught by the part's checksum.
pub fn damage(path: &Path, part: Part) {
    let l = layout(path);
    let offset = match part {
        Part::Trailer => l.trailer_offset + 20,
        Part::IndexRoot => l.index_root_offset + 20,
        Part::Bloom => {
            assert!(l.bloom_size > 24, "the file has a bloom");
            l.bloom_offset + 20
        }
    };
    flip(path, offset);
}

/// The store files (`*.hfile`) of a region's family folder, sorted.
pub fn store_files(family_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(family_dir)
        .map(|d| d.map(|e| e.expect("entry").path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "hfile"));
    files.sort();
    files
}

/// Every store file of a user table under `root` (data and quarantine) by its path below
/// `root` — a quarantined file counts at the place it came from — with its bytes.
/// `hbase:meta`'s files are left out: meta flushes at every close.
pub fn inventory(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    walk(root, root, &mut found);
    found
}

fn walk(root: &Path, dir: &Path, found: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            walk(root, &path, found);
        } else if path.extension().is_some_and(|e| e == "hfile") {
            let relative = path.strip_prefix(root).expect("below root");
            let relative = relative.strip_prefix("quarantine").unwrap_or(relative);
            if relative.starts_with("data/hbase") {
                continue;
            }
            found.insert(
                relative.display().to_string(),
                std::fs::read(&path).expect("read"),
            );
        }
    }
}
