//! Filters run inside the region scanner and seek: a selective filter over a large table
//! reads few blocks, and PageFilter / WhileMatchFilter end the scan early. Block reads are
//! counted through the block cache (every data block read is a cache hit or a miss).

use crate::support;

use basalt_storage::StorageConfig;
use basalt_types::filter_spec::{Comparator, CompareSpec, FuzzyKey, RowRange};
use basalt_types::{CompareOp, Durability, FilterSpec, Put, Scan};
use bytes::Bytes;
use support::*;

const ROWS: usize = 20_000;

/// A flushed table of `ROWS` rows in small blocks; returns the engine, region and the
/// number of data blocks a full scan reads.
fn loaded() -> (
    tempfile::TempDir,
    std::sync::Arc<basalt_storage::Engine>,
    std::sync::Arc<basalt_storage::Region>,
    u64,
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), StorageConfig::default());
    let mut t = table(&["cf"]);
    t.families[0].block_size_bytes = 4096;
    let region = open_region(&engine, t);
    for i in 0..ROWS {
        let put = Put::new(format!("row{i:06}"))
            .add("cf", "q", format!("value{i}"))
            .durability(Durability::SkipWal);
        region.put(&put).expect("put");
    }
    region.flush().expect("flush");
    let full = blocks_read(&engine, || {
        assert_eq!(scan_all(&region, &Scan::new()).len(), ROWS)
    });
    (dir, engine, region, full)
}

fn blocks_read(engine: &basalt_storage::Engine, run: impl FnOnce()) -> u64 {
    let before = engine.context().cache.stats();
    run();
    let after = engine.context().cache.stats();
    (after.hits + after.misses) - (before.hits + before.misses)
}

fn rows(region: &basalt_storage::Region, filter: FilterSpec) -> Vec<String> {
    scan_all(region, &Scan::new().filter(filter))
        .iter()
        .map(|r| String::from_utf8_lossy(r.row().expect("row")).into_owned())
        .collect()
}

#[test]
fn selective_filters_seek_instead_of_reading_everything() {
    let (_dir, engine, region, full) = loaded();
    assert!(full > 100, "the table spans many blocks ({full})");
    let ranges = FilterSpec::MultiRowRange(vec![RowRange {
        start: Bytes::from_static(b"row010000"),
        start_inclusive: true,
        stop: Bytes::from_static(b"row010005"),
        stop_inclusive: false,
    }]);
    let read = blocks_read(&engine, || {
        assert_eq!(rows(&region, ranges.clone()).len(), 5)
    });
    assert!(
        read * 20 < full,
        "MultiRowRangeFilter read {read} of {full} blocks"
    );

    let prefix = FilterSpec::Prefix(Bytes::from_static(b"row0150"));
    let read = blocks_read(&engine, || {
        assert_eq!(rows(&region, prefix.clone()).len(), 100)
    });
    assert!(
        read * 20 < full,
        "PrefixFilter read {read} of {full} blocks"
    );

    // row01?777: the fixed part is row01, the mask lets one byte vary.
    let fuzzy = FilterSpec::FuzzyRow(vec![FuzzyKey {
        key: Bytes::from_static(b"row01\x00777"),
        mask: Bytes::from_static(&[0, 0, 0, 0, 0, 1, 0, 0, 0]),
    }]);
    let read = blocks_read(&engine, || {
        assert_eq!(rows(&region, fuzzy.clone()).len(), 10)
    });
    assert!(
        read * 4 < full,
        "FuzzyRowFilter read {read} of {full} blocks"
    );
}

#[test]
fn page_and_while_match_end_the_scan_early() {
    let (_dir, engine, region, full) = loaded();
    let read = blocks_read(&engine, || {
        assert_eq!(rows(&region, FilterSpec::Page(3)).len(), 3)
    });
    assert!(read * 20 < full, "PageFilter read {read} of {full} blocks");
    let stop = FilterSpec::WhileMatch(Box::new(FilterSpec::Row(CompareSpec {
        op: CompareOp::Less,
        comparator: Comparator::Binary(Bytes::from_static(b"row000010")),
    })));
    let read = blocks_read(&engine, || {
        assert_eq!(rows(&region, stop.clone()).len(), 10)
    });
    assert!(
        read * 20 < full,
        "WhileMatchFilter read {read} of {full} blocks"
    );
}
