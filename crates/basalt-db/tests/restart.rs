//! Restart preserves everything: namespaces with their properties, tables with
//! non-default family and table options, pre-split regions (same boundaries and encoded
//! names), disabled tables, split and merged regions, and data — after a clean close and
//! reopen, and after the database is dropped without closing (the log replays both the
//! catalog and the data).

use crate::support;

use basalt_api::{PreSplit, RegionReport};
use basalt_db::DbConfig;
use basalt_types::{
    BloomType, Cell, Compression, DataBlockEncoding, Durability, FamilyDescriptor,
    KeepDeletedCells, NamespaceDescriptor, Put, Scan, SplitAlgorithm, TableDescriptor, TableName,
};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::path::Path;
use support::*;

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn namespace() -> NamespaceDescriptor {
    let mut ns = NamespaceDescriptor::new("ns1").expect("valid namespace");
    ns.properties.insert("owner".into(), "ops".into());
    ns.properties
        .insert("hbase.namespace.quota.maxtables".into(), "9".into());
    ns
}

/// `ns1:wide`: two families with every option away from its default, and table options.
fn wide() -> TableDescriptor {
    let mut a = FamilyDescriptor::new("a").expect("valid family");
    a.max_versions = 5;
    a.min_versions = 1;
    a.ttl_secs = 30 * 24 * 3600;
    a.keep_deleted_cells = KeepDeletedCells::True;
    a.bloom_filter = BloomType::RowCol;
    a.block_size_bytes = 8 * 1024;
    a.block_cache = false;
    a.in_memory = true;
    a.compression = Compression::Zstd;
    a.data_block_encoding = DataBlockEncoding::Prefix;
    a.replication_scope = 1;
    a.configuration
        .insert("hbase.hstore.blockingStoreFiles".into(), "20".into());
    a.metadata.insert("note".into(), "family a".into());
    let mut b = FamilyDescriptor::new("b").expect("valid family");
    b.compression = Compression::Gz;
    b.bloom_filter = BloomType::None;
    let mut t = TableDescriptor::new(
        TableName::new("ns1", "wide").expect("valid name"),
        vec![a, b],
    );
    t.max_file_size_bytes = 3 * 1024 * 1024 * 1024;
    t.memstore_flush_size_bytes = 16 * 1024 * 1024;
    t.durability = Durability::FsyncWal;
    t.compaction_enabled = false;
    t.merge_enabled = false;
    t.configuration
        .insert("hbase.hregion.majorcompaction".into(), "0".into());
    t.metadata.insert("OWNER".into(), "restart-test".into());
    t
}

fn put(row: &str, family: &str, value: &str) -> Put {
    Put::new(row.to_string())
        .add(family, "q", value)
        .durability(Durability::SyncWal)
}

/// Everything observable about the catalog and the data, to compare across restarts.
#[derive(Debug, PartialEq)]
struct Snapshot {
    namespaces: Vec<NamespaceDescriptor>,
    tables: Vec<(TableDescriptor, bool)>,
    regions: BTreeMap<String, Vec<(String, String, Bytes, Bytes)>>,
    cells: BTreeMap<String, Vec<String>>,
}

fn region_keys(regions: &[RegionReport]) -> Vec<(String, String, Bytes, Bytes)> {
    regions
        .iter()
        .map(|r| {
            (
                r.region_name.clone(),
                r.encoded_name.clone(),
                r.start_key.clone(),
                r.end_key.clone(),
            )
        })
        .collect()
}

fn show(cell: &Cell) -> String {
    format!(
        "{}/{}:{}@{}={}",
        String::from_utf8_lossy(cell.row()),
        String::from_utf8_lossy(cell.family()),
        String::from_utf8_lossy(cell.qualifier()),
        cell.timestamp(),
        String::from_utf8_lossy(cell.value())
    )
}

