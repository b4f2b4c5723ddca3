//! The memstore's skiplist against a `BTreeMap` model: any sequence of inserts from a
//! small key space (so identical keys are frequent, each with its own value), then every
//! kind of lookup a cursor makes — from a key inclusive or exclusive, the greatest cell
//! before a key, the last cell — at keys present and absent. The later insert of an
//! identical key must be the one seen, and `len` must count keys, not inserts.

use crate::support::segment_cells;
use basalt_storage::memstore::Segment;
use basalt_types::cell::KeyOrdered;
use basalt_types::{Cell, CellType};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;

/// A key from a space of a few hundred, rows sharing long prefixes past 16 bytes.
fn arb_key() -> impl Strategy<Value = Cell> {
    (
        prop_oneof![
            Just(String::new()),
            Just("a".to_owned()),
            Just("a\0".to_owned()),
            Just("user0000000000000001".to_owned()),
            Just("user0000000000000001x".to_owned()),
            Just("user0000000000000002".to_owned()),
        ],
        prop_oneof![Just("f"), Just("ff")],
        prop_oneof![Just(""), Just("q")],
        0i64..3,
        prop_oneof![Just(CellType::Put), Just(CellType::DeleteColumn)],
        0u64..2,
    )
        .prop_map(|(row, family, qualifier, ts, t, seq)| {
            Cell::new(row, family, qualifier, ts, t, "").with_seq(seq)
        })
}

fn with_value(key: &Cell, value: Vec<u8>) -> Cell {
    Cell::new(
        key.row(),
        key.family(),
        key.qualifier(),
        key.timestamp(),
        key.cell_type(),
        value,
    )
    .with_seq(key.seq_id())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn the_skiplist_answers_as_a_sorted_map_with_the_last_write_winning(
        inserts in prop::collection::vec((arb_key(), prop::collection::vec(any::<u8>(), 0..24)), 1..160),
        probes in prop::collection::vec((arb_key(), any::<bool>(), 1usize..6), 1..12),
    ) {
        let segment = Segment::default();
        let mut model = BTreeMap::new();
        for (i, (key, value)) in inserts.iter().enumerate() {
            let mut value = value.clone();
            value.extend_from_slice(&(i as u32).to_be_bytes());
            let cell = with_value(key, value);
            segment.insert(cell.clone());
            model.insert(KeyOrdered(cell.clone()), cell);
        }
        prop_assert_eq!(segment.len(), model.len());
        let expected: Vec<Cell> = model.values().cloned().collect();
        prop_assert_eq!(segment_cells(&segment), expected.clone());
        prop_assert_eq!(segment.last(), expected.last().cloned());
        for (probe, inclusive, max) in probes {
            let key = KeyOrdered(probe.clone());
            let lower = if inclusive { Bound::Included(&key) } else { Bound::Excluded(&key) };
            let want: Vec<Cell> = model
                .range((lower, Bound::Unbounded))
                .take(max)
                .map(|(_, c)| c.clone())
                .collect();
            let mut got = Vec::new();
            segment.read_from(&probe, inclusive, max, &mut got);
            prop_assert_eq!(got, want);
            let before = model.range(..&key).next_back().map(|(_, c)| c.clone());
            prop_assert_eq!(segment.last_before(&probe), before);
        }
    }
}
