//! The fixed-size trailer that ends every HFile, and the file-info block it points at.
//!
//! ```text
//! trailer (108 bytes, the last bytes of the file):
//! off  size field
//!   0     8 magic "BSLTHFIL"
//!   8     4 format version (1, or 2 when the encoding needs it)
//!  12     1 compression code        13  1 encoding (see below)
//!  14     1 bloom (0 NONE, 1 ROW, 2 ROWCOL)   15  1 reserved, 0
//!  16     8 cell count
//!  24     8 min timestamp (i64; i64::MAX when empty)
//!  32     8 max timestamp (i64; i64::MIN when empty)
//!  40     8 max sequence id
//!  48     8 data block count
//!  56     8 index root offset          64  4 index root size
//!  68     4 index levels
//!  72     8 bloom offset               80  4 bloom size (0: no bloom block)
//!  84     4 file info size             88  8 file info offset
//!  96     8 file size (this trailer included)
//! 104     4 crc32c of bytes 0..104
//!
//! Every later version keeps the magic and version at the start of the last 108 bytes and
//! the CRC32C of the 104 bytes before it at their end, so that this code can tell a newer
//! file ([`newer_version`]) from a damaged one.
//!
//! The version says which data block encodings a file may use, and the writer writes the
//! lowest version that allows its encoding, so a Basalt that reads only version 1 still
//! reads NONE and PREFIX files and refuses the others as a newer Basalt's:
//!
//! | code | encoding     | from version |
//! |------|--------------|--------------|
//! | 0    | NONE         | 1 |
//! | 1    | PREFIX       | 1 |
//! | 2    | DIFF         | 2 |
//! | 3    | FAST_DIFF    | 2 |
//! | 4    | ROW_INDEX_V1 | 2 |
//!
//! file-info block payload:
//! | first_key_len u32 | first_key | last_key_len u32 | last_key |   (len 0: empty file)
//! ```

use super::compression;
use super::key::decode_key;
use basalt_types::{BloomType, Cell, Compression, DataBlockEncoding};
use bytes::{BufMut, Bytes};

pub(crate) const TRAILER_BYTES: usize = 108;
const MAGIC: &[u8; 8] = b"BSLTHFIL";
/// The highest format version this code reads and writes.
pub(crate) const FORMAT_VERSION: u32 = 2;

/// The trailer's fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Trailer {
    pub compression: Compression,
    pub encoding: DataBlockEncoding,
    pub bloom: BloomType,
    pub cell_count: u64,
    pub min_timestamp: i64,
    pub max_timestamp: i64,
    pub max_seq_id: u64,
    pub data_block_count: u64,
    pub index_root_offset: u64,
    pub index_root_size: u32,
    pub index_levels: u32,
    pub bloom_offset: u64,
    pub bloom_size: u32,
    pub file_info_size: u32,
    pub file_info_offset: u64,
    pub file_size: u64,
}

fn encoding_code(e: DataBlockEncoding) -> u8 {
    match e {
        DataBlockEncoding::None => 0,
        DataBlockEncoding::Prefix => 1,
        DataBlockEncoding::Diff => 2,
        DataBlockEncoding::FastDiff => 3,
        DataBlockEncoding::RowIndexV1 => 4,
    }
}

fn encoding_from_code(code: u8) -> Option<DataBlockEncoding> {
    Some(match code {
        0 => DataBlockEncoding::None,
        1 => DataBlockEncoding::Prefix,
        2 => DataBlockEncoding::Diff,
        3 => DataBlockEncoding::FastDiff,
        4 => DataBlockEncoding::RowIndexV1,
        _ => return None,
    })
}

/// The lowest format version whose files may use `e`: the version a file using it gets.
pub(crate) fn version_for(e: DataBlockEncoding) -> u32 {
    match e {
        DataBlockEncoding::None | DataBlockEncoding::Prefix => 1,
        DataBlockEncoding::Diff | DataBlockEncoding::FastDiff | DataBlockEncoding::RowIndexV1 => 2,
    }
}

fn bloom_code(b: BloomType) -> u8 {
    match b {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
    }
}