/// The catalog, every region, and (for enabled tables) every cell of every version.
fn snapshot(db: &Db) -> Snapshot {
    let admin = &db.admin;
    let names = admin.list_tables(None).expect("list tables");
    let mut tables = Vec::new();
    let (mut regions, mut cells) = (BTreeMap::new(), BTreeMap::new());
    for name in &names {
        let enabled = admin.is_table_enabled(name).expect("enabled?");
        tables.push((admin.describe_table(name).expect("describe"), enabled));
        let listed = admin.list_regions(name).expect("list regions");
        check_tiling(&listed).expect("regions tile the key space");
        regions.insert(name.to_string(), region_keys(&listed));
        if enabled {
            let scan = Scan::new().versions(10);
            let found: Vec<String> = db
                .table(name)
                .scan(&scan)
                .expect("scan")
                .flat_map(|row| row.expect("row").cells)
                .map(|c| show(&c))
                .collect();
            cells.insert(name.to_string(), found);
        }
    }
    Snapshot {
        namespaces: admin.list_namespaces().expect("list namespaces"),
        tables,
        regions,
        cells,
    }
}

/// Creates every kind of table and fills it, leaving one disabled.
fn populate(db: &Db) {
    let admin = &db.admin;
    admin.create_namespace(&namespace()).expect("namespace");
    admin
        .create_table(&wide(), &PreSplit::None)
        .expect("create wide");
    let wide_table = db.table(&wide().name);
    // Explicit timestamps, recent enough for the family's TTL: three distinct versions.
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64;
    for version in 0..3 {
        let put = Put::new("r1")
            .add_at("a", "q", now_ms - 10 + version, format!("v{version}"))
            .durability(Durability::SyncWal);
        wide_table.put(&put).expect("put");
    }
    wide_table.put(&put("r2", "b", "bee")).expect("put");

    let keys = ["d", "h", "p", "t"].map(Bytes::from).to_vec();
    let split = descriptor("presplit", &["f"]);
    admin
        .create_table(&split, &PreSplit::Keys(keys))
        .expect("create presplit");
    let counted = descriptor("ns1:counted", &["f"]);
    admin
        .create_table(
            &counted,
            &PreSplit::Count {
                regions: 8,
                algorithm: SplitAlgorithm::HexString,
            },
        )
        .expect("create counted");
    let table = db.table(&split.name);
    for row in ["a", "d", "e", "h", "o", "p", "s", "t", "zz"] {
        table.put(&put(row, "f", row)).expect("put");
    }
    let counted_table = db.table(&counted.name);
    for i in 0..64u32 {
        let row = format!("{:08x}", i.wrapping_mul(0x0400_0000));
        counted_table.put(&put(&row, "f", "x")).expect("put");
    }
    admin.flush(&split.name).expect("flush");
    table.put(&put("b", "f", "after flush")).expect("put");

    let off = descriptor("ns1:off", &["f"]);
    admin
        .create_table(&off, &PreSplit::Keys(vec![Bytes::from_static(b"m")]))
        .expect("create off");
    let off_table = db.table(&off.name);
    for row in ["a", "m", "z"] {
        off_table.put(&put(row, "f", row)).expect("put");
    }
    admin.disable_table(&off.name).expect("disable");
}

/// Splits one region and merges two others, so that retired regions and references exist.
fn reshape(db: &Db) {
    let name = TableName::parse("presplit").expect("valid name");
    db.admin.split(&name, Some(b"f")).expect("split at f");
    let regions = db.admin.list_regions(&name).expect("list");
    let (p, t) = (
        regions
            .iter()
            .find(|r| r.start_key.as_ref() == b"p")
            .expect("region p"),
        regions
            .iter()
            .find(|r| r.start_key.as_ref() == b"t")
            .expect("region t"),
    );
    db.admin
        .merge_regions(&p.encoded_name, &t.encoded_name)
        .expect("merge p and t");
    db.table(&name).put(&put("u", "f", "merged")).expect("put");
}

