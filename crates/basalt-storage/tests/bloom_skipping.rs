//! Gets skip files by bloom filter: a ROW bloom for the row, a ROWCOL bloom for a one-column
//! get — without ever skipping a file that holds the row's family delete markers.

use crate::support;

use basalt_types::{BloomType, Delete, Get, Put};
use support::*;

fn blocks_read(engine: &basalt_storage::Engine, run: impl FnOnce()) -> u64 {
    let before = engine.context().cache.stats();
    run();
    let after = engine.context().cache.stats();
    (after.hits + after.misses) - (before.hits + before.misses)
}

#[test]
fn a_one_column_get_reads_only_the_file_holding_the_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf"]);
    t.families[0].bloom_filter = BloomType::RowCol;
    t.families[0].max_versions = 10;
    t.compaction_enabled = false; // keep the four files apart
    let region = open_region(&engine, t);
    for q in ["a", "b", "c", "d"] {
        region.put(&Put::new("row").add("cf", q, q)).expect("put");
        region.flush().expect("flush");
    }
    assert_eq!(region.metrics().store_files, 4);
    let get = Get::new("row").column("cf", "c");
    let read = blocks_read(&engine, || {
        assert_eq!(region.get(&get).expect("get").cells.len(), 1)
    });
    assert_eq!(read, 1, "one file of four serves the column");
    let whole_row = blocks_read(&engine, || {
        assert_eq!(region.get(&Get::new("row")).expect("get").cells.len(), 4)
    });
    assert_eq!(whole_row, 4);
}

#[test]
fn a_family_delete_in_another_file_still_masks_a_one_column_get() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf"]);
    t.families[0].bloom_filter = BloomType::RowCol;
    let region = open_region(&engine, t);
    region
        .put(&Put::new("row").add_at("cf", "q", 10, "v"))
        .expect("put");
    region.flush().expect("flush");
    region
        .delete(&Delete::new("row").at(20).family("cf"))
        .expect("delete family");
    region.flush().expect("flush");
    assert!(region
        .get(&Get::new("row").column("cf", "q"))
        .expect("get")
        .is_empty());
}
