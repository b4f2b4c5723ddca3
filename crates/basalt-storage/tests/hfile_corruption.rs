//! Damage is always detected: every single-bit flip of a small file (several data blocks,
//! a two-level index, a bloom) makes opening or reading it fail with a corruption error,
//! and every truncation fails at open. Never a panic, never a wrong cell.

use crate::hfile_common::{model_seek, open, scan_all, varied_cells, write, Mem, MemFs};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::WriterOptions;
use basalt_storage::scanner::CellSource;
use basalt_storage::{Error, ErrorKind};
use basalt_types::{BloomType, Cell, Compression, DataBlockEncoding};
use std::path::Path;
use std::sync::Arc;

fn small_file(
    fs: &Mem,
    path: &Path,
    encoding: DataBlockEncoding,
    compression: Compression,
) -> Vec<Cell> {
    let cells: Vec<Cell> = varied_cells(60, 21)
        .into_iter()
        .filter(|c| c.value().len() < 100)
        .take(14)
        .collect();
    let opts = WriterOptions {
        block_size_bytes: 160,
        compression,
        encoding,
        bloom: BloomType::RowCol,
        bloom_false_positive_rate: 0.01,
    };
    let info = write(fs, path, &cells, opts);
    assert!(
        info.data_block_count >= 3,
        "{} blocks",
        info.data_block_count
    );
    assert!(info.index_levels >= 2, "{} levels", info.index_levels);
    cells
}

/// Opens the file, seeks to every row, walks it backwards row by row and scans it
/// whole. Every step that succeeds must agree with `model` (a damaged file may fail,
/// never lie); the first error is returned once everything was tried.
fn read_everything(fs: &Mem, path: &Path, model: &[Cell]) -> basalt_storage::Result<Vec<Cell>> {
    let reader = open(fs, path, &Arc::new(BlockCache::new(1 << 20)))?;
    let mut first_error = None;
    let mut note = |r: basalt_storage::Result<()>| match r {
        Ok(()) => true,
        Err(e) => {
            first_error.get_or_insert(e);
            false
        }
    };
    let mut s = reader.scanner(false);
    for c in model {
        let key = Cell::first_on_row(c.row_bytes());
        if note(s.seek(&key)) {
            assert_eq!(s.peek(), model.get(model_seek(model, &key)), "seek {key:?}");
        }
    }
    let mut s = reader.scanner(false);
    let mut ok = note(s.seek_to_last_row());
    while ok {
        let Some(row) = s.peek().map(|c| c.row_bytes()) else {
            break;
        };
        assert_eq!(
            s.peek(),
            model.get(model.partition_point(|c| c.row() < row))
        );
        ok = note(s.seek_to_previous_row(&row));
    }
    let cells = scan_all(&reader);
    match (first_error, cells) {
        (Some(e), _) | (None, Err(e)) => Err(e),
        (None, Ok(cells)) => Ok(cells),
    }
}

fn assert_corruption(err: &Error, what: &str) {
    assert_eq!(err.kind(), ErrorKind::DataCorruption, "{what}: {err}");
    let Error::Corruption { file, .. } = err else {
        unreachable!("kind checked")
    };
    assert_eq!(file, Path::new("/t/c"), "{what}");
}

#[test]
fn every_bit_flip_is_an_error() {
    for (encoding, compression) in [
        (DataBlockEncoding::None, Compression::None),
        (DataBlockEncoding::Prefix, Compression::Lz4),
        (DataBlockEncoding::Diff, Compression::None),
        (DataBlockEncoding::FastDiff, Compression::Snappy),
        (DataBlockEncoding::RowIndexV1, Compression::None),
    ] {
        let fs = Mem(MemFs::new());
        let path = Path::new("/t/c");
        let cells = small_file(&fs, path, encoding, compression);
        let good = fs.0.get(path);
        assert_eq!(
            read_everything(&fs, path, &cells).expect("intact file reads"),
            cells
        );
        for bit in 0..good.len() * 8 {
            let mut bad = good.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            fs.0.put(path, bad);
            let what = format!(
                "{encoding:?}/{compression:?}: bit {bit} of {}",
                good.len() * 8
            );
            match read_everything(&fs, path, &cells) {
                Err(e) => assert_corruption(&e, &what),
                Ok(read) => panic!("{what}: read {} cells without an error", read.len()),
            }
        }
    }
}

#[test]
fn every_truncation_fails_at_open() {
    for encoding in [DataBlockEncoding::None, DataBlockEncoding::FastDiff] {
        let fs = Mem(MemFs::new());
        let path = Path::new("/t/c");
        small_file(&fs, path, encoding, Compression::Snappy);
        let good = fs.0.get(path);
        let cache = Arc::new(BlockCache::new(1 << 20));
        for len in 0..good.len() {
            fs.0.put(path, good[..len].to_vec());
            let err = open(&fs, path, &cache).expect_err("truncated file opens");
            assert_corruption(&err, &format!("{encoding:?} truncated to {len}"));
        }
    }
}

#[test]
fn a_flipped_data_byte_names_its_block() {
    let fs = Mem(MemFs::new());
    let path = Path::new("/t/c");
    small_file(&fs, path, DataBlockEncoding::None, Compression::None);
    let good = fs.0.get(path);
    let mut offsets = Vec::new();
    // The first third of this file is data blocks: the error names the damaged block's
    // start, at or shortly before the damaged byte (blocks are ~160 bytes plus one cell).
    for at in (0..good.len() / 3).step_by(13) {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        fs.0.put(path, bad);
        let reader = open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect("index intact");
        let err = scan_all(&reader).expect_err("damaged block");
        let Error::Corruption { offset, reason, .. } = &err else {
            panic!("{err}")
        };
        assert!(
            *offset <= at as u64 && at as u64 - offset < 400,
            "byte {at}: {err}"
        );
        assert!(reason.contains("checksum"), "{err}");
        offsets.push(*offset);
    }
    offsets.dedup();
    assert!(offsets.len() >= 2, "damage in several blocks: {offsets:?}");
}
