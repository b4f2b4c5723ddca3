//! Bloom filters never deny a key the file holds, and say "maybe" to absent keys at about
//! the configured rate.

use crate::hfile_common::{open, write, Mem, MemFs};
use basalt_storage::block_cache::BlockCache;
use basalt_storage::hfile::WriterOptions;
use basalt_types::{BloomType, Cell};
use std::path::Path;
use std::sync::Arc;

fn file(
    bloom: BloomType,
    rate: f64,
    rows: usize,
) -> (Arc<basalt_storage::hfile::HFileReader>, Vec<Cell>) {
    let cells: Vec<Cell> = (0..rows)
        .flat_map(|r| {
            (0..2).map(move |q| Cell::put(format!("row-{r:06}"), "cf", format!("q{q}"), 1, "v"))
        })
        .collect();
    let fs = Mem(MemFs::new());
    let path = Path::new("/t/bloom");
    let opts = WriterOptions {
        bloom,
        bloom_false_positive_rate: rate,
        ..WriterOptions::default()
    };
    write(&fs, path, &cells, opts);
    (
        open(&fs, path, &Arc::new(BlockCache::new(1 << 20))).expect("open"),
        cells,
    )
}

fn absent_rate(probe: impl Fn(&[u8]) -> bool) -> f64 {
    let trials = 20_000;
    let hits = (0..trials)
        .filter(|i| probe(format!("absent-{i}").as_bytes()))
        .count();
    hits as f64 / trials as f64
}

#[test]
fn row_bloom_has_no_false_negatives_and_about_the_configured_rate() {
    for rate in [0.01, 0.05] {
        let (reader, cells) = file(BloomType::Row, rate, 5000);
        assert!(cells.iter().all(|c| reader.might_contain_row(c.row())));
        let measured = absent_rate(|row| reader.might_contain_row(row));
        assert!(
            measured < rate * 1.6 && measured > rate / 4.0,
            "rate {rate}: measured {measured}"
        );
        // Without a column bloom, the column question falls back to the row.
        assert!(reader.might_contain_column(cells[0].row(), b"cf", b"nope"));
    }
}

#[test]
fn rowcol_bloom_answers_rows_and_columns() {
    let (reader, cells) = file(BloomType::RowCol, 0.01, 3000);
    for c in &cells {
        assert!(reader.might_contain_row(c.row()));
        assert!(reader.might_contain_column(c.row(), c.family(), c.qualifier()));
    }
    let rows = absent_rate(|row| reader.might_contain_row(row));
    let columns = absent_rate(|q| reader.might_contain_column(b"row-000001", b"cf", q));
    assert!(rows < 0.016, "rows {rows}");
    assert!(columns < 0.016 && columns > 0.001, "columns {columns}");
}

#[test]
fn no_bloom_always_says_maybe() {
    let (reader, _) = file(BloomType::None, 0.01, 10);
    assert!(reader.might_contain_row(b"absent"));
    assert!(reader.might_contain_column(b"absent", b"cf", b"q"));
}
