//! The catalog's fallback in the folders: every serving region's folder holds a
//! `.regioninfo` naming its table and key range, and each table folder a `.tableinfo`
//! holding its descriptor — after create, split, merge, alter (enabled or disabled) and a
//! restart, which also rewrites missing or damaged ones.

use crate::support;

use basalt_api::PreSplit;
use basalt_db::meta::folder_info::{self, InfoError, REGION_INFO, TABLE_INFO};
use basalt_db::DbConfig;
use basalt_types::{FamilyDescriptor, Put, TableName};
use bytes::Bytes;
use std::path::Path;
use support::*;

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

/// Checks `table`'s folder against what the database reports; returns the region count.
fn check_folders(db: &Db, root: &Path, table: &TableName) -> usize {
    let table_dir = root
        .join("data")
        .join(table.namespace())
        .join(table.qualifier());
    let described = db.admin.describe_table(table).expect("describe");
    assert_eq!(
        folder_info::read_table_info(&table_dir),
        Ok(described),
        "{table}"
    );
    let regions = db.admin.list_regions(table).expect("regions");
    for region in &regions {
        let record = folder_info::read_region_info(&table_dir.join(&region.encoded_name))
            .unwrap_or_else(|e| panic!("{table}: {e}"));
        assert_eq!(&record.table, table);
        assert_eq!(record.encoded_name, region.encoded_name);
        assert_eq!(
            (record.start_key, record.end_key),
            (region.start_key.clone(), region.end_key.clone())
        );
    }
    regions.len()
}

#[test]
fn every_region_and_table_folder_describes_itself() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = open(dir.path(), config());
    let (a, b) = (descriptor("a", &["f"]), descriptor("ns:b", &["f"]));
    let ns = basalt_types::NamespaceDescriptor::new("ns").expect("valid");
    db.admin.create_namespace(&ns).expect("namespace");
    let keys = vec![Bytes::from_static(b"g"), Bytes::from_static(b"p")];
    db.admin
        .create_table(&a, &PreSplit::Keys(keys))
        .expect("create a");
    db.admin
        .create_table(&b, &PreSplit::None)
        .expect("create b");
    assert_eq!(check_folders(&db, dir.path(), &a.name), 3);
    let table = db.table(&a.name);
    for row in ["a", "h", "k", "q"] {
        table.put(&Put::new(row).add("f", "q", "v")).expect("put");
    }
    db.admin.split(&a.name, Some(b"k")).expect("split");
    assert_eq!(check_folders(&db, dir.path(), &a.name), 4);
    db.admin
        .compact(&a.name, true)
        .expect("compact the references");
    let regions = db.admin.list_regions(&a.name).expect("regions");
    db.admin
        .merge_regions(&regions[0].encoded_name, &regions[1].encoded_name)
        .expect("merge");
    assert_eq!(check_folders(&db, dir.path(), &a.name), 3);
    let mut g = FamilyDescriptor::new("g").expect("valid");
    g.max_versions = 4;
    db.admin.add_family(&a.name, &g).expect("alter enabled");
    db.admin.disable_table(&b.name).expect("disable");
    db.admin.add_family(&b.name, &g).expect("alter disabled");
    assert_eq!(check_folders(&db, dir.path(), &a.name), 3);
    assert_eq!(check_folders(&db, dir.path(), &b.name), 1);
    let serving = db.admin.list_regions(&a.name).expect("regions")[0]
        .encoded_name
        .clone();
    db.db.close().expect("close");
    drop((table, db));

    // Damaged or missing files are rewritten when the regions open again.
    let a_dir = dir.path().join("data/default/a");
    std::fs::remove_file(a_dir.join(TABLE_INFO)).expect("remove");
    let first = a_dir.join(serving);
    let mut bytes = std::fs::read(first.join(REGION_INFO)).expect("read");
    bytes[6] ^= 0x40;
    std::fs::write(first.join(REGION_INFO), bytes).expect("damage");
    assert!(matches!(
        folder_info::read_region_info(&first),
        Err(InfoError::Damaged { .. })
    ));
    let db = open(dir.path(), config());
    assert_eq!(check_folders(&db, dir.path(), &a.name), 3);
    db.admin.enable_table(&b.name).expect("enable");
    assert_eq!(check_folders(&db, dir.path(), &b.name), 1);
    db.db.close().expect("close");
}