/// Reads the disabled table after enabling it.
fn check_disabled(db: &Db) {
    let off = TableName::new("ns1", "off").expect("valid name");
    assert!(!db.admin.is_table_enabled(&off).expect("enabled?"));
    db.admin.enable_table(&off).expect("enable");
    let rows = scan_keys(db.table(&off).as_ref(), false).expect("scan");
    assert_eq!(rows, vec![b"a".to_vec(), b"m".to_vec(), b"z".to_vec()]);
    db.admin.disable_table(&off).expect("disable again");
}

fn reopen(dir: &Path) -> Db {
    open(dir, config())
}

#[test]
fn close_and_reopen_preserves_the_catalog_and_data() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = reopen(dir.path());
    populate(&db);
    reshape(&db);
    let before = snapshot(&db);
    assert_eq!(
        before.regions["presplit"].len(),
        5,
        "split one, merged two of five"
    );
    assert_eq!(before.regions["ns1:counted"].len(), 8);
    assert_eq!(
        before.cells["ns1:wide"].len(),
        4,
        "three versions of r1/a, one of r2/b"
    );
    db.db.close().expect("close");
    drop(db);

    let db = reopen(dir.path());
    assert_eq!(snapshot(&db), before);
    assert_eq!(
        db.admin.describe_namespace("ns1").expect("describe"),
        namespace()
    );
    assert_eq!(
        db.admin.describe_table(&wide().name).expect("describe"),
        wide()
    );
    check_disabled(&db);
    assert_eq!(snapshot(&db), before);
    db.db.close().expect("close");
}

#[test]
fn drop_without_close_replays_the_catalog_and_data() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = reopen(dir.path());
    populate(&db);
    reshape(&db);
    let before = snapshot(&db);
    drop(db);

    let db = reopen(dir.path());
    assert_eq!(snapshot(&db), before);
    check_disabled(&db);
    // Change the catalog again, then drop once more: the replay covers the new state.
    db.admin
        .delete_table(&TableName::new("ns1", "off").expect("valid name"))
        .expect("delete the disabled table");
    db.admin
        .split(
            &TableName::new("ns1", "counted").expect("valid"),
            Some(b"50000000"),
        )
        .expect("split counted");
    let mut ns = namespace();
    ns.name = "ns2".into();
    db.admin.create_namespace(&ns).expect("namespace ns2");
    let before = snapshot(&db);
    assert_eq!(before.regions["ns1:counted"].len(), 9);
    drop(db);

    let db = reopen(dir.path());
    assert_eq!(snapshot(&db), before);
    assert!(
        !dir.path().join("data/ns1/off").exists(),
        "the dropped table's folder remains"
    );
    db.db.close().expect("close");
}

/// The log segment that was active at the close holds edits of a dropped table and of a
/// split parent, regions that will never open again: once the serving regions have opened
/// (each tells the log its flushed id) and the others' edits are discarded, the segment
/// must go, not stay (and be replayed into memory) at every later open.
#[test]
fn log_segments_of_dropped_and_retired_regions_go_after_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = reopen(dir.path());
    let (gone, kept) = (descriptor("gone", &["f"]), descriptor("kept", &["f"]));
    for t in [&gone, &kept] {
        db.admin.create_table(t, &PreSplit::None).expect("create");
        let table = db.table(&t.name);
        for i in 0..50 {
            table.put(&put(&format!("r{i:03}"), "f", "x")).expect("put");
        }
    }
    db.admin.split(&kept.name, Some(b"r025")).expect("split");
    db.admin.disable_table(&gone.name).expect("disable");
    db.admin.delete_table(&gone.name).expect("delete");
    db.db.close().expect("close");
    drop(db);

    let db = reopen(dir.path());
    let wal = db.db.engine().context().wal.clone();
    assert_eq!(
        wal.closed_segment_ids(),
        Vec::<u64>::new(),
        "the last segment was replayed, then went once every region was opened or discarded"
    );
    db.admin.compact(&kept.name, true).expect("compact");
    assert_eq!(db.admin.run_catalog_janitor().expect("janitor"), 1);
    db.admin.flush(&kept.name).expect("flush");
    let meta = db
        .db
        .engine()
        .region(basalt_db::meta::META_REGION)
        .expect("meta is open");
    meta.flush().expect("flush meta");
    assert_eq!(
        wal.closed_segment_ids(),
        Vec::<u64>::new(),
        "segments of regions that never reopen are kept"
    );
    assert_eq!(
        scan_keys(db.table(&kept.name).as_ref(), false)
            .expect("scan")
            .len(),
        50
    );
    db.db.close().expect("close");
}

