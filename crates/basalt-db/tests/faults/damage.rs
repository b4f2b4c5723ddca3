//! Where the suite damages a data folder, and how.
//!
//! Positions are found from the formats as `docs/format.md` draws them, not from the
//! engine's code: an HFile ends in a 108-byte trailer whose fields say where the index
//! root (offset 56), the bloom (72) and the file info (88) start; a log segment is a
//! 24-byte header followed by records of a 20-byte header (payload length first, segment
//! format 3) and their payload, then zeros (the preallocated rest of the file).

use super::world::{RegionId, Worlds, CRASH_PUTS, FAMILY};
use std::path::{Path, PathBuf};

/// A file kind and a position in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A data block of t1's store file (bytes 40.. of the first block).
    StoreData,
    /// The root of t1's store file index.
    StoreIndex,
    /// The trailer of t1's store file.
    StoreTrailer,
    /// The bloom block of t1's store file.
    StoreBloom,
    /// t1's manifest (its newest copy, `MANIFEST`), in its middle.
    Manifest,
    /// The largest store file of `hbase:meta`, in its first data block.
    MetaStore,
    /// The crashed world's newest log segment: its header's version field.
    WalHeader,
    /// The crashed world's newest log segment: its header's segment id field.
    WalHeaderId,
    /// The crashed world's newest log segment: inside the value bytes of record 0, 10 or
    /// 19.
    WalFirst,
    WalMiddle,
    WalLast,
}

impl Target {
    pub fn is_wal(self) -> bool {
        matches!(
            self,
            Self::WalHeader | Self::WalHeaderId | Self::WalFirst | Self::WalMiddle | Self::WalLast
        )
    }

    /// The log record a WAL target sits in (`None`: the header).
    pub fn record(self) -> Option<usize> {
        match self {
            Self::WalFirst => Some(0),
            Self::WalMiddle => Some(CRASH_PUTS / 2),
            Self::WalLast => Some(CRASH_PUTS - 1),
            _ => None,
        }
    }
}

/// What is done at the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damage {
    /// One bit flipped.
    Flip,
    /// The file cut at the position.
    Truncate,
    /// Every byte from the position to the end zeroed (what a power loss can leave).
    ZeroTail,
    /// 61 bytes of garbage appended after the end.
    Garbage,
}

/// The file a target names in the data folder `root` and the offset in it.
pub fn locate(worlds: &Worlds, root: &Path, target: Target) -> (PathBuf, u64) {
    let t1 = || {
        root.join("data/faults/target")
            .join(&worlds.regions[&RegionId::T1])
    };
    let t1_store = || only_hfile(&t1().join(FAMILY));
    match target {
        Target::StoreData => (t1_store(), 40),
        Target::StoreIndex => {
            let file = t1_store();
            let at = trailer_u64(&file, 56);
            (file, at + 6)
        }
        Target::StoreTrailer => {
            let file = t1_store();
            let len = std::fs::metadata(&file).expect("store file").len();
            (file, len - 108 + 20)
        }
        Target::StoreBloom => {
            let file = t1_store();
            assert!(trailer_u32(&file, 80) > 0, "the store file has a bloom");
            let at = trailer_u64(&file, 72);
            (file, at + 6)
        }
        Target::Manifest => {
            let file = t1().join("MANIFEST");
            let len = std::fs::metadata(&file).expect("manifest").len();
            (file, len / 2)
        }
        Target::MetaStore => (largest_hfile(&root.join("data/hbase/meta")), 40),
        Target::WalHeader => (newest_segment(root), 10),
        Target::WalHeaderId => (newest_segment(root), 14),
        Target::WalFirst | Target::WalMiddle | Target::WalLast => {
            let segment = newest_segment(root);
            let starts = record_starts(&segment);
            assert_eq!(starts.len(), CRASH_PUTS, "records in {}", segment.display());
            let record = target.record().expect("a record target");
            let end = record_end(&segment, starts[record]);
            // Inside the cell's value, where most of a log's bytes are.
            (segment, end - 20)
        }
    }
}

/// Applies `damage` at `offset` of `file`.
pub fn apply(file: &Path, offset: u64, damage: Damage) {
    let mut bytes = std::fs::read(file).expect("read file to damage");
    let at = usize::try_from(offset).expect("offset fits");
    assert!(
        at < bytes.len(),
        "{} has {} bytes, damage at {at}",
        file.display(),
        bytes.len()
    );
    match damage {
        Damage::Flip => bytes[at] ^= 0x10,
        Damage::Truncate => bytes.truncate(at),
        Damage::ZeroTail => bytes[at..].fill(0),
        Damage::Garbage => bytes.extend((0..61u8).map(|i| i.wrapping_mul(151).wrapping_add(7))),
    }
    std::fs::write(file, bytes).expect("write damaged file");
}

fn only_hfile(dir: &Path) -> PathBuf {
    let files = hfiles(dir);
    assert_eq!(
        files.len(),
        1,
        "store files in {}: {files:?}",
        dir.display()
    );
    files.into_iter().next().expect("one file")
}

fn largest_hfile(dir: &Path) -> PathBuf {
    hfiles(dir)
        .into_iter()
        .max_by_key(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .unwrap_or_else(|| panic!("no store file under {}", dir.display()))
}

/// Every `*.hfile` under `dir`, recursively, sorted.
pub fn hfiles(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(hfiles(&path));
        } else if path.extension().is_some_and(|e| e == "hfile") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn trailer_field(file: &Path, at: usize, width: usize) -> u64 {
    let bytes = std::fs::read(file).expect("store file");
    let trailer = &bytes[bytes.len() - 108..];
    trailer[at..at + width]
        .iter()
        .fold(0, |acc, b| (acc << 8) | u64::from(*b))
}

fn trailer_u64(file: &Path, at: usize) -> u64 {
    trailer_field(file, at, 8)
}

fn trailer_u32(file: &Path, at: usize) -> u64 {
    trailer_field(file, at, 4)
}

/// The log segment with the highest id.
pub fn newest_segment(root: &Path) -> PathBuf {
    let dir = root.join("wal");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("wal folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("wal-") && n.ends_with(".log"))
        .collect();
    names.sort();
    dir.join(names.last().expect("a log segment"))
}

/// Where the record starting at `start` ends.
fn record_end(segment: &Path, start: u64) -> u64 {
    let bytes = std::fs::read(segment).expect("segment");
    let at = start as usize;
    let len = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    start + RECORD_HEADER_BYTES as u64 + u64::from(len)
}

/// A record header of segment format 3: length, segment id, two checksums.
const RECORD_HEADER_BYTES: usize = 20;

/// Offsets of the records of an undamaged segment that hold cells (the puts), skipping
/// barriers (records of no cells, which regions log at open and after flushes). A payload
/// starts `region_len u16 | region | seq_id u64 | cell_count u32`.
fn record_starts(segment: &Path) -> Vec<u64> {
    let bytes = std::fs::read(segment).expect("segment");
    let be32 =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut starts = Vec::new();
    let mut at = 24;
    // The records end at the preallocated zeros (or the end of the file).
    while at + RECORD_HEADER_BYTES <= bytes.len() && be32(at) != 0 {
        let len = be32(at) as usize;
        let payload = at + RECORD_HEADER_BYTES;
        let region_len = u16::from_be_bytes([bytes[payload], bytes[payload + 1]]) as usize;
        if be32(payload + 2 + region_len + 8) > 0 {
            starts.push(at as u64);
        }
        at = payload + len;
    }
    assert!(
        bytes[at..].iter().all(|&b| b == 0),
        "{} holds only zeros after its last record",
        segment.display()
    );
    starts
}
