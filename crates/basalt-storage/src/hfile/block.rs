//! Block framing: every block in an HFile (data, index, bloom, file info) is stored as
//!
//! ```text
//! +---------------+------------------+---------------------+-----------------+------------+
//! | block_type u8 | compression u8   | raw_len u32         | payload         | crc32c u32 |
//! +---------------+------------------+---------------------+-----------------+------------+
//!   <------------------------ covered by the checksum ----------------------->
//! ```
//! `raw_len` is the payload's length once decompressed. Reading a block checks, in order:
//! the size against the file, the checksum, the type and codec, then decompresses to exactly
//! `raw_len` bytes (bounded by [`BLOCK_RAW_MAX_BYTES`]) — before any structure is parsed.

use super::compression;
use crate::block_cache::buffers::BlockBuffers;
use crate::error::{Error, FileKind, Result};
use crate::fs::{ReadableFile, WritableFile};
use basalt_types::Compression;
use bytes::{BufMut, Bytes};
use std::path::Path;
use std::sync::Arc;

/// Header bytes before the payload.
pub(crate) const HEADER_BYTES: usize = 6;
/// Header plus checksum: the smallest possible block.
pub(crate) const FRAMING_BYTES: usize = HEADER_BYTES + 4;
/// No block inflates beyond this (a block holds at most a 16 MiB target plus one cell).
pub(crate) const BLOCK_RAW_MAX_BYTES: usize = 1 << 30;

/// What a block holds; the first byte of every block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockType {
    Data = 1,
    /// Index block whose entries point at data blocks.
    IndexLeaf = 2,
    /// Index block whose entries point at other index blocks.
    IndexIntermediate = 3,
    Bloom = 4,
    FileInfo = 5,
}

/// Frames `raw` as a block of `block_type`, compressed with `compression`.
pub(crate) fn encode(
    block_type: BlockType,
    compression: Compression,
    raw: &[u8],
) -> Result<Vec<u8>> {
    let raw_len = u32::try_from(raw.len())
        .ok()
        .filter(|len| *len as usize <= BLOCK_RAW_MAX_BYTES)
        .ok_or_else(|| Error::invalid(format!("block of {} bytes is too large", raw.len())))?;
    let payload = compression::compress(compression, raw)
        .map_err(|e| Error::invalid(format!("compressing a block: {e}")))?;
    let mut out = Vec::with_capacity(FRAMING_BYTES + payload.len());
    out.put_u8(block_type as u8);
    out.put_u8(compression::code(compression));
    out.put_u32(raw_len);
    out.put_slice(&payload);
    let crc = crc32c::crc32c(&out);
    out.put_u32(crc);
    Ok(out)
}

/// Appends blocks to a file, tracking the offset of the next one.
pub(crate) struct BlockWriter {
    pub file: Box<dyn WritableFile>,
    pub offset: u64,
    pub path: std::path::PathBuf,
}

impl BlockWriter {
    /// Writes one block; returns its offset and on-disk size.
    pub fn write(
        &mut self,
        block_type: BlockType,
        compression: Compression,
        raw: &[u8],
    ) -> Result<(u64, u32)> {
        let framed = encode(block_type, compression, raw)?;
        let size = u32::try_from(framed.len())
            .map_err(|_| Error::invalid("compressed block larger than 4 GiB"))?;
        self.write_raw(&framed)?;
        let offset = self.offset - u64::from(size);
        Ok((offset, size))
    }

    pub fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::io(format!("writing {}", self.path.display()), e))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }
}

/// Reads, verifies and decompresses the block at `offset` of `size` bytes.
/// `limit` is where the region that may hold it ends (the trailer's start). With
/// `buffers`, the block is read into a recycled buffer (data blocks: see
/// [`crate::block_cache::buffers`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn read(
    file: &dyn ReadableFile,
    path: &Path,
    offset: u64,
    size: u32,
    limit: u64,
    expected: BlockType,
    expected_compression: Compression,
    buffers: Option<&Arc<BlockBuffers>>,
) -> Result<Bytes> {
    let corrupt = |reason: String| Error::corruption(FileKind::StoreFile, path, offset, reason);
    let end = offset.checked_add(u64::from(size));
    if (size as usize) < FRAMING_BYTES || end.is_none_or(|end| end > limit) {
        return Err(corrupt(format!(
            "block of {size} bytes at {offset} does not fit in the {limit} bytes before the trailer"
        )));
    }
    let mut buf = match buffers {
        Some(buffers) => buffers.take(size as usize),
        None => vec![0; size as usize],
    };
    file.read_exact_at(&mut buf, offset)
        .map_err(|e| Error::io(format!("reading {} at {offset}", path.display()), e))?;
    let body = buf.len() - 4;
    let stored_crc = u32::from_be_bytes(buf[body..].try_into().expect("4 bytes"));
    let crc = crc32c::crc32c(&buf[..body]);
    if crc != stored_crc {
        return Err(corrupt(format!(
            "block checksum mismatch: stored {stored_crc:#010x}, computed {crc:#010x}"
        )));
    }
    if buf[0] != expected as u8 {
        return Err(corrupt(format!(
            "block type {} where {expected:?} ({}) was expected",
            buf[0], expected as u8
        )));
    }
    let compression = compression::from_code(buf[1])
        .filter(|c| *c == expected_compression)
        .ok_or_else(|| corrupt(format!("unexpected compression code {}", buf[1])))?;
    let raw_len = u32::from_be_bytes(buf[2..6].try_into().expect("4 bytes")) as usize;
    if raw_len > BLOCK_RAW_MAX_BYTES {
        return Err(corrupt(format!("block claims {raw_len} raw bytes")));
    }
    if compression == Compression::None {
        if raw_len != body - HEADER_BYTES {
            return Err(corrupt(format!(
                "uncompressed block of {} bytes claims {raw_len}",
                body - HEADER_BYTES
            )));
        }
        let bytes = match buffers {
            Some(buffers) => buffers.lend(buf),
            None => Bytes::from(buf),
        };
        return Ok(bytes.slice(HEADER_BYTES..body));
    }
    let raw = compression::decompress(compression, &buf[HEADER_BYTES..body], raw_len);
    if let Some(buffers) = buffers {
        buffers.give_back(buf);
    }
    raw.map(Bytes::from).map_err(corrupt)
}