/// Online schema changes, a truncate that keeps its splits and a deleted namespace are
/// what reopen finds, after a clean close and after a drop without one.
#[test]
fn schema_changes_truncate_and_namespace_removal_survive_restart() {
    for clean in [true, false] {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = reopen(dir.path());
        let evolving = descriptor("evolving", &["f", "h"]);
        db.admin
            .create_table(&evolving, &PreSplit::None)
            .expect("create");
        db.table(&evolving.name)
            .put(&put("r", "f", "one"))
            .expect("put");
        let mut g = FamilyDescriptor::new("g").expect("valid family");
        g.max_versions = 3;
        db.admin.add_family(&evolving.name, &g).expect("add family");
        db.table(&evolving.name)
            .put(&put("r", "g", "gee"))
            .expect("put in the new family");
        let mut f = FamilyDescriptor::new("f").expect("valid family");
        f.max_versions = 4;
        f.bloom_filter = BloomType::RowCol;
        db.admin
            .modify_family(&evolving.name, &f)
            .expect("modify family");
        db.admin
            .delete_family(&evolving.name, b"h")
            .expect("delete family");
        let mut changed = db.admin.describe_table(&evolving.name).expect("describe");
        changed.max_file_size_bytes = 512 * 1024 * 1024;
        changed.metadata.insert("stage".into(), "altered".into());
        db.admin.modify_table(&changed).expect("modify table");

        let trunc = descriptor("trunc", &["f"]);
        let keys = vec![Bytes::from("k"), Bytes::from("s")];
        db.admin
            .create_table(&trunc, &PreSplit::Keys(keys))
            .expect("create");
        db.table(&trunc.name)
            .put(&put("m", "f", "gone soon"))
            .expect("put");
        let old_names = region_keys(&db.admin.list_regions(&trunc.name).expect("list"));
        db.admin.disable_table(&trunc.name).expect("disable");
        db.admin
            .truncate_table(&trunc.name, true)
            .expect("truncate");
        db.table(&trunc.name)
            .put(&put("t", "f", "new"))
            .expect("put after truncate");
        let new_names = region_keys(&db.admin.list_regions(&trunc.name).expect("list"));
        let bounds = |r: &[(String, String, Bytes, Bytes)]| {
            r.iter()
                .map(|r| (r.2.clone(), r.3.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            bounds(&new_names),
            bounds(&old_names),
            "truncate keeps the splits"
        );
        assert!(new_names
            .iter()
            .all(|n| old_names.iter().all(|o| o.1 != n.1)));

        db.admin.create_namespace(&namespace()).expect("namespace");
        db.admin.delete_namespace("ns1").expect("delete namespace");
        let before = snapshot(&db);
        if clean {
            db.db.close().expect("close");
        }
        drop(db);

        let db = reopen(dir.path());
        assert_eq!(snapshot(&db), before, "clean close: {clean}");
        assert_eq!(
            db.admin.describe_table(&evolving.name).expect("describe"),
            changed
        );
        assert!(
            db.admin.describe_namespace("ns1").is_err(),
            "the deleted namespace is back"
        );
        let cells = &before.cells["trunc"];
        assert!(
            cells.len() == 1 && cells[0].starts_with("t/f:q@") && cells[0].ends_with("=new"),
            "truncate left {cells:?}"
        );
        for old in &old_names {
            assert!(
                !region_dir(dir.path(), &trunc.name, &old.1).exists(),
                "a truncated region's folder remains"
            );
        }
        db.db.close().expect("close");
    }
}
