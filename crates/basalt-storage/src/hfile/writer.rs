//! Writing an HFile: cells arrive in cell order and leave as blocks, then index, bloom,
//! file info and trailer; [`HFileWriter::finish`] syncs the file.

use super::block::{BlockType, BlockWriter};
use super::bloom::BloomBuilder;
use super::encoding::BlockBuilder;
use super::index::{self, RawEntry};
use super::key::encode_key;
use super::trailer::{encode_file_info, Trailer};
use super::{FileInfo, WriterOptions};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use basalt_types::{BloomType, Cell, CellType, Compression};
use std::path::Path;

/// Index blocks are cut at the data block size, but never above HBase's 128 KiB default.
const INDEX_CHUNK_MAX_BYTES: usize = 128 * 1024;

/// Writes one HFile. Dropping it unfinished leaves a partial file the caller deletes.
pub struct HFileWriter {
    out: BlockWriter,
    opts: WriterOptions,
    block: BlockBuilder,
    /// First key of the block being built.
    block_first_key: Vec<u8>,
    leaf: Vec<RawEntry>,
    bloom: BloomBuilder,
    first_key: Option<Vec<u8>>,
    last: Option<Cell>,
    cell_count: u64,
    min_timestamp: i64,
    max_timestamp: i64,
    max_seq_id: u64,
    /// Start syncing in the background each time this many bytes were written (0: never).
    write_behind_bytes: u64,
    /// The offset the last background sync was asked at.
    write_behind_at: u64,
}

impl std::fmt::Debug for HFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HFileWriter")
            .field("path", &self.out.path)
            .field("cell_count", &self.cell_count)
            .finish_non_exhaustive()
    }
}

impl HFileWriter {
    /// Creates (or truncates) `path` and prepares to write cells into it.
    pub fn create(fs: &dyn FileSystem, path: &Path, opts: WriterOptions) -> Result<Self> {
        if opts.block_size_bytes == 0 {
            return Err(Error::invalid("HFile block size must be positive"));
        }
        if !(opts.bloom_false_positive_rate > 0.0 && opts.bloom_false_positive_rate < 1.0) {
            return Err(Error::invalid(format!(
                "bloom false-positive rate {} must be in (0, 1)",
                opts.bloom_false_positive_rate
            )));
        }
        let file = fs
            .create(path)
            .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
        Ok(Self {
            out: BlockWriter {
                file,
                offset: 0,
                path: path.to_path_buf(),
            },
            block: BlockBuilder::new(opts.encoding),
            bloom: BloomBuilder::new(opts.bloom),
            opts,
            block_first_key: Vec::new(),
            leaf: Vec::new(),
            first_key: None,
            last: None,
            cell_count: 0,
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            max_seq_id: 0,
            write_behind_bytes: 0,
            write_behind_at: 0,
        })
    }

    /// Has the file synced in the background every `every_bytes` written (see
    /// [`crate::fs::WritableFile::start_sync`]), so that [`HFileWriter::finish`] waits for
    /// the last part only. For large files written in one go, as bulk loads write them.
    pub fn write_behind(&mut self, every_bytes: u64) {
        self.write_behind_bytes = every_bytes;
    }

    /// Appends `cell`, which must not sort before the cell appended last.
    pub fn append(&mut self, cell: &Cell) -> Result<()> {
        if let Some(last) = &self.last {
            if cell.cmp_key(last).is_lt() {
                return Err(Error::invalid(format!(
                    "cells out of order for {}: {cell:?} after {last:?}",
                    self.out.path.display()
                )));
            }
        }
        self.add(cell)?;
        self.last = Some(cell.clone());
        self.finish_full_block()
    }

    /// Appends `cell`, which the caller has checked sorts after the cell appended last
    /// (the writer keeps it as its last cell rather than a copy).
    pub fn append_sorted(&mut self, cell: Cell) -> Result<()> {
        debug_assert!(
            self.last.as_ref().is_none_or(|l| !cell.cmp_key(l).is_lt()),
            "append_sorted given cells out of order"
        );
        self.add(&cell)?;
        self.last = Some(cell);
        self.finish_full_block()
    }

