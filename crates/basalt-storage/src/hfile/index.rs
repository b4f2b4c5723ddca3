//! The block index: the first key, offset and size of every data block, in one or more
//! levels of index blocks.
//!
//! ```text
//! index block payload:
//! +-----------------+------------------------------------------------------------+
//! | entry_count u32 | entry_count × ( key_len u32 | key | offset u64 | size u32 ) |
//! +-----------------+------------------------------------------------------------+
//! ```
//! `key` is the first key of the child block, in [`super::key`] form. Leaf entries point at
//! data blocks; while the entries of a level take more than the index chunk size, they are
//! cut into blocks of that size and the level above indexes those blocks (HBase's
//! multi-level index). The top level is the root; the trailer gives its offset, size and
//! the number of levels. Reading checks each child's first key against its parent entry and
//! that data blocks tile the file from offset 0 without gaps, and keeps the leaf entries
//! resident, so a seek is one binary search in memory.

use super::block::{self, BlockType, BlockWriter};
use super::key::decode_key;
use crate::error::{Error, FileKind, Result};
use crate::fs::ReadableFile;
use basalt_types::{Cell, Compression};
use bytes::{BufMut, Bytes};
use std::path::Path;

/// The smallest index entry: empty-row key plus offset and size.
const ENTRY_MIN_BYTES: usize = 4 + super::key::KEY_FIXED_BYTES + 8 + 4;
/// Every index block holds at least two entries, so 2^64 blocks fit in 64 levels.
pub(crate) const LEVELS_MAX: u32 = 64;

/// One child of an index level, as the writer collects it.
#[derive(Debug, Clone)]
pub(crate) struct RawEntry {
    pub first_key: Vec<u8>,
    pub offset: u64,
    pub size: u32,
}

/// One resident leaf entry: the data block starting with `first_key`.
#[derive(Debug, Clone)]
pub(crate) struct IndexEntry {
    pub first_key: Cell,
    pub offset: u64,
    pub size: u32,
}

fn entry_bytes(e: &RawEntry) -> usize {
    4 + e.first_key.len() + 8 + 4
}

fn encode_block(entries: &[RawEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + entries.iter().map(entry_bytes).sum::<usize>());
    out.put_u32(entries.len() as u32);
    for e in entries {
        out.put_u32(e.first_key.len() as u32);
        out.put_slice(&e.first_key);
        out.put_u64(e.offset);
        out.put_u32(e.size);
    }
    out
}

/// Writes the index over `leaf` (one entry per data block); returns the root's offset,
/// size and the number of levels. Non-root blocks hold about `chunk_bytes` each (at least
/// two entries, so every level shrinks).
pub(crate) fn write(
    out: &mut BlockWriter,
    leaf: Vec<RawEntry>,
    chunk_bytes: usize,
) -> Result<(u64, u32, u32)> {
    let mut level = leaf;
    let mut levels = 1u32;
    let mut block_type = BlockType::IndexLeaf;
    while 4 + level.iter().map(entry_bytes).sum::<usize>() > chunk_bytes && level.len() > 2 {
        let mut parent = Vec::new();
        let mut start = 0;
        while start < level.len() {
            let mut end = start;
            let mut bytes = 4;
            while end < level.len()
                && (end - start < 2 || bytes + entry_bytes(&level[end]) <= chunk_bytes)
            {
                bytes += entry_bytes(&level[end]);
                end += 1;
            }
            let (offset, size) = out.write(
                block_type,
                Compression::None,
                &encode_block(&level[start..end]),
            )?;
            parent.push(RawEntry {
                first_key: level[start].first_key.clone(),
                offset,
                size,
            });
            start = end;
        }
        level = parent;
        levels += 1;
        block_type = BlockType::IndexIntermediate;
    }
    let (offset, size) = out.write(block_type, Compression::None, &encode_block(&level))?;
    Ok((offset, size, levels))
}

fn parse_block(raw: &Bytes) -> std::result::Result<Vec<IndexEntry>, String> {
    let be = |at: usize, n: usize| raw.get(at..at + n).ok_or("index block ends early");
    let count = u32::from_be_bytes(be(0, 4)?.try_into().expect("4 bytes")) as usize;
    if count.saturating_mul(ENTRY_MIN_BYTES) > raw.len() {
        return Err(format!("{count} entries cannot fit {} bytes", raw.len()));
    }
    let mut entries = Vec::with_capacity(count);
    let mut at = 4;
    for _ in 0..count {
        let key_len = u32::from_be_bytes(be(at, 4)?.try_into().expect("4 bytes")) as usize;
        let key_end = (at + 4).checked_add(key_len).filter(|e| *e <= raw.len());
        let key_end = key_end.ok_or("index key runs past the end")?;
        let first_key = decode_key(&raw.slice(at + 4..key_end))?;
        let offset = u64::from_be_bytes(be(key_end, 8)?.try_into().expect("8 bytes"));
        let size = u32::from_be_bytes(be(key_end + 8, 4)?.try_into().expect("4 bytes"));
        entries.push(IndexEntry {
            first_key,
            offset,
            size,
        });
        at = key_end + 12;
    }
    if at != raw.len() {
        return Err(format!("{} stray bytes after the entries", raw.len() - at));
    }
    if entries
        .windows(2)
        .any(|w| w[0].first_key.cmp_key(&w[1].first_key).is_gt())
    {
        return Err("index keys out of order".into());
    }
    Ok(entries)
}

