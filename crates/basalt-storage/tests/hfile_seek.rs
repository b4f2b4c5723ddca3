//! Seeks land on the first cell `>= key`, forwards and backwards, and the reversed-scan
//! moves find the right rows — checked against a sorted `Vec` model, including with a
//! tiny block size that forces a multi-level index.

use crate::hfile_common::{
    model_previous_row, model_seek, open, varied_cells, write, Mem, MemFs, Rng,
};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::{HFileReader, HFileScanner, WriterOptions};
use basalt_storage::scanner::CellSource;
use basalt_types::{BloomType, Cell, Compression, DataBlockEncoding};
use bytes::Bytes;
use proptest::prelude::*;
use std::path::Path;
use std::sync::Arc;

fn reader_for(
    cells: &[Cell],
    block_size_bytes: u32,
    encoding: DataBlockEncoding,
) -> Arc<HFileReader> {
    let fs = Mem(MemFs::new());
    let path = Path::new("/t/seek");
    let opts = WriterOptions {
        block_size_bytes,
        encoding,
        compression: Compression::Snappy,
        bloom: BloomType::Row,
        bloom_false_positive_rate: 0.01,
    };
    write(&fs, path, cells, opts);
    open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect("open")
}

/// The scanner stands on `model[at]` (or is exhausted when `at` is past the end), and the
/// next few cells follow the model.
fn expect_at(s: &mut HFileScanner, model: &[Cell], at: usize, what: &str) {
    for i in at..(at + 3).min(model.len() + 1) {
        assert_eq!(s.peek(), model.get(i), "{what}: expected model[{i}]");
        if i < model.len() {
            s.advance().expect("advance");
        }
    }
}

/// A random seek key near the model's keys: a real cell, or a row / column boundary.
fn seek_key(model: &[Cell], rng: &mut Rng) -> Cell {
    let c = &model[rng.below(model.len() as u64) as usize];
    match rng.below(6) {
        0 => c.clone(),
        1 => Cell::first_on_row(c.row_bytes()),
        2 => Cell::first_on_column(c.row_bytes(), c.family_bytes(), c.qualifier_bytes()),
        3 => Cell::last_on_column(c.row_bytes(), c.family_bytes(), c.qualifier_bytes()),
        4 => Cell::first_on_row(Bytes::from([c.row(), b"\x00"].concat())),
        _ => Cell::first_on_row(Bytes::from(format!("row{}", rng.below(400)))),
    }
}

fn check_random_seeks(cells: &[Cell], reader: &Arc<HFileReader>, seed: u64, rounds: usize) {
    let mut rng = Rng(seed);
    let mut s = reader.scanner(true);
    for round in 0..rounds {
        let key = seek_key(cells, &mut rng);
        s.seek(&key).expect("seek");
        expect_at(
            &mut s,
            cells,
            model_seek(cells, &key),
            &format!("round {round} seek {key:?}"),
        );
        let row = key.row_bytes();
        s.seek_to_previous_row(&row).expect("previous row");
        match model_previous_row(cells, &row) {
            Some(at) => expect_at(
                &mut s,
                cells,
                at,
                &format!("round {round} previous of {row:?}"),
            ),
            None => assert_eq!(s.peek(), None, "round {round}: nothing before {row:?}"),
        }
    }
    s.seek_to_last_row().expect("last row");
    let last_row = &cells[cells.len() - 1].row();
    expect_at(
        &mut s,
        cells,
        cells.partition_point(|c| c.row() < *last_row),
        "last row",
    );
}

#[test]
fn random_seeks_match_the_model() {
    let cells = varied_cells(1500, 11);
    for encoding in [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndexV1,
    ] {
        let reader = reader_for(&cells, 2048, encoding);
        check_random_seeks(&cells, &reader, 5, 400);
    }
}

#[test]
fn multi_level_index_with_tiny_blocks() {
    let cells = varied_cells(1200, 12);
    for encoding in [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndexV1,
    ] {
        let reader = reader_for(&cells, 64, encoding);
        let info = reader.info();
        assert!(info.index_levels >= 3, "{} levels", info.index_levels);
        assert!(
            info.data_block_count as usize > cells.len() / 3,
            "{} blocks",
            info.data_block_count
        );
        check_random_seeks(&cells, &reader, 6, 300);
    }
}