/// The format version of a trailer written by a newer Basalt: magic and checksum are good
/// and the version is above [`FORMAT_VERSION`]. `None` for anything else (a trailer this code
/// reads, or a damaged one, which [`Trailer::decode`] reports).
pub(crate) fn newer_version(buf: &[u8; TRAILER_BYTES]) -> Option<u32> {
    newer_version_than(buf, FORMAT_VERSION)
}

/// [`newer_version`] for a reader that knows versions up to `supported` (tests use 1 to
/// stand for a Basalt from before version 2).
pub(crate) fn newer_version_than(buf: &[u8; TRAILER_BYTES], supported: u32) -> Option<u32> {
    let version = u32_at(buf, 8);
    (intact(buf) && version > supported).then_some(version)
}

/// The encoding code of an intact trailer of a version this code reads, when this code
/// does not know that encoding: a file it must refuse by name rather than misread.
pub(crate) fn unknown_encoding(buf: &[u8; TRAILER_BYTES]) -> Option<u8> {
    let known_version = (1..=FORMAT_VERSION).contains(&u32_at(buf, 8));
    (intact(buf) && known_version && encoding_from_code(buf[13]).is_none()).then_some(buf[13])
}

fn u32_at(buf: &[u8; TRAILER_BYTES], at: usize) -> u32 {
    u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

/// Magic and checksum hold.
fn intact(buf: &[u8; TRAILER_BYTES]) -> bool {
    &buf[..8] == MAGIC && crc32c::crc32c(&buf[..104]) == u32_at(buf, 104)
}

impl Trailer {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TRAILER_BYTES);
        out.put_slice(MAGIC);
        out.put_u32(version_for(self.encoding));
        out.put_u8(compression::code(self.compression));
        out.put_u8(encoding_code(self.encoding));
        out.put_u8(bloom_code(self.bloom));
        out.put_u8(0);
        out.put_u64(self.cell_count);
        out.put_i64(self.min_timestamp);
        out.put_i64(self.max_timestamp);
        out.put_u64(self.max_seq_id);
        out.put_u64(self.data_block_count);
        out.put_u64(self.index_root_offset);
        out.put_u32(self.index_root_size);
        out.put_u32(self.index_levels);
        out.put_u64(self.bloom_offset);
        out.put_u32(self.bloom_size);
        out.put_u32(self.file_info_size);
        out.put_u64(self.file_info_offset);
        out.put_u64(self.file_size);
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        debug_assert_eq!(out.len(), TRAILER_BYTES);
        out
    }

    /// Parses and checks a trailer read from the end of a file of `file_size` bytes.
    pub fn decode(buf: &[u8; TRAILER_BYTES], file_size: u64) -> Result<Self, String> {
        let u64_at = |at: usize| u64::from_be_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
        let u32_at = |at: usize| u32::from_be_bytes(buf[at..at + 4].try_into().expect("4 bytes"));
        if &buf[..8] != MAGIC {
            return Err("no HFile trailer magic".into());
        }
        let crc = crc32c::crc32c(&buf[..104]);
        if crc != u32_at(104) {
            return Err(format!(
                "trailer checksum mismatch: stored {:#010x}, computed {crc:#010x}",
                u32_at(104)
            ));
        }
        let version = u32_at(8);
        if !(1..=FORMAT_VERSION).contains(&version) {
            return Err(format!("unsupported HFile format version {version}"));
        }
        let compression = compression::from_code(buf[12]).ok_or("unknown compression code")?;
        let encoding = encoding_from_code(buf[13])
            .ok_or_else(|| format!("unknown data block encoding code {}", buf[13]))?;
        if version_for(encoding) > version {
            return Err(format!(
                "data block encoding {} needs HFile format version {}, the trailer says {version}",
                encoding.name(),
                version_for(encoding)
            ));
        }
        let bloom = match buf[14] {
            0 => BloomType::None,
            1 => BloomType::Row,
            2 => BloomType::RowCol,
            other => return Err(format!("unknown bloom code {other}")),
        };
        if buf[15] != 0 {
            return Err("reserved trailer byte is not 0".into());
        }
        let trailer = Self {
            compression,
            encoding,
            bloom,
            cell_count: u64_at(16),
            min_timestamp: u64_at(24) as i64,
            max_timestamp: u64_at(32) as i64,
            max_seq_id: u64_at(40),
            data_block_count: u64_at(48),
            index_root_offset: u64_at(56),
            index_root_size: u32_at(64),
            index_levels: u32_at(68),
            bloom_offset: u64_at(72),
            bloom_size: u32_at(80),
            file_info_size: u32_at(84),
            file_info_offset: u64_at(88),
            file_size: u64_at(96),
        };
        if trailer.file_size != file_size {
            return Err(format!(
                "trailer says the file has {} bytes, it has {file_size}",
                trailer.file_size
            ));
        }
        if (trailer.cell_count == 0) != (trailer.data_block_count == 0)
            || trailer.data_block_count > trailer.cell_count
        {
            return Err(format!(
                "{} cells in {} data blocks",
                trailer.cell_count, trailer.data_block_count
            ));
        }
        Ok(trailer)
    }
}

