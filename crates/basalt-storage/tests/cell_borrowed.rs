//! Cells read from a store file are slices of its blocks (one shared buffer per cell,
//! with the block's length fields between the parts), or, for the delta encodings, their
//! rebuilt key and value side by side in an arena. Whatever the layout, a borrowed cell
//! must be indistinguishable from the owned cell that was written: equal, ordered, hashed
//! and printed alike, and handing out the same bytes.

use crate::hfile_common::{open, scan_all, sort_dedup, write, Mem, MemFs};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::WriterOptions;
use basalt_types::cell::compare_keys;
use basalt_types::{Cell, CellType, DataBlockEncoding};
use proptest::prelude::*;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

fn arb_cells() -> impl Strategy<Value = Vec<Cell>> {
    let types = prop_oneof![
        Just(CellType::Put),
        Just(CellType::Delete),
        Just(CellType::DeleteColumn),
        Just(CellType::DeleteFamily),
        Just(CellType::DeleteFamilyVersion),
    ];
    let cell = (
        prop::collection::vec(any::<u8>(), 0..24),
        prop_oneof![Just(&b"f"[..]), Just(&b"family-two"[..]), Just(&b""[..])],
        prop::collection::vec(any::<u8>(), 0..40),
        any::<i64>(),
        types,
        any::<u64>(),
        prop::collection::vec(any::<u8>(), 0..120),
        any::<Option<u64>>(),
    )
        .prop_map(|(row, family, qualifier, ts, t, seq, value, ttl)| {
            Cell::new(row, family, qualifier, ts, t, value)
                .with_seq(seq)
                .with_ttl_ms(ttl)
        });
    prop::collection::vec(cell, 1..150).prop_map(sort_dedup)
}

fn hash(cell: &Cell) -> u64 {
    let mut h = DefaultHasher::new();
    cell.hash(&mut h);
    h.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn borrowed_cells_behave_as_the_owned_cells_written(
        cells in arb_cells(),
        block in prop_oneof![Just(64u32), Just(512), Just(4096)],
        encoding in prop_oneof![
            Just(DataBlockEncoding::None),
            Just(DataBlockEncoding::Prefix),
            Just(DataBlockEncoding::Diff),
            Just(DataBlockEncoding::FastDiff),
            Just(DataBlockEncoding::RowIndexV1),
        ],
    ) {
        let fs = Mem(MemFs::new());
        let path = Path::new("/t/borrowed");
        let opts = WriterOptions { encoding, block_size_bytes: block, ..WriterOptions::default() };
        write(&fs, path, &cells, opts);
        let reader = open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect("open");
        let read = scan_all(&reader).expect("scan");
        prop_assert_eq!(read.len(), cells.len());
        for (got, owned) in read.iter().zip(&cells) {
            prop_assert_eq!(got, owned);
            prop_assert_eq!(format!("{got:?}"), format!("{owned:?}"));
            prop_assert_eq!(hash(got), hash(owned));
            prop_assert_eq!(got.row(), owned.row());
            prop_assert_eq!(got.family(), owned.family());
            prop_assert_eq!(got.qualifier(), owned.qualifier());
            prop_assert_eq!(got.value(), owned.value());
            prop_assert_eq!(&got.row_bytes()[..], owned.row());
            prop_assert_eq!(&got.family_bytes()[..], owned.family());
            prop_assert_eq!(&got.qualifier_bytes()[..], owned.qualifier());
            prop_assert_eq!(&got.value_bytes()[..], owned.value());
            prop_assert_eq!(got.clone().into_value(), owned.value_bytes());
            prop_assert!(got.same_column(owned));
            prop_assert!(compare_keys(got, owned).is_eq());
        }
        for pair in read.windows(2) {
            prop_assert!(compare_keys(&pair[0], &pair[1]).is_lt(), "{:?}", pair);
        }
        // A value replaced on a borrowed cell leaves its key and the others' bytes alone.
        if let Some(first) = read.first() {
            let changed = first.clone().with_value("replaced");
            prop_assert_eq!(changed.value(), b"replaced");
            prop_assert!(compare_keys(&changed, first).is_eq());
            prop_assert_eq!(first, &cells[0]);
        }
    }
}
