//! Any cells the layout can hold come back from their block unchanged, in order: rows,
//! families, qualifiers and values of any bytes (empty ones too), every cell type, any
//! timestamp, sequence id and TTL.

use basalt_proto::cellblock;
use basalt_types::{Cell, CellType};
use bytes::Bytes;
use proptest::prelude::*;

fn bytes(max: usize) -> impl Strategy<Value = Bytes> {
    prop::collection::vec(any::<u8>(), 0..max).prop_map(Bytes::from)
}

fn cells() -> impl Strategy<Value = Vec<Cell>> {
    let types = prop::sample::select(vec![
        CellType::Minimum,
        CellType::Put,
        CellType::Delete,
        CellType::DeleteFamilyVersion,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
        CellType::Maximum,
    ]);
    let seq = prop_oneof![Just(0u64), any::<u64>()];
    let cell = (
        bytes(40),
        bytes(10),
        bytes(20),
        any::<i64>(),
        types,
        seq,
        bytes(60),
        any::<Option<u64>>(),
    );
    let cell = cell.prop_map(
        |(row, family, qualifier, timestamp, cell_type, seq_id, value, ttl_ms)| {
            Cell::new(row, family, qualifier, timestamp, cell_type, value)
                .with_seq(seq_id)
                .with_ttl_ms(ttl_ms)
        },
    );
    prop::collection::vec(cell, 0..12)
}

proptest! {
    #[test]
    fn cells_round_trip(cells in cells()) {
        let block = cellblock::encode(&cells).expect("every generated cell fits");
        prop_assert_eq!(cellblock::decode(&block).expect("a block we wrote"), cells);
    }

    #[test]
    fn cells_without_seq_or_ttl_carry_no_tags(cells in cells()) {
        let plain: Vec<Cell> = cells
            .into_iter()
            .map(|c| c.with_seq(0).with_ttl_ms(None))
            .collect();
        let block = cellblock::encode(&plain).expect("fits");
        let key_and_value: usize = plain
            .iter()
            .map(|c| 4 + 8 + 12 + c.row().len() + c.family().len() + c.qualifier().len() + c.value().len())
            .sum();
        prop_assert_eq!(block.len(), key_and_value);
    }
}
