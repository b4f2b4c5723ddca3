//! The HFile: an immutable file of cells in cell order, written once by a flush or a
//! compaction and then read by many scanners at once.
//!
//! ```text
//! +--------------+-----+--------------+-------------------+------------+-------------+---------+
//! | data block 0 | ... | data block N | index blocks      | bloom block| file info   | trailer |
//! |              |     |              | (leaves ... root) | (optional) | (first/last)| 108 B   |
//! +--------------+-----+--------------+-------------------+------------+-------------+---------+
//! ```
//! Every block is framed with its type, codec, raw length and a CRC32C (see `block.rs`);
//! the trailer at the end says where everything is. The byte-level format, with diagrams,
//! is in `docs/format.md` ("## HFile"). All integers are big-endian.
//!
//! The writer writes straight to its path and syncs in [`HFileWriter::finish`]; publishing
//! the file (rename into place, manifest) is the caller's job. The reader verifies the
//! trailer, the whole index, the bloom and the file info at open, keeps them resident, and
//! verifies each data block as it is read; damage is an [`crate::Error::Corruption`] naming
//! the file and the block's offset.
//!
//! # Layout
//! - `key`: the byte form of a key, compared in place.
//! - `compression`: block codecs. `block`: block framing and verified reads.
//! - `encoding`: data block layout (NONE / PREFIX / ROW_INDEX_V1) and restart points;
//!   `delta`: the DIFF and FAST_DIFF entries; `cursor`: walking and seeking within one
//!   block.
//! - `index`: the multi-level block index. `bloom`: ROW / ROWCOL bloom filters.
//! - `trailer`: the fixed trailer and the file-info block.
//! - [`writer`], [`reader`], [`scanner`]: the public face.

mod block;
mod bloom;
mod compression;
mod cursor;
mod delta;
mod encoding;
mod index;
mod key;
pub mod reader;
pub mod scanner;
mod trailer;
pub mod writer;

pub use crate::block_cache::CachePriority;
pub use encoding::DataBlock;
pub use reader::{CacheOptions, HFileReader};
pub use scanner::HFileScanner;
pub use writer::HFileWriter;

use crate::config::StorageConfig;
use basalt_types::{BloomType, Cell, Compression, DataBlockEncoding, FamilyDescriptor};

/// How a file is written.
#[derive(Debug, Clone, PartialEq)]
pub struct WriterOptions {
    /// A data block is closed once it holds at least this many bytes (one cell is never
    /// split, so a block may run past this by one cell).
    pub block_size_bytes: u32,
    pub compression: Compression,
    pub encoding: DataBlockEncoding,
    pub bloom: BloomType,
    /// The bloom is sized for this rate of false positives on absent keys.
    pub bloom_false_positive_rate: f64,
}

impl WriterOptions {
    /// The options a family's descriptor and the engine's settings ask for.
    pub fn for_family(family: &FamilyDescriptor, config: &StorageConfig) -> Self {
        Self {
            block_size_bytes: family.block_size_bytes,
            compression: family.compression,
            encoding: family.data_block_encoding,
            bloom: family.bloom_filter,
            bloom_false_positive_rate: config.bloom_false_positive_rate,
        }
    }
}

impl Default for WriterOptions {
    fn default() -> Self {
        Self {
            block_size_bytes: 65536,
            compression: Compression::None,
            encoding: DataBlockEncoding::None,
            bloom: BloomType::Row,
            bloom_false_positive_rate: 0.01,
        }
    }
}

/// What a file holds, from its trailer and file-info block.
#[derive(Debug, Clone, PartialEq)]
pub struct FileInfo {
    pub cell_count: u64,
    /// The first cell's key (value empty, no TTL); `None` for an empty file.
    pub first_key: Option<Cell>,
    /// The last cell's key (value empty, no TTL); `None` for an empty file.
    pub last_key: Option<Cell>,
    /// Smallest timestamp of any cell (`i64::MAX` when empty).
    pub min_timestamp: i64,
    /// Largest timestamp of any cell (`i64::MIN` when empty).
    pub max_timestamp: i64,
    pub max_seq_id: u64,
    /// Bytes of the whole file.
    pub file_size: u64,
    pub data_block_count: u64,
    /// Levels of the block index (1: the root points at data blocks).
    pub index_levels: u32,
    pub bloom: BloomType,
    pub compression: Compression,
    pub encoding: DataBlockEncoding,
}
