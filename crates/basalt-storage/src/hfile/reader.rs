//! Opening an HFile: the trailer, index, bloom and file info are read and verified once and
//! stay resident; data blocks are read on demand, through the shared block cache.

use super::block::{self, BlockType};
use super::bloom::{self, Bloom};
use super::encoding::DataBlock;
use super::index::{self, IndexEntry, IndexLocation};
use super::scanner::HFileScanner;
use super::trailer::{self, decode_file_info, Trailer, TRAILER_BYTES};
use super::FileInfo;
use crate::block_cache::{BlockCache, BlockKey, CachePriority};
use crate::error::{Error, FileKind, Result};
use crate::fs::{FileSystem, ReadableFile};
use basalt_types::{BloomType, Cell, Compression, FamilyDescriptor};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a reader uses the block cache; from the family's `BLOCKCACHE` and `IN_MEMORY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheOptions {
    /// `BLOCKCACHE`: data blocks read may be cached (when the scan asks for it too).
    pub cache_data_blocks: bool,
    pub priority: CachePriority,
}

impl Default for CacheOptions {
    fn default() -> Self {
        Self {
            cache_data_blocks: true,
            priority: CachePriority::Normal,
        }
    }
}

impl CacheOptions {
    pub fn for_family(family: &FamilyDescriptor) -> Self {
        Self {
            cache_data_blocks: family.block_cache,
            priority: if family.in_memory {
                CachePriority::InMemory
            } else {
                CachePriority::Normal
            },
        }
    }
}

/// An open HFile, shared by its scanners through an `Arc`.
#[derive(Debug)]
pub struct HFileReader {
    path: PathBuf,
    file: Arc<dyn ReadableFile>,
    file_id: u64,
    cache: Arc<BlockCache>,
    cache_options: CacheOptions,
    info: FileInfo,
    /// Where blocks end: the trailer's offset.
    blocks_end: u64,
    index: Vec<IndexEntry>,
    bloom: Option<Bloom>,
}

impl HFileReader {
    /// Opens `path` with the default cache options (cache data blocks, normal priority).
    pub fn open(
        fs: &dyn FileSystem,
        path: &Path,
        file_id: u64,
        cache: Arc<BlockCache>,
    ) -> Result<Arc<Self>> {
        Self::open_with(fs, path, file_id, cache, CacheOptions::default())
    }

    /// Opens `path`, reading and verifying its trailer, index, bloom and file info.
    /// `file_id` must be unique among the files sharing `cache`.
    pub fn open_with(
        fs: &dyn FileSystem,
        path: &Path,
        file_id: u64,
        cache: Arc<BlockCache>,
        cache_options: CacheOptions,
    ) -> Result<Arc<Self>> {
        let file = fs
            .open(path)
            .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        let file_size = file.len();
        let corrupt = |offset: u64, reason: String| {
            Error::corruption(FileKind::StoreFile, path, offset, reason)
        };
        let blocks_end = file_size
            .checked_sub(TRAILER_BYTES as u64)
            .ok_or_else(|| corrupt(0, format!("{file_size} bytes is too short for an HFile")))?;
        let mut buf = [0u8; TRAILER_BYTES];
        file.read_exact_at(&mut buf, blocks_end)
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        if let Some(found) = trailer::newer_version(&buf) {
            return Err(Error::newer_format(
                path,
                "HFile",
                found,
                trailer::FORMAT_VERSION,
            ));
        }
        if let Some(code) = trailer::unknown_encoding(&buf) {
            return Err(Error::UnknownEncoding {
                file: path.to_path_buf(),
                code,
                known: "NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1",
            });
        }
        let t = Trailer::decode(&buf, file_size).map_err(|r| corrupt(blocks_end, r))?;
        let index = index::read(
            file.as_ref(),
            path,
            &IndexLocation {
                root_offset: t.index_root_offset,
                root_size: t.index_root_size,
                levels: t.index_levels,
                data_block_count: t.data_block_count,
                limit: blocks_end,
            },
        )?;
        let bloom = read_bloom(file.as_ref(), path, &t, blocks_end)?;
        let raw = block::read(
            file.as_ref(),
            path,
            t.file_info_offset,
            t.file_info_size,
            blocks_end,
            BlockType::FileInfo,
            Compression::None,
            None,
        )?;
        let (first_key, last_key) =
            decode_file_info(&raw).map_err(|r| corrupt(t.file_info_offset, r))?;
        check_layout(&t, &index, first_key.as_ref(), blocks_end)
            .map_err(|(offset, reason)| corrupt(offset, reason))?;
        let info = FileInfo {
            cell_count: t.cell_count,
            first_key,
            last_key,
            min_timestamp: t.min_timestamp,
            max_timestamp: t.max_timestamp,
            max_seq_id: t.max_seq_id,
            file_size,
            data_block_count: t.data_block_count,
            index_levels: t.index_levels,
            bloom: t.bloom,
            compression: t.compression,
            encoding: t.encoding,
        };
        Ok(Arc::new(Self {
            path: path.to_path_buf(),
            file,
            file_id,
            cache,
            cache_options,
            info,
            blocks_end,
            index,
            bloom,
        }))
    }

