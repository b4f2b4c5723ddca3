//! Whatever bytes a peer sends as a cell block, decoding gives cells or an error, never a
//! panic: random bytes, and every truncation and every single-bit flip of valid blocks.

use basalt_proto::cellblock::{self, CellBlockError};
use basalt_types::Cell;
use bytes::Bytes;
use proptest::prelude::*;

fn valid_block() -> impl Strategy<Value = (Vec<Cell>, Bytes)> {
    let cell = (
        prop::collection::vec(any::<u8>(), 0..12),
        prop::collection::vec(any::<u8>(), 0..4),
        prop::collection::vec(any::<u8>(), 0..6),
        any::<i64>(),
        any::<u64>(),
        prop::collection::vec(any::<u8>(), 0..10),
        any::<Option<u64>>(),
    )
        .prop_map(|(row, family, qualifier, ts, seq, value, ttl)| {
            Cell::put(row, family, qualifier, ts, value)
                .with_seq(seq)
                .with_ttl_ms(ttl)
        });
    prop::collection::vec(cell, 1..4).prop_map(|cells| {
        let block = cellblock::encode(&cells).expect("fits");
        (cells, block)
    })
}

/// An error must point inside the block (or at its end, for what is missing).
fn check(block: &Bytes) -> Result<Vec<Cell>, CellBlockError> {
    let result = cellblock::decode(block);
    if let Err(CellBlockError::Damaged { offset, .. }) = &result {
        assert!(
            *offset <= block.len(),
            "offset {offset} past {} bytes",
            block.len()
        );
    }
    result
}

proptest! {
    #[test]
    fn random_bytes_decode_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = check(&Bytes::from(bytes));
    }

    #[test]
    fn a_truncated_block_fails_or_holds_whole_cells((cells, block) in valid_block()) {
        for len in 0..block.len() {
            match check(&block.slice(..len)) {
                // Cut between cells: the cells before the cut, unchanged.
                Ok(got) => prop_assert_eq!(&got[..], &cells[..got.len()]),
                Err(e) => {
                    let damaged = matches!(e, CellBlockError::Damaged { .. });
                    prop_assert!(damaged, "{}", e);
                }
            }
        }
    }

    #[test]
    fn a_flipped_bit_decodes_or_fails((_cells, block) in valid_block()) {
        for bit in 0..block.len() * 8 {
            let mut bytes = block.to_vec();
            bytes[bit / 8] ^= 1 << (bit % 8);
            let _ = check(&Bytes::from(bytes));
        }
    }
}