#[test]
fn walking_backwards_row_by_row_visits_every_row() {
    let cells = varied_cells(800, 13);
    let reader = reader_for(&cells, 512, DataBlockEncoding::Prefix);
    let mut rows: Vec<Bytes> = cells.iter().map(|c| c.row_bytes()).collect();
    rows.dedup();
    let mut s = reader.scanner(false);
    s.seek_to_last_row().expect("last");
    let mut seen = Vec::new();
    while let Some(c) = s.peek() {
        let row = c.row_bytes();
        seen.push(row.clone());
        s.seek_to_previous_row(&row).expect("previous");
    }
    seen.reverse();
    assert_eq!(seen, rows);
}

#[test]
fn forward_reseeks_within_a_block_and_backward_seeks() {
    let cells = varied_cells(600, 14);
    let reader = reader_for(&cells, 1 << 16, DataBlockEncoding::None);
    let mut s = reader.scanner(true);
    for i in (0..cells.len()).step_by(7) {
        s.seek(&cells[i]).expect("forward");
        assert_eq!(s.peek(), Some(&cells[model_seek(&cells, &cells[i])]));
    }
    for i in (0..cells.len()).rev().step_by(5) {
        s.seek(&cells[i]).expect("backward");
        assert_eq!(s.peek(), Some(&cells[model_seek(&cells, &cells[i])]));
    }
    let past = Cell::first_on_row(Bytes::from_static(b"zzz"));
    s.seek(&past).expect("past the end");
    assert_eq!(s.peek(), None);
    s.advance().expect("advancing when exhausted is a no-op");
    s.seek(&Cell::first_on_row(Bytes::new()))
        .expect("to the start");
    assert_eq!(s.peek(), Some(&cells[0]));
}

#[test]
fn cells_share_the_block_buffer() {
    let cells = varied_cells(50, 15);
    for encoding in [DataBlockEncoding::None, DataBlockEncoding::RowIndexV1] {
        let reader = reader_for(&cells, 1 << 16, encoding);
        let mut s = reader.scanner(true);
        s.seek_to_first().expect("first");
        let a = s.peek().expect("a").clone();
        s.advance().expect("advance");
        let b = s.peek().expect("b").clone();
        // Both rows point into the same decoded block, a fixed distance apart.
        let (pa, pb) = (a.row().as_ptr() as usize, b.row().as_ptr() as usize);
        assert!(
            pb > pa && pb - pa < 1 << 16,
            "{encoding:?}: rows at {pa:#x} and {pb:#x}"
        );
    }
}

fn arb_cells() -> impl Strategy<Value = Vec<Cell>> {
    let cell = (
        0u8..12,
        0u8..2,
        0u8..4,
        0i64..6,
        0usize..4,
        0u64..3,
        0usize..40,
    )
        .prop_map(|(row, fam, q, ts, t, seq, vlen)| {
            let types = [
                basalt_types::CellType::Put,
                basalt_types::CellType::Delete,
                basalt_types::CellType::DeleteColumn,
                basalt_types::CellType::DeleteFamily,
            ];
            let mut c = Cell::marker(
                format!("r{row}"),
                ["a", "b"][fam as usize],
                "q".repeat(q as usize),
                ts,
                types[t],
            )
            .with_seq(seq);
            c.set_value(vec![b'v'; vlen]);
            c
        });
    proptest::collection::vec(cell, 1..120).prop_map(crate::hfile_common::sort_dedup)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn scanner_matches_the_model(
        cells in arb_cells(),
        block in prop_oneof![Just(48u32), Just(200), Just(4096)],
        encoding in prop_oneof![
            Just(DataBlockEncoding::None),
            Just(DataBlockEncoding::Prefix),
            Just(DataBlockEncoding::Diff),
            Just(DataBlockEncoding::FastDiff),
            Just(DataBlockEncoding::RowIndexV1),
        ],
        seeds in proptest::collection::vec(any::<u64>(), 1..20),
    ) {
        let reader = reader_for(&cells, block, encoding);
        let mut s = reader.scanner(true);
        for seed in seeds {
            let mut rng = Rng(seed);
            let key = seek_key(&cells, &mut rng);
            s.seek(&key).expect("seek");
            let at = model_seek(&cells, &key);
            prop_assert_eq!(s.peek(), cells.get(at));
            if rng.below(2) == 0 {
                s.seek_to_previous_row(key.row()).expect("previous");
                prop_assert_eq!(s.peek(), model_previous_row(&cells, key.row()).and_then(|i| cells.get(i)));
            } else {
                s.advance().expect("advance");
                prop_assert_eq!(s.peek(), cells.get(at + 1));
            }
        }
    }
}