    pub fn info(&self) -> &FileInfo {
        &self.info
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn file_id(&self) -> u64 {
        self.file_id
    }

    /// The first row of the middle data block, from the resident index (HBase's midkey);
    /// `None` when the file has fewer than two blocks.
    pub fn middle_block_row(&self) -> Option<&[u8]> {
        if self.index.len() < 2 {
            return None;
        }
        Some(self.index[self.index.len() / 2].first_key.row())
    }

    /// `false` only when the bloom proves `row` is absent; `true` when there is no bloom.
    pub fn might_contain_row(&self, row: &[u8]) -> bool {
        self.bloom
            .as_ref()
            .is_none_or(|b| b.contains(bloom::row_hash(row)))
    }

    /// With a ROWCOL bloom, whether `row / family:qualifier` may be here; otherwise the
    /// row check.
    pub fn might_contain_column(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> bool {
        match (&self.bloom, self.info.bloom) {
            (Some(b), BloomType::RowCol) => b.contains(bloom::column_hash(row, family, qualifier)),
            _ => self.might_contain_row(row),
        }
    }

    /// A scanner over the file. It starts unpositioned (`peek` is `None`): call
    /// [`crate::scanner::CellSource::seek`] (or [`HFileScanner::seek_to_first`]) first.
    /// `cache_blocks`: whether blocks this scan reads go into the cache (a large one-off
    /// scan passes `false`); cached blocks are used either way.
    pub fn scanner(self: &Arc<Self>, cache_blocks: bool) -> HFileScanner {
        HFileScanner::new(self.clone(), cache_blocks)
    }

    /// Drops this file's data blocks from the block cache (on close or deletion).
    pub fn evict_from_cache(&self) {
        for e in &self.index {
            self.cache.remove(BlockKey {
                file_id: self.file_id,
                offset: e.offset,
            });
        }
    }

    pub(crate) fn index(&self) -> &[IndexEntry] {
        &self.index
    }

    /// Data block `i`, from the cache or the file (verified, then cached if asked).
    pub(crate) fn data_block(&self, i: usize, cache_blocks: bool) -> Result<Arc<DataBlock>> {
        let entry = &self.index[i];
        let key = BlockKey {
            file_id: self.file_id,
            offset: entry.offset,
        };
        let priority = self.cache_options.priority;
        if let Some(block) = self.cache.get(key, priority) {
            return Ok(block);
        }
        let raw = block::read(
            self.file.as_ref(),
            &self.path,
            entry.offset,
            entry.size,
            self.blocks_end,
            BlockType::Data,
            self.info.compression,
            Some(self.cache.buffers()),
        )?;
        let block = DataBlock::parse(raw, self.info.encoding)
            .map_err(|r| Error::corruption(FileKind::StoreFile, &self.path, entry.offset, r))?;
        let block = Arc::new(block);
        if cache_blocks && self.cache_options.cache_data_blocks {
            self.cache.insert(key, block.clone(), priority);
        }
        Ok(block)
    }

    /// A corruption error for data block `i`.
    pub(crate) fn block_corruption(&self, i: usize, reason: String) -> Error {
        Error::corruption(
            FileKind::StoreFile,
            &self.path,
            self.index[i].offset,
            reason,
        )
    }
}

fn read_bloom(
    file: &dyn ReadableFile,
    path: &Path,
    t: &Trailer,
    end: u64,
) -> Result<Option<Bloom>> {
    match t.bloom {
        BloomType::None if t.bloom_size == 0 && t.bloom_offset == 0 => Ok(None),
        BloomType::None => Err(Error::corruption(
            FileKind::StoreFile,
            path,
            t.bloom_offset,
            "bloom block without a bloom type",
        )),
        BloomType::Row | BloomType::RowCol => {
            let raw = block::read(
                file,
                path,
                t.bloom_offset,
                t.bloom_size,
                end,
                BlockType::Bloom,
                Compression::None,
                None,
            )?;
            Bloom::parse(raw)
                .map(Some)
                .map_err(|r| Error::corruption(FileKind::StoreFile, path, t.bloom_offset, r))
        }
    }
}

/// The blocks after the data must follow each other: index root, bloom, file info, trailer;
/// the index's first key must be the file's first key.
fn check_layout(
    t: &Trailer,
    index: &[IndexEntry],
    first_key: Option<&Cell>,
    blocks_end: u64,
) -> std::result::Result<(), (u64, String)> {
    let root_end = t.index_root_offset + u64::from(t.index_root_size);
    let bloom_end = if t.bloom_size == 0 {
        root_end
    } else if t.bloom_offset == root_end {
        t.bloom_offset + u64::from(t.bloom_size)
    } else {
        return Err((
            t.bloom_offset,
            format!("bloom at {}, expected {root_end}", t.bloom_offset),
        ));
    };
    if t.file_info_offset != bloom_end
        || t.file_info_offset + u64::from(t.file_info_size) != blocks_end
    {
        return Err((
            t.file_info_offset,
            "file info is not between the bloom and the trailer".into(),
        ));
    }
    let index_first = index.first().map(|e| &e.first_key);
    let agree = match (index_first, first_key) {
        (None, None) => true,
        (Some(a), Some(b)) => a.cmp_key(b).is_eq(),
        _ => false,
    };
    if !agree {
        return Err((
            t.file_info_offset,
            "file info's first key differs from the index".into(),
        ));
    }
    Ok(())
}
