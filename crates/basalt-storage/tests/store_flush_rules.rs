//! Flushes and compactions keep what the family's rules keep: the newest `max_versions` of
//! each column, whether the versions to drop are few (stepped over) or many (sought past).

use crate::support;

use basalt_storage::store::{Store, StoreFile};
use basalt_storage::StorageConfig;
use basalt_types::{Cell, CellType, FamilyDescriptor};
use support::{open_engine, show};

/// Every cell of a flushed file, in file order.
fn flushed_cells(store: &Store) -> Vec<String> {
    let snapshot = store.snapshot();
    let file = store
        .write_snapshot(&snapshot, 1)
        .expect("flush writes")
        .expect("something survives");
    file_cells(&file)
}

/// Every cell of `file`, in file order.
fn file_cells(file: &StoreFile) -> Vec<String> {
    let mut source = file.source(false);
    source
        .seek(&Cell::first_on_row(bytes::Bytes::new()))
        .expect("seek");
    let mut cells = Vec::new();
    while let Some(cell) = source.peek() {
        cells.push(show(cell));
        source.advance().expect("advance");
    }
    cells
}

fn store_keeping(dir: &std::path::Path, max_versions: u32) -> (Store, impl Drop) {
    let engine = open_engine(dir, StorageConfig::default());
    let mut family = FamilyDescriptor::new("cf").expect("valid family");
    family.max_versions = max_versions;
    let store =
        Store::open(engine.context().clone(), family, dir.join("store"), &[]).expect("store opens");
    (store, EngineGuard(engine))
}

struct EngineGuard(std::sync::Arc<basalt_storage::Engine>);

impl Drop for EngineGuard {
    fn drop(&mut self) {
        self.0.close().expect("engine closes");
    }
}

#[test]
fn flush_drops_versions_beyond_the_limit_few_or_many() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, _engine) = store_keeping(dir.path(), 2);
    let mut seq = 0;
    let mut put = |row: &str, q: &str, ts: i64| {
        seq += 1;
        store.add(Cell::put(row, "cf", q, ts, format!("v{ts}")).with_seq(seq));
    };
    // Many versions (more than a flush steps over before it seeks), then few, then one.
    for ts in 1..=30 {
        put("r1", "a", ts);
    }
    for ts in 1..=3 {
        put("r1", "b", ts);
    }
    put("r1", "c", 7);
    for ts in 1..=12 {
        put("r2", "a", ts);
    }
    assert_eq!(
        flushed_cells(&store),
        [
            "r1/cf:a@30=v30",
            "r1/cf:a@29=v29",
            "r1/cf:b@3=v3",
            "r1/cf:b@2=v2",
            "r1/cf:c@7=v7",
            "r2/cf:a@12=v12",
            "r2/cf:a@11=v11",
        ]
    );
}

#[test]
fn flush_keeps_markers_and_newest_live_versions_and_drops_masked_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, _engine) = store_keeping(dir.path(), 1);
    let mut seq = 0;
    let mut add = |cell: Cell| {
        seq += 1;
        store.add(cell.with_seq(seq));
    };
    add(Cell::marker("r1", "cf", "", 50, CellType::DeleteFamily));
    for q in 0..20 {
        // Ten live versions, then six the family marker masks.
        for ts in (60..70).chain(40..46) {
            add(Cell::put("r1", "cf", format!("q{q:02}"), ts, "v"));
        }
    }
    // A column with masked versions only.
    for ts in 10..=20 {
        add(Cell::put("r1", "cf", "zz", ts, "v"));
    }
    let cells = flushed_cells(&store);
    assert_eq!(cells.len(), 21, "{cells:?}");
    assert_eq!(cells[0], "r1/cf:@50 DeleteFamily");
    for (q, cell) in cells[1..].iter().enumerate() {
        assert_eq!(cell, &format!("r1/cf:q{q:02}@69=v"));
    }
}

#[test]
fn a_major_compaction_drops_versions_beyond_the_limit_across_many_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (store, _engine) = store_keeping(dir.path(), 2);
    let mut seq = 0;
    // Ten files, each with the two newest versions it saw of r1/a: twenty versions of one
    // column meet in the compaction, more than it steps over before seeking.
    for id in 1..=10 {
        for ts in [id * 10, id * 10 + 1] {
            seq += 1;
            store.add(Cell::put("r1", "cf", "a", ts, format!("v{ts}")).with_seq(seq));
        }
        seq += 1;
        store.add(Cell::put("r1", "cf", "b", id, format!("v{id}")).with_seq(seq));
        let snapshot = store.snapshot();
        let file = store
            .write_snapshot(&snapshot, id as u64)
            .expect("flush writes");
        store.publish_flush(file);
    }
    let inputs = store.files();
    assert_eq!(inputs.len(), 10);
    let output = store
        .write_compaction(&inputs, true, 11)
        .expect("compaction writes")
        .expect("something survives");
    assert_eq!(
        file_cells(&output),
        [
            "r1/cf:a@101=v101",
            "r1/cf:a@100=v100",
            "r1/cf:b@10=v10",
            "r1/cf:b@9=v9",
        ]
    );
}