/// Where the index is and what it must describe.
pub(crate) struct IndexLocation {
    pub root_offset: u64,
    pub root_size: u32,
    pub levels: u32,
    pub data_block_count: u64,
    /// Blocks end before this offset (the trailer's start).
    pub limit: u64,
}

/// Reads every index level and returns the leaf entries, checked against each other.
pub(crate) fn read(
    file: &dyn ReadableFile,
    path: &Path,
    loc: &IndexLocation,
) -> Result<Vec<IndexEntry>> {
    let corrupt =
        |offset: u64, reason: String| Error::corruption(FileKind::StoreFile, path, offset, reason);
    if loc.levels == 0 || loc.levels > LEVELS_MAX {
        return Err(corrupt(
            loc.root_offset,
            format!("{} index levels", loc.levels),
        ));
    }
    let load = |offset: u64, size: u32, level: u32| -> Result<Vec<IndexEntry>> {
        let block_type = if level == 1 {
            BlockType::IndexLeaf
        } else {
            BlockType::IndexIntermediate
        };
        let raw = block::read(
            file,
            path,
            offset,
            size,
            loc.limit,
            block_type,
            Compression::None,
            None,
        )?;
        parse_block(&raw).map_err(|reason| corrupt(offset, reason))
    };
    let mut level_entries = load(loc.root_offset, loc.root_size, loc.levels)?;
    // The index is written right after the data, so its lowest block marks the data's end.
    let mut data_end = loc.root_offset;
    for level in (1..loc.levels).rev() {
        // A level's blocks are written one after another and end where the level above
        // starts; checking that bounds the index by the file, even for a crafted file.
        let mut level_end = level_entries.first().map(|e| e.offset);
        let mut children = Vec::new();
        for parent in &level_entries {
            if level_end != Some(parent.offset) {
                return Err(corrupt(
                    parent.offset,
                    "index blocks are not contiguous".into(),
                ));
            }
            level_end = parent.offset.checked_add(u64::from(parent.size));
            data_end = data_end.min(parent.offset);
            let block = load(parent.offset, parent.size, level)?;
            match block.first() {
                Some(first) if first.first_key.cmp_key(&parent.first_key).is_eq() => {}
                _ => {
                    return Err(corrupt(
                        parent.offset,
                        "index block's first key differs from its parent entry".into(),
                    ))
                }
            }
            children.extend(block);
        }
        level_entries = children;
    }
    check_tiling(&level_entries, loc, data_end)
        .map_err(|(offset, reason)| corrupt(offset, reason))?;
    Ok(level_entries)
}

/// Data blocks must follow each other from offset 0 up to `data_end`, where the index starts.
fn check_tiling(
    entries: &[IndexEntry],
    loc: &IndexLocation,
    data_end: u64,
) -> std::result::Result<(), (u64, String)> {
    if entries.len() as u64 != loc.data_block_count {
        return Err((
            loc.root_offset,
            format!(
                "index lists {} data blocks, trailer says {}",
                entries.len(),
                loc.data_block_count
            ),
        ));
    }
    let mut expected = 0u64;
    for e in entries {
        if e.offset != expected || (e.size as usize) < block::FRAMING_BYTES {
            return Err((
                e.offset,
                format!("data block at {} expected at {expected}", e.offset),
            ));
        }
        expected = e.offset + u64::from(e.size);
    }
    if expected != data_end {
        return Err((
            expected,
            format!("data blocks end at {expected}, the index starts at {data_end}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hfile::key::encode_key;

    fn sample() -> Vec<u8> {
        let entries: Vec<RawEntry> = (0..5u64)
            .map(|i| {
                let mut first_key = Vec::new();
                encode_key(
                    &Cell::put(format!("r{i}"), "cf", "q", 1, ""),
                    &mut first_key,
                )
                .expect("small");
                RawEntry {
                    first_key,
                    offset: i * 100,
                    size: 100,
                }
            })
            .collect();
        encode_block(&entries)
    }

    #[test]
    fn round_trips_and_survives_damage() {
        let good = sample();
        let parsed = parse_block(&Bytes::from(good.clone())).expect("valid");
        assert_eq!(parsed.len(), 5);
        assert_eq!((parsed[3].offset, parsed[3].size), (300, 100));
        assert_eq!(parsed[3].first_key.row(), b"r3");
        for bit in 0..good.len() * 8 {
            let mut bad = good.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let _ = parse_block(&Bytes::from(bad));
        }
        for len in 0..good.len() {
            assert!(parse_block(&Bytes::copy_from_slice(&good[..len])).is_err());
        }
    }
}
