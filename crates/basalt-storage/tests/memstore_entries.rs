//! A memstore keeps each cell as an encoded entry in a skiplist node in a chunk of words
//! (`memstore::entry`, `memstore::words`). Whatever order cells arrive in, a segment must
//! hand back exactly the cells written, in cell order (the last write of an identical key
//! replacing the earlier one), each indistinguishable from the owned cell it was made
//! from; and a chunk of a dropped segment, reused by the next one, must show nothing of
//! what it held before.

use crate::support::segment_cells;
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
        let read = segment_cells(&segment);
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
fn a_recycled_chunks_stale_words_never_show() {
    let pool = Arc::new(ChunkPool::default());
    // The first segment fills its chunk with long rows, 0xff values and TTLs: words that
    // would read as other lengths, flags and links if any survived into the next nodes.
    // 8,000 cells of ≈400 bytes: past the small first chunks, into full-size ones.
    let first = Segment::with_pool(pool.clone());
    for i in 0..8000u32 {
        let row = format!("{i:08}-a-long-row-beyond-the-sixteen-byte-prefix");
        let cell = Cell::put(
            row,
            "family",
            "qualifier",
            -1,
            vec![0xff; 300 + i as usize % 7],
        )
        .with_seq(u64::MAX)
        .with_ttl_ms(Some(u64::MAX));
        first.insert(cell);
    }
    drop(first);
    let idle = pool.idle_chunks();
    assert!(
        idle >= 1,
        "the first segment's chunks went back to the pool"
    );

    // The second: short cells of other shapes, in another order, some keys twice.
    let second = Segment::with_pool(pool.clone());
    let mut model = BTreeMap::new();
    for i in 0..5000u32 {
        let n = i.wrapping_mul(2_654_435_761) % 1500;
        let cell = Cell::new(
            format!("r{n}"),
            "f",
            if n % 3 == 0 { "" } else { "q" },
            i64::from(n % 5),
            if n % 4 == 0 {
                CellType::Delete
            } else {
                CellType::Put
            },
            format!("v{i}"),
        )
        .with_seq(u64::from(n % 2));
        second.insert(cell.clone());
        model.insert(KeyOrdered(cell.clone()), cell);
    }
    assert_eq!(
        pool.idle_chunks(),
        idle - 1,
        "the second segment reused a chunk"
    );
    let expected: Vec<Cell> = model.into_values().collect();
    assert_eq!(segment_cells(&second), expected);
    assert_eq!(second.len(), expected.len());
    assert_eq!(second.last(), expected.last().cloned());
    for at in (0..expected.len()).step_by(97) {
        let mut from = Vec::new();
        second.read_from(&expected[at], true, 5, &mut from);
        assert_eq!(from, expected[at..expected.len().min(at + 5)].to_vec());
        let before = at.checked_sub(1).map(|i| expected[i].clone());
        assert_eq!(second.last_before(&expected[at]), before);
    }
}
