//! DIFF, FAST_DIFF and ROW_INDEX_V1 at the file level: the format version each file gets,
//! what each costs in bytes against NONE and PREFIX, and the refusal of a file whose
//! trailer names an encoding this code does not know.

use crate::hfile_common::{open, scan_all, write, Mem, MemFs};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::WriterOptions;
use basalt_storage::{Error, ErrorKind};
use basalt_types::{Cell, CellType, DataBlockEncoding};
use std::path::Path;
use std::sync::Arc;

const TRAILER_BYTES: usize = 108;

/// A wide, versioned table: ten columns of a user row, three versions each a second
/// apart, one in twenty a delete; half the columns keep one value across versions.
fn versioned_cells() -> Vec<Cell> {
    let mut out = Vec::new();
    for row in 0..300 {
        for col in 0..10 {
            for v in 0..3i64 {
                let ts = 1_764_000_000_000 - v * 1000;
                let row = format!("user{row:08}");
                let q = format!("field{col}");
                let cell = if (row.len() + col + v as usize).is_multiple_of(20) {
                    Cell::marker(row, "cf", q, ts, CellType::Delete)
                } else {
                    Cell::put(
                        row,
                        "cf",
                        q,
                        ts,
                        format!("value-{col}-{}", if col < 5 { 0 } else { v }),
                    )
                };
                out.push(cell);
            }
        }
    }
    out
}

fn version_of(file: &[u8]) -> u32 {
    let at = file.len() - TRAILER_BYTES + 8;
    u32::from_be_bytes(file[at..at + 4].try_into().expect("4 bytes"))
}

#[test]
fn each_encoding_round_trips_with_its_format_version() {
    let cells = versioned_cells();
    let fs = Mem(MemFs::new());
    for (encoding, version) in [
        (DataBlockEncoding::None, 1),
        (DataBlockEncoding::Prefix, 1),
        (DataBlockEncoding::Diff, 2),
        (DataBlockEncoding::FastDiff, 2),
        (DataBlockEncoding::RowIndexV1, 2),
    ] {
        let path = Path::new("/t/v");
        let opts = WriterOptions {
            encoding,
            block_size_bytes: 4096,
            ..WriterOptions::default()
        };
        let info = write(&fs, path, &cells, opts);
        assert!(info.data_block_count > 10, "block boundaries crossed");
        assert_eq!(version_of(&fs.0.get(path)), version, "{encoding:?}");
        // A cache per file: the test reuses one path (and file id) for every encoding.
        let reader = open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect("open");
        assert_eq!(reader.info().encoding, encoding);
        let got = scan_all(&reader).expect("scan");
        assert!(got == cells, "{encoding:?}: {} cells read back", got.len());
    }
}

/// What each encoding saves: the delta encodings store versions of one column in a
/// few bytes each, below PREFIX; ROW_INDEX_V1 costs NONE give or take its index (four
/// bytes a row instead of four every sixteen cells).
#[test]
fn delta_encodings_store_versions_smaller_than_prefix() {
    let cells = versioned_cells();
    let fs = Mem(MemFs::new());
    let size = |encoding| {
        let opts = WriterOptions {
            encoding,
            ..WriterOptions::default()
        };
        write(&fs, Path::new("/t/s"), &cells, opts).file_size
    };
    let none = size(DataBlockEncoding::None);
    let prefix = size(DataBlockEncoding::Prefix);
    let diff = size(DataBlockEncoding::Diff);
    let fast = size(DataBlockEncoding::FastDiff);
    let row_index = size(DataBlockEncoding::RowIndexV1);
    let sizes =
        format!("none {none} prefix {prefix} diff {diff} fast_diff {fast} row_index {row_index}");
    assert!(diff < prefix && fast < prefix, "{sizes}");
    assert!(fast < diff, "FAST_DIFF drops repeated values: {sizes}");
    assert!(row_index.abs_diff(none) < 4096, "{sizes}");
}

/// A trailer whose checksum holds but whose encoding code is unknown (as a newer
/// Basalt with more encodings would write) is refused by name: not read, not taken for
/// damage (a damaged store file would be set aside).
#[test]
fn a_file_with_an_unknown_encoding_id_is_refused_by_name() {
    let fs = Mem(MemFs::new());
    let path = Path::new("/t/unknown");
    let cells = versioned_cells();
    let opts = WriterOptions {
        encoding: DataBlockEncoding::FastDiff,
        ..WriterOptions::default()
    };
    write(&fs, path, &cells[..50], opts);
    let mut bytes = fs.0.get(path);
    let trailer = bytes.len() - TRAILER_BYTES;
    bytes[trailer + 13] = 42;
    let crc = crc32c::crc32c(&bytes[trailer..trailer + 104]);
    bytes[trailer + 104..].copy_from_slice(&crc.to_be_bytes());
    fs.0.put(path, bytes);
    let err = open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect_err("refused");
    assert!(
        matches!(&err, Error::UnknownEncoding { file, code: 42, .. } if file == path),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    let text = err.to_string();
    for part in [
        "/t/unknown",
        "encoding code 42",
        "FAST_DIFF",
        "upgrade Basalt",
    ] {
        assert!(text.contains(part), "{text}");
    }
}
