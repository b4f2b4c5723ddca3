//! Row results over the wire, per-cell protobuf messages against one cell block: the time
//! to build the message, encode it, decode it and convert it back, for rows like a YCSB
//! record (ten 100-byte values under a 23-byte row key).
//!
//! `cargo run --release -p basalt-proto --example cellblock_bench [ROWS]`

use basalt_proto::convert::cell::{decode_cell, encode_cell};
use basalt_proto::pb;
use basalt_types::{Cell, RowResult};
use bytes::Bytes;
use prost::Message;
use std::time::{Duration, Instant};

fn rows(count: usize) -> Vec<RowResult> {
    (0..count)
        .map(|i| {
            let row = Bytes::from(format!("user{:019}", i * 7919));
            RowResult::new(
                (0..10)
                    .map(|f| {
                        let value = Bytes::from(vec![b'a' + f as u8; 100]);
                        Cell::put(
                            row.clone(),
                            "family",
                            format!("field{f}"),
                            1_700_000_000_000,
                            value,
                        )
                        .with_seq(i as u64 + 1)
                    })
                    .collect(),
            )
        })
        .collect()
}

/// The per-cell form, as every row result was sent before cell blocks.
fn per_cell(r: &RowResult) -> pb::RowResult {
    let row = r.row_bytes().unwrap_or_default();
    pb::RowResult {
        cells: r.cells.iter().map(|c| encode_cell(c, &row)).collect(),
        row,
        exists: r.exists,
        partial: r.partial,
        cell_block: Bytes::new(),
    }
}

fn per_cell_back(r: pb::RowResult) -> RowResult {
    let cells = r
        .cells
        .into_iter()
        .map(|c| decode_cell(c, &r.row).expect("valid"))
        .collect();
    RowResult::new(cells)
}

fn run(
    rows: &[RowResult],
    to_wire: impl Fn(&RowResult) -> pb::RowResult,
    back: impl Fn(pb::RowResult) -> RowResult,
) -> (Duration, usize) {
    let start = Instant::now();
    let mut bytes = 0;
    for r in rows {
        let wire = Bytes::from(to_wire(r).encode_to_vec());
        bytes += wire.len();
        let decoded = back(pb::RowResult::decode(wire).expect("decodes"));
        assert_eq!(decoded.cells.len(), r.cells.len());
    }
    (start.elapsed(), bytes)
}

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50_000);
    let rows = rows(count);
    for round in 0..3 {
        let (t_cells, b_cells) = run(&rows, per_cell, per_cell_back);
        let (t_block, b_block) = run(&rows, basalt_proto::convert::cell::encode_row_result, |r| {
            RowResult::try_from(r).expect("valid")
        });
        println!(
            "round {round}: {count} rows of 10 cells: per-cell {:?} ({} bytes), cell block {:?} ({} bytes), {:.2}x",
            t_cells,
            b_cells,
            t_block,
            b_block,
            t_cells.as_secs_f64() / t_block.as_secs_f64()
        );
    }
}