/// The first and last keys, kept in the file-info block.
pub(crate) fn encode_file_info(first: Option<&[u8]>, last: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    for key in [first, last] {
        let key = key.unwrap_or_default();
        out.put_u32(key.len() as u32);
        out.put_slice(key);
    }
    out
}

/// The first and last keys of a file-info block (values empty).
pub(crate) fn decode_file_info(raw: &Bytes) -> Result<(Option<Cell>, Option<Cell>), String> {
    let mut at = 0;
    let mut next = || -> Result<Option<Cell>, String> {
        let len_bytes = raw.get(at..at + 4).ok_or("file info ends early")?;
        let len = u32::from_be_bytes(len_bytes.try_into().expect("4 bytes")) as usize;
        let end = (at + 4).checked_add(len).filter(|e| *e <= raw.len());
        let end = end.ok_or("file-info key runs past the end")?;
        let key = (len > 0)
            .then(|| decode_key(&raw.slice(at + 4..end)))
            .transpose()?;
        at = end;
        Ok(key)
    };
    let first = next()?;
    let last = next()?;
    if at != raw.len() {
        return Err("stray bytes after the file-info keys".into());
    }
    if first.is_some() != last.is_some()
        || first
            .as_ref()
            .zip(last.as_ref())
            .is_some_and(|(f, l)| f.cmp_key(l).is_gt())
    {
        return Err("first and last keys disagree".into());
    }
    Ok((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hfile::key::encode_key;

    #[test]
    fn trailer_round_trips_and_every_flip_fails() {
        let t = Trailer {
            compression: Compression::Zstd,
            encoding: DataBlockEncoding::Prefix,
            bloom: BloomType::RowCol,
            cell_count: 10,
            min_timestamp: -5,
            max_timestamp: 99,
            max_seq_id: 7,
            data_block_count: 2,
            index_root_offset: 300,
            index_root_size: 40,
            index_levels: 1,
            bloom_offset: 340,
            bloom_size: 30,
            file_info_size: 20,
            file_info_offset: 370,
            file_size: 498,
        };
        let bytes: [u8; TRAILER_BYTES] = t.encode().try_into().expect("fixed size");
        assert_eq!(Trailer::decode(&bytes, 498), Ok(t));
        assert!(Trailer::decode(&bytes, 499).is_err());
        for bit in 0..TRAILER_BYTES * 8 {
            let mut bad = bytes;
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(Trailer::decode(&bad, 498).is_err(), "bit {bit}");
        }
    }

    #[test]
    fn a_newer_version_is_told_from_damage() {
        let t = Trailer {
            compression: Compression::None,
            encoding: DataBlockEncoding::None,
            bloom: BloomType::None,
            cell_count: 0,
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            max_seq_id: 0,
            data_block_count: 0,
            index_root_offset: 0,
            index_root_size: 10,
            index_levels: 1,
            bloom_offset: 0,
            bloom_size: 0,
            file_info_size: 10,
            file_info_offset: 10,
            file_size: 128,
        };
        let mut bytes: [u8; TRAILER_BYTES] = t.encode().try_into().expect("fixed size");
        assert_eq!(newer_version(&bytes), None, "today's version");
        bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_be_bytes());
        assert_eq!(
            newer_version(&bytes),
            None,
            "a flipped version bit is damage"
        );
        let crc = crc32c::crc32c(&bytes[..104]);
        bytes[104..].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(newer_version(&bytes), Some(FORMAT_VERSION + 1));
        assert!(
            Trailer::decode(&bytes, 128).is_err(),
            "never read as an older version"
        );
    }

    fn empty_trailer(encoding: DataBlockEncoding) -> [u8; TRAILER_BYTES] {
        let t = Trailer {
            compression: Compression::None,
            encoding,
            bloom: BloomType::None,
            cell_count: 0,
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            max_seq_id: 0,
            data_block_count: 0,
            index_root_offset: 0,
            index_root_size: 10,
            index_levels: 1,
            bloom_offset: 0,
            bloom_size: 0,
            file_info_size: 10,
            file_info_offset: 10,
            file_size: 128,
        };
        t.encode().try_into().expect("fixed size")
    }

    /// The version says which encodings a file may use: NONE and PREFIX files stay
    /// version 1 (a Basalt from before DIFF reads them), the others are version 2, which
    /// such a Basalt refuses as a newer one's file instead of misreading its blocks.
    #[test]
    fn the_version_says_which_encodings_a_file_may_use() {
        for (encoding, version) in [
            (DataBlockEncoding::None, 1),
            (DataBlockEncoding::Prefix, 1),
            (DataBlockEncoding::Diff, 2),
            (DataBlockEncoding::FastDiff, 2),
            (DataBlockEncoding::RowIndexV1, 2),
        ] {
            let bytes = empty_trailer(encoding);
            assert_eq!(u32_at(&bytes, 8), version, "{encoding:?}");
            let old_reader = newer_version_than(&bytes, 1);
            assert_eq!(old_reader, (version > 1).then_some(version), "{encoding:?}");
            assert_eq!(newer_version(&bytes), None);
            let t = Trailer::decode(&bytes, 128).expect("today's code reads it");
            assert_eq!(t.encoding, encoding);
        }
    }

    #[test]
    fn an_unknown_or_too_new_encoding_code_is_refused() {
        let reseal = |bytes: &mut [u8; TRAILER_BYTES]| {
            let crc = crc32c::crc32c(&bytes[..104]);
            bytes[104..].copy_from_slice(&crc.to_be_bytes());
        };
        let mut bytes = empty_trailer(DataBlockEncoding::Diff);
        bytes[13] = 9;
        reseal(&mut bytes);
        assert_eq!(unknown_encoding(&bytes), Some(9));
        let err = Trailer::decode(&bytes, 128).expect_err("unknown");
        assert!(err.contains("encoding code 9"), "{err}");
        // DIFF in a version-1 trailer: a version-1 reader would misread it, so never written.
        let mut bytes = empty_trailer(DataBlockEncoding::None);
        bytes[13] = 2;
        reseal(&mut bytes);
        assert_eq!(unknown_encoding(&bytes), None);
        let err = Trailer::decode(&bytes, 128).expect_err("inconsistent");
        assert!(err.contains("DIFF needs HFile format version 2"), "{err}");
        assert_eq!(
            unknown_encoding(&empty_trailer(DataBlockEncoding::FastDiff)),
            None
        );
    }

    #[test]
    fn file_info_round_trips() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encode_key(&Cell::put("a", "cf", "q", 1, ""), &mut a).expect("small");
        encode_key(&Cell::put("b", "cf", "q", 1, ""), &mut b).expect("small");
        let raw = Bytes::from(encode_file_info(Some(&a), Some(&b)));
        let (first, last) = decode_file_info(&raw).expect("valid");
        assert_eq!(first.expect("first").row(), b"a");
        assert_eq!(last.expect("last").row(), b"b");
        let swapped = Bytes::from(encode_file_info(Some(&b), Some(&a)));
        assert!(decode_file_info(&swapped).is_err());
        assert_eq!(
            decode_file_info(&Bytes::from(encode_file_info(None, None))),
            Ok((None, None))
        );
    }
}