    /// Adds `cell` to the block, bloom and counters (the last cell is still the previous).
    fn add(&mut self, cell: &Cell) -> Result<()> {
        if matches!(cell.cell_type(), CellType::Minimum | CellType::Maximum) {
            return Err(Error::invalid(format!(
                "cannot store a {} seek key in an HFile",
                cell.cell_type().name()
            )));
        }
        if self.block.is_empty() {
            self.block_first_key.clear();
            encode_key(cell, &mut self.block_first_key).map_err(Error::invalid)?;
        }
        self.block.add(cell).map_err(Error::invalid)?;
        if self.first_key.is_none() {
            self.first_key = Some(self.block_first_key.clone());
        }
        self.bloom.add(cell, self.last.as_ref());
        self.cell_count += 1;
        self.min_timestamp = self.min_timestamp.min(cell.timestamp());
        self.max_timestamp = self.max_timestamp.max(cell.timestamp());
        self.max_seq_id = self.max_seq_id.max(cell.seq_id());
        Ok(())
    }

    fn finish_full_block(&mut self) -> Result<()> {
        if self.block.size_bytes() >= self.opts.block_size_bytes as usize {
            self.finish_block()?;
        }
        Ok(())
    }

    /// The cell appended last.
    pub fn last_cell(&self) -> Option<&Cell> {
        self.last.as_ref()
    }

    /// Bytes written so far, counting the block being built.
    pub fn size_bytes(&self) -> u64 {
        self.out.offset + self.block.size_bytes() as u64
    }

    fn finish_block(&mut self) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let raw = self.block.finish();
        let (offset, size) = self
            .out
            .write(BlockType::Data, self.opts.compression, &raw)?;
        self.leaf.push(RawEntry {
            first_key: std::mem::take(&mut self.block_first_key),
            offset,
            size,
        });
        if self.write_behind_bytes > 0
            && self.out.offset - self.write_behind_at >= self.write_behind_bytes
        {
            self.write_behind_at = self.out.offset;
            self.out
                .file
                .start_sync()
                .map_err(|e| Error::io(format!("syncing {}", self.out.path.display()), e))?;
        }
        Ok(())
    }

    /// Writes the last block, the index, bloom, file info and trailer, and syncs the file.
    pub fn finish(mut self) -> Result<FileInfo> {
        self.finish_block()?;
        let data_block_count = self.leaf.len() as u64;
        let chunk = (self.opts.block_size_bytes as usize).min(INDEX_CHUNK_MAX_BYTES);
        let leaf = std::mem::take(&mut self.leaf);
        let (index_root_offset, index_root_size, index_levels) =
            index::write(&mut self.out, leaf, chunk)?;
        let (bloom_offset, bloom_size) =
            match self.bloom.finish(self.opts.bloom_false_positive_rate) {
                Some(raw) => self.out.write(BlockType::Bloom, Compression::None, &raw)?,
                None => (0, 0),
            };
        let mut last_key = Vec::new();
        if let Some(last) = &self.last {
            encode_key(last, &mut last_key).map_err(Error::invalid)?;
        }
        let info_raw = encode_file_info(
            self.first_key.as_deref(),
            self.last.is_some().then_some(&last_key[..]),
        );
        let (file_info_offset, file_info_size) =
            self.out
                .write(BlockType::FileInfo, Compression::None, &info_raw)?;
        let trailer = Trailer {
            compression: self.opts.compression,
            encoding: self.opts.encoding,
            bloom: if bloom_size == 0 {
                BloomType::None
            } else {
                self.opts.bloom
            },
            cell_count: self.cell_count,
            min_timestamp: self.min_timestamp,
            max_timestamp: self.max_timestamp,
            max_seq_id: self.max_seq_id,
            data_block_count,
            index_root_offset,
            index_root_size,
            index_levels,
            bloom_offset,
            bloom_size,
            file_info_size,
            file_info_offset,
            file_size: self.out.offset + super::trailer::TRAILER_BYTES as u64,
        };
        self.out.write_raw(&trailer.encode())?;
        self.out
            .file
            .sync_data()
            .map_err(|e| Error::io(format!("syncing {}", self.out.path.display()), e))?;
        let first_key = self.first_key.as_ref().map(|k| cell_key(k)).transpose()?;
        Ok(FileInfo {
            cell_count: self.cell_count,
            first_key,
            last_key: self
                .last
                .map(|c| c.with_value(bytes::Bytes::new()).with_ttl_ms(None)),
            min_timestamp: self.min_timestamp,
            max_timestamp: self.max_timestamp,
            max_seq_id: self.max_seq_id,
            file_size: trailer.file_size,
            data_block_count,
            index_levels,
            bloom: trailer.bloom,
            compression: self.opts.compression,
            encoding: self.opts.encoding,
        })
    }
}

fn cell_key(raw: &[u8]) -> Result<Cell> {
    super::key::decode_key(&bytes::Bytes::copy_from_slice(raw)).map_err(Error::invalid)
}
