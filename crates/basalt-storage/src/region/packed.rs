//! A Put's cells copied into one buffer before they go to the memstore.
//!
//! A Put's cells each arrive in a buffer of their own (each with its copy of the row), or
//! as slices of a request buffer much larger than the Put, which a memstore cell must not
//! pin. Copying the Put once into one buffer costs a memcpy of its bytes and two
//! allocations, keeps a row's cells side by side in memory, stores the row once, and lets
//! the caller's buffers go as soon as the write returns. Every cell is the whole buffer
//! with its own offsets (a [`CellLayout`]), so reading one back costs one reference count.
//!
//! | buffer bytes | row | family | qualifier | value | family | qualifier | value | ... |
//! |--------------|-----|--------|-----------|-------|--------|-----------|-------|-----|
//! | read by      | every cell | cell 0 | cell 0 | cell 0 | cell 1 | cell 1 | cell 1 | |

use basalt_types::cell::CellLayout;
use basalt_types::{Cell, Put};
use bytes::Bytes;

/// The cells of `put`, their bytes copied into one shared buffer; every other field
/// (timestamp, type, sequence id, TTL) as the Put holds it.
pub(super) fn packed_cells(put: &Put) -> Vec<Cell> {
    let total = put.row.len()
        + put
            .cells
            .iter()
            .map(|c| c.family().len() + c.qualifier().len() + c.value().len())
            .sum::<usize>();
    let mut buf = Vec::with_capacity(total);
    buf.extend_from_slice(&put.row);
    for cell in &put.cells {
        buf.extend_from_slice(cell.family());
        buf.extend_from_slice(cell.qualifier());
        buf.extend_from_slice(cell.value());
    }
    let buf = Bytes::from(buf);
    let mut at = put.row.len();
    put.cells
        .iter()
        .map(|cell| {
            let (f, q, v) = (
                cell.family().len(),
                cell.qualifier().len(),
                cell.value().len(),
            );
            let layout = CellLayout {
                row_len: put.row.len(),
                family_at: at,
                family_len: f,
                qualifier_at: at + f,
                qualifier_len: q,
                value_at: at + f + q,
                value_len: v,
            };
            at += f + q + v;
            Cell::in_buffer(buf.clone(), layout, cell.timestamp(), cell.cell_type())
                .expect("the layout of the bytes just written")
                .with_seq(cell.seq_id())
                .with_ttl_ms(cell.ttl_ms())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_keep_their_bytes_and_share_one_buffer() {
        let put = Put::new("row-1")
            .add("cf", "a", "first value")
            .add_at("cf", "", 7, "")
            .add("other", "qualifier-b", vec![0u8, 1, 2]);
        let packed = packed_cells(&put);
        assert_eq!(packed, put.cells);
        let span = |b: &Bytes| b.as_ptr() as usize..b.as_ptr() as usize + b.len();
        let row = span(&packed[0].row_bytes());
        let end = packed
            .iter()
            .flat_map(|c| [c.family_bytes(), c.qualifier_bytes(), c.value_bytes()])
            .filter(|b| !b.is_empty())
            .map(|b| {
                let part = span(&b);
                assert!(part.start >= row.end, "{part:?} before the row {row:?}");
                part.end
            })
            .max()
            .expect("non-empty parts");
        assert_eq!(end - row.start, 5 + 2 + 1 + 11 + 2 + 5 + 11 + 3);
    }

    #[test]
    fn an_empty_put_packs_to_nothing() {
        assert!(packed_cells(&Put::new("r")).is_empty());
    }
}
