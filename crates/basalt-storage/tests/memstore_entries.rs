//! A memstore keeps each cell as an encoded entry in an arena chunk (`memstore::entry`,
//! `memstore::arena`). Whatever order cells arrive in, a segment must hand back exactly
//! the cells written, in cell order (the last write of an identical key replacing the
//! earlier one), each indistinguishable from the owned cell it was made from; and the
//! chunks of a dropped segment must serve the next one once no cell of theirs is held.

use basalt_storage::memstore::{ChunkPool, Segment};
use basalt_types::cell::{compare_keys, KeyOrdered};
use basalt_types::{Cell, CellType};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

fn arb_cell() -> impl Strategy<Value = Cell> {
    let types = prop_oneof![
        Just(CellType::Put),
        Just(CellType::Delete),
        Just(CellType::DeleteColumn),
        Just(CellType::DeleteFamily),
        Just(CellType::DeleteFamilyVersion),
    ];
    (
        prop::collection::vec(0u8..4, 0..6),
        prop_oneof![Just(&b"f"[..]), Just(&b"family-two"[..]), Just(&b""[..])],
        prop::collection::vec(0u8..3, 0..4),
        prop_oneof![any::<i64>(), 0i64..3],
        types,
        0u64..4,
        prop::collection::vec(any::<u8>(), 0..64),
        any::<Option<u64>>(),
    )
        .prop_map(|(row, family, qualifier, ts, t, seq, value, ttl)| {
            Cell::new(row, family, qualifier, ts, t, value)
                .with_seq(seq)
                .with_ttl_ms(ttl)
        })
}

fn hash(cell: &Cell) -> u64 {
    let mut h = DefaultHasher::new();
    cell.hash(&mut h);
    h.finish()
}

fn all_cells(segment: &Segment) -> Vec<Cell> {
    let mut out = Vec::new();
    segment
        .try_for_each(|cell| {
            out.push(cell.clone());
            Ok::<_, ()>(())
        })
        .expect("never fails");
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn cells_inserted_in_any_order_read_back_in_cell_order_as_written(
        cells in prop::collection::vec(arb_cell(), 1..200),
        probes in prop::collection::vec(any::<prop::sample::Index>(), 1..8),
    ) {
        let segment = Segment::default();
        // The model: the last write of each key.
        let mut model = BTreeMap::new();
        for cell in &cells {
            segment.insert(cell.clone());
            model.insert(KeyOrdered(cell.clone()), cell.clone());
        }
        let expected: Vec<Cell> = model.into_values().collect();
        let read = all_cells(&segment);
        prop_assert_eq!(read.len(), expected.len());
        prop_assert_eq!(segment.len(), expected.len());
        for (got, owned) in read.iter().zip(&expected) {
            prop_assert_eq!(got, owned);
            prop_assert_eq!(format!("{got:?}"), format!("{owned:?}"));
            prop_assert_eq!(hash(got), hash(owned));
            prop_assert_eq!(&got.row_bytes()[..], owned.row());
            prop_assert_eq!(&got.value_bytes()[..], owned.value());
            prop_assert_eq!(got.ttl_ms(), owned.ttl_ms());
        }
        prop_assert!(read.windows(2).all(|w| compare_keys(&w[0], &w[1]).is_lt()));
        prop_assert_eq!(segment.last(), expected.last().cloned());
        for probe in probes {
            let at = probe.index(expected.len());
            let mut after = Vec::new();
            segment.read_from(&expected[at], false, 3, &mut after);
            let want: Vec<Cell> = expected[at + 1..].iter().take(3).cloned().collect();
            prop_assert_eq!(after, want);
            let before = segment.last_before(&expected[at]);
            prop_assert_eq!(before, at.checked_sub(1).map(|i| expected[i].clone()));
        }
    }
}

#[test]
fn a_dropped_segments_chunk_serves_the_next_segment_once_its_cells_are_gone() {
    let pool = Arc::new(ChunkPool::default());
    let cell = |i: u32| Cell::put(format!("row{i:04}"), "f", "q", 1, vec![b'v'; 100]).with_seq(1);
    // Where the segment's first cell lies: its chunk's first entry.
    let chunk_start = |segment: &Segment| {
        let mut out = Vec::new();
        segment.read_from(&Cell::first_on_row(""), true, 1, &mut out);
        out[0].row_bytes().as_ptr() as usize
    };

    let first = Segment::with_pool(pool.clone());
    (0..1000).for_each(|i| {
        first.insert(cell(i));
    });
    let first_chunk = chunk_start(&first);
    // A reader still holds a cell of the first segment when it goes.
    let held = all_cells(&first).swap_remove(500);
    drop(first);
    assert_eq!(pool.idle_chunks(), 1, "the chunk went back to the pool");

    let second = Segment::with_pool(pool.clone());
    second.insert(cell(0));
    assert_ne!(
        chunk_start(&second),
        first_chunk,
        "a chunk a reader still holds a cell of is not written over"
    );
    assert_eq!(held, cell(500), "the held cell is intact");
    drop(held);
    drop(second);

    let third = Segment::with_pool(pool.clone());
    third.insert(cell(7));
    assert_eq!(
        chunk_start(&third),
        first_chunk,
        "the first chunk, free now, is reused"
    );
    assert_eq!(pool.idle_chunks(), 1, "the second segment's chunk waits");
    assert_eq!(all_cells(&third), vec![cell(7)]);
}
