//! A reference's cursor shows exactly its half of the source file: random seeks, steps and
//! reversed-scan moves at and around the split row, checked against a sorted `Vec` model
//! of the cells in the range, over files of several small blocks.

use crate::hfile_common;

use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::{HFileReader, WriterOptions};
use basalt_storage::scanner::CellSource;
use basalt_storage::store::half::RangeSource;
use basalt_storage::store::reference::RefRange;
use basalt_types::{BloomType, Cell, Compression, DataBlockEncoding};
use bytes::Bytes;
use hfile_common::{model_previous_row, model_seek, open, sort_dedup, write, Mem, MemFs};
use proptest::prelude::*;
use std::path::Path;
use std::sync::Arc;

fn row(i: u8) -> Bytes {
    Bytes::from(format!("r{i:02}"))
}

/// Rows `r00`.. with `1..=4` cells each (two qualifiers, a few versions).
fn cells(cells_per_row: &[u8]) -> Vec<Cell> {
    let mut out = Vec::new();
    for (i, n) in cells_per_row.iter().enumerate() {
        for c in 0..*n {
            let q = if c % 2 == 0 { "a" } else { "b" };
            let value = format!("value-{i}-{c}-{}", "x".repeat(usize::from(c) * 7));
            out.push(Cell::put(row(i as u8), "cf", q, i64::from(c), value).with_seq(1));
        }
    }
    sort_dedup(out)
}

fn reader(cells: &[Cell], encoding: DataBlockEncoding) -> Arc<HFileReader> {
    let fs = Mem(MemFs::new());
    let path = Path::new("/t/half");
    let opts = WriterOptions {
        block_size_bytes: 96,
        encoding,
        compression: Compression::None,
        bloom: BloomType::Row,
        bloom_false_positive_rate: 0.01,
    };
    write(&fs, path, cells, opts);
    open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect("open")
}

#[derive(Debug, Clone)]
enum Move {
    /// To the first cell `>= first_on_row(row)`; `+ "\0"` for `next` (a row not present).
    SeekRow(u8, bool),
    /// To the first cell `>= row/cf:b@ts` (inside a row).
    SeekColumn(u8, i64),
    Advance,
    PreviousRow(u8, bool),
    LastRow,
}

fn moves(rows: u8) -> impl Strategy<Value = Move> {
    let r = 0..rows + 2;
    prop_oneof![
        (r.clone(), any::<bool>()).prop_map(|(r, n)| Move::SeekRow(r, n)),
        (r.clone(), 0i64..4).prop_map(|(r, ts)| Move::SeekColumn(r, ts)),
        Just(Move::Advance),
        Just(Move::Advance),
        (r, any::<bool>()).prop_map(|(r, n)| Move::PreviousRow(r, n)),
        Just(Move::LastRow),
    ]
}

fn row_of(i: u8, next: bool) -> Bytes {
    let mut r = row(i).to_vec();
    if next {
        r.push(0);
    }
    Bytes::from(r)
}

/// Where the model stands after `m` from `at`.
fn model_move(model: &[Cell], at: Option<usize>, m: &Move) -> Option<usize> {
    let found = |i: usize| (i < model.len()).then_some(i);
    match m {
        Move::SeekRow(r, next) => found(model_seek(model, &Cell::first_on_row(row_of(*r, *next)))),
        Move::SeekColumn(r, ts) => {
            let key = Cell::put(row(*r), "cf", "b", *ts, "");
            found(model_seek(model, &key))
        }
        Move::Advance => at.and_then(|i| found(i + 1)),
        Move::PreviousRow(r, next) => model_previous_row(model, &row_of(*r, *next)),
        Move::LastRow => model_previous_row(model, &[0xff]),
    }
}

fn apply(source: &mut dyn CellSource, m: &Move) {
    match m {
        Move::SeekRow(r, next) => source.seek(&Cell::first_on_row(row_of(*r, *next))),
        Move::SeekColumn(r, ts) => source.seek(&Cell::put(row(*r), "cf", "b", *ts, "")),
        Move::Advance => source.advance(),
        Move::PreviousRow(r, next) => source.seek_to_previous_row(&row_of(*r, *next)),
        Move::LastRow => source.seek_to_last_row(),
    }
    .expect("in-memory file reads");
}

fn check(cells_per_row: Vec<u8>, split: u8, split_next: bool, top: bool, path: Vec<Move>) {
    let all = cells(&cells_per_row);
    let split = row_of(split, split_next);
    let range = if top {
        RefRange::Top(split)
    } else {
        RefRange::Bottom(split)
    };
    let model: Vec<Cell> = all
        .iter()
        .filter(|c| range.contains_row(c.row()))
        .cloned()
        .collect();
    for encoding in [
        DataBlockEncoding::None,
        DataBlockEncoding::Prefix,
        DataBlockEncoding::Diff,
        DataBlockEncoding::FastDiff,
        DataBlockEncoding::RowIndexV1,
    ] {
        let reader = reader(&all, encoding);
        let mut half = RangeSource::new(reader.scanner(false), range.clone());
        let mut at = None;
        // A move that needs a position (advance) starts from a seek.
        for m in std::iter::once(&Move::SeekRow(0, false)).chain(&path) {
            apply(&mut half, m);
            at = model_move(&model, at, m);
            let want = at.map(|i| &model[i]);
            assert_eq!(
                half.peek()
                    .map(|c| (c.row_bytes(), c.qualifier_bytes(), c.timestamp())),
                want.map(|c| (c.row_bytes(), c.qualifier_bytes(), c.timestamp())),
                "{range:?} after {m:?}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn half_cursor_matches_the_model(
        cells_per_row in prop::collection::vec(1u8..=4, 1..14),
        split in 0u8..15,
        split_next in any::<bool>(),
        top in any::<bool>(),
        path in prop::collection::vec(moves(14), 1..40),
    ) {
        check(cells_per_row, split, split_next, top, path);
    }
}

/// A full forward walk and a full reversed walk (previous-row steps) of each half.
#[test]
fn halves_partition_the_file_both_ways() {
    let all = cells(&[3, 1, 4, 1, 4, 2, 3, 1, 2, 4, 4, 1]);
    let reader = reader(&all, DataBlockEncoding::Prefix);
    let split = row(5);
    let mut forward = Vec::new();
    let mut reversed_rows = Vec::new();
    for range in [
        RefRange::Bottom(split.clone()),
        RefRange::Top(split.clone()),
    ] {
        let mut half = RangeSource::new(reader.scanner(false), range.clone());
        half.seek(&Cell::first_on_row(Bytes::new())).expect("seek");
        while let Some(c) = half.peek() {
            assert!(range.contains_row(c.row()));
            forward.push(c.clone());
            half.advance().expect("advance");
        }
        half.seek_to_last_row().expect("last row");
        while let Some(c) = half.peek() {
            let r = c.row_bytes();
            reversed_rows.push(r.clone());
            half.seek_to_previous_row(&r).expect("previous row");
        }
    }
    assert_eq!(forward, all);
    let mut rows: Vec<Bytes> = all.iter().map(|c| c.row_bytes()).collect();
    rows.dedup();
    let (low, high): (Vec<Bytes>, Vec<Bytes>) = rows.into_iter().partition(|r| *r < split);
    // The bottom half's rows descending, then the top half's.
    let want: Vec<Bytes> = low
        .into_iter()
        .rev()
        .chain(high.into_iter().rev())
        .collect();
    assert_eq!(reversed_rows, want);
}
