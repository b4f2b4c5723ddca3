//! Every compression × encoding × bloom type writes cells that read back equal, with the
//! trailer's summary right.

use crate::hfile_common::{open, scan_all, varied_cells, write, Mem, MemFs};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::{HFileWriter, WriterOptions};
use basalt_storage::StorageConfig;
use basalt_types::{BloomType, Cell, CellType, Compression, DataBlockEncoding, FamilyDescriptor};
use std::path::Path;
use std::sync::Arc;

const COMPRESSIONS: [Compression; 5] = [
    Compression::None,
    Compression::Gz,
    Compression::Snappy,
    Compression::Lz4,
    Compression::Zstd,
];
const ENCODINGS: [DataBlockEncoding; 5] = [
    DataBlockEncoding::None,
    DataBlockEncoding::Prefix,
    DataBlockEncoding::Diff,
    DataBlockEncoding::FastDiff,
    DataBlockEncoding::RowIndexV1,
];
const BLOOMS: [BloomType; 3] = [BloomType::None, BloomType::Row, BloomType::RowCol];

#[test]
fn every_codec_encoding_and_bloom_round_trips() {
    let cells = varied_cells(400, 7);
    let fs = Mem(MemFs::new());
    let cache = Arc::new(BlockCache::new(1 << 20));
    for compression in COMPRESSIONS {
        for encoding in ENCODINGS {
            for bloom in BLOOMS {
                let what = format!("{compression:?}/{encoding:?}/{bloom:?}");
                let opts = WriterOptions {
                    block_size_bytes: 1024,
                    compression,
                    encoding,
                    bloom,
                    bloom_false_positive_rate: 0.01,
                };
                let path = Path::new("/t/round-trip");
                let written = write(&fs, path, &cells, opts);
                let reader = open(&fs, path, &cache).expect("open");
                assert_eq!(reader.info(), &written, "{what}");
                let info = reader.info();
                assert_eq!(info.cell_count, cells.len() as u64, "{what}");
                assert!(
                    info.data_block_count > 10,
                    "{what}: {}",
                    info.data_block_count
                );
                let first = info.first_key.as_ref().expect("first");
                let last = info.last_key.as_ref().expect("last");
                assert!(
                    first.cmp_key(&cells[0]).is_eq() && first.value().is_empty(),
                    "{what}"
                );
                assert!(last.cmp_key(&cells[cells.len() - 1]).is_eq(), "{what}");
                let ts = cells.iter().map(|c| c.timestamp());
                assert_eq!(
                    info.min_timestamp,
                    ts.clone().min().expect("cells"),
                    "{what}"
                );
                assert_eq!(info.max_timestamp, ts.max().expect("cells"), "{what}");
                let seq = cells.iter().map(|c| c.seq_id()).max().expect("cells");
                assert_eq!(info.max_seq_id, seq, "{what}");
                assert_eq!(
                    (info.compression, info.encoding, info.bloom),
                    (compression, encoding, bloom)
                );
                assert_eq!(scan_all(&reader).expect("scan"), cells, "{what}");
                reader.evict_from_cache();
            }
        }
    }
}

#[test]
fn prefix_encoding_shrinks_repetitive_keys() {
    let cells: Vec<Cell> = (0..2000)
        .map(|i| {
            Cell::put(
                format!("user-row-{:08}", i / 10),
                "cf",
                format!("column-{:04}", i % 10),
                5,
                "v",
            )
        })
        .collect();
    let fs = Mem(MemFs::new());
    let size = |encoding| {
        let opts = WriterOptions {
            encoding,
            ..WriterOptions::default()
        };
        write(&fs, Path::new("/t/p"), &cells, opts).file_size
    };
    let (plain, prefix) = (
        size(DataBlockEncoding::None),
        size(DataBlockEncoding::Prefix),
    );
    assert!(prefix * 3 < plain * 2, "prefix {prefix} vs none {plain}");
}

#[test]
fn empty_file_opens_and_scans_empty() {
    let fs = Mem(MemFs::new());
    let path = Path::new("/t/empty");
    let info = write(&fs, path, &[], WriterOptions::default());
    assert_eq!(info.cell_count, 0);
    let reader = open(&fs, path, &Arc::new(BlockCache::new(1024))).expect("open");
    assert_eq!(reader.info().first_key, None);
    assert!(scan_all(&reader).expect("scan").is_empty());
    assert!(!reader.might_contain_row(b"x") || reader.info().bloom == BloomType::None);
}

#[test]
fn out_of_order_and_seek_keys_are_rejected() {
    let fs = Mem(MemFs::new());
    let mut w =
        HFileWriter::create(&fs, Path::new("/t/o"), WriterOptions::default()).expect("create");
    w.append(&Cell::put("b", "cf", "q", 1, "v")).expect("first");
    let err = w
        .append(&Cell::put("a", "cf", "q", 1, "v"))
        .expect_err("out of order");
    assert!(err.to_string().contains("out of order"), "{err}");
    let older_after_newer = Cell::put("b", "cf", "q", 2, "v");
    assert!(
        w.append(&older_after_newer).is_err(),
        "ts 2 sorts before ts 1"
    );
    let seek_key = Cell::first_on_row(bytes::Bytes::from_static(b"c"));
    assert!(w.append(&seek_key).is_err());
    w.append(&Cell::marker("b", "cf", "q", 1, CellType::Put))
        .expect("equal key is allowed");
}

#[test]
fn options_follow_the_family() {
    let mut family = FamilyDescriptor::new("cf").expect("valid");
    family.compression = Compression::Zstd;
    family.data_block_encoding = DataBlockEncoding::Prefix;
    family.bloom_filter = BloomType::RowCol;
    family.block_size_bytes = 4096;
    let config = StorageConfig {
        bloom_false_positive_rate: 0.05,
        ..StorageConfig::default()
    };
    let opts = WriterOptions::for_family(&family, &config);
    assert_eq!(
        opts,
        WriterOptions {
            block_size_bytes: 4096,
            compression: Compression::Zstd,
            encoding: DataBlockEncoding::Prefix,
            bloom: BloomType::RowCol,
            bloom_false_positive_rate: 0.05,
        }
    );
}

#[test]
fn works_on_the_local_disk_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fs = basalt_storage::fs::LocalFs;
    let path = dir.path().join("f.hfile");
    let cells = varied_cells(200, 3);
    write(
        &fs,
        &path,
        &cells,
        WriterOptions {
            compression: Compression::Lz4,
            ..WriterOptions::default()
        },
    );
    let reader = open(&fs, &path, &Arc::new(BlockCache::new(1 << 20))).expect("open");
    assert_eq!(scan_all(&reader).expect("scan"), cells);
}
