//! A region whose newest manifest copy is damaged opens from the other one with all its
//! flushed data, and is repaired (the damaged copy kept aside); with both copies damaged
//! it refuses to open with an error naming both files, and touches nothing.

use crate::support;

use basalt_storage::region::manifest::copies::{FILE_NAME, SECOND_COPY};
use basalt_storage::{Engine, ErrorKind, RegionInfo, StorageConfig};
use basalt_types::{Durability, Put, Scan};
use std::path::{Path, PathBuf};
use support::*;

/// A region `r1` with 30 rows in two flushed files, closed.
fn region_with_files(dir: &Path) -> PathBuf {
    let engine = open_engine(dir, StorageConfig::default());
    let region = open_region(&engine, table(&["cf"]));
    for i in 0..30 {
        let put = Put::new(format!("row{i:02}"))
            .add("cf", "q", format!("v{i}"))
            .durability(Durability::SyncWal);
        region.put(&put).expect("put");
        if i % 15 == 14 {
            region.flush().expect("flush");
        }
    }
    let region_dir = engine.region_dir(&table(&["cf"]), "r1");
    engine.close().expect("close");
    region_dir
}

fn rows(engine: &Engine) -> usize {
    let region = open_region(engine, table(&["cf"]));
    scan_all(&region, &Scan::new()).len()
}

#[test]
fn one_damaged_copy_costs_nothing() {
    for (name, damage) in [(FILE_NAME, 0x01u8), (SECOND_COPY, 0x80u8)] {
        let dir = tempfile::tempdir().expect("temp dir");
        let region_dir = region_with_files(dir.path());
        let path = region_dir.join(name);
        let mut bytes = std::fs::read(&path).expect("read");
        let middle = bytes.len() / 2;
        bytes[middle] ^= damage;
        std::fs::write(&path, &bytes).expect("damage");
        {
            let engine = open_engine(dir.path(), StorageConfig::default());
            assert_eq!(rows(&engine), 30, "{name}: every flushed row");
            engine.close().expect("close");
        }
        let aside = region_dir.join(format!("{name}.damaged.1"));
        assert_eq!(std::fs::read(aside).expect("kept aside"), bytes);
        let (first, second) = (region_dir.join(FILE_NAME), region_dir.join(SECOND_COPY));
        assert_eq!(
            std::fs::read(first).expect("first"),
            std::fs::read(second).expect("second")
        );
        let engine = open_engine(dir.path(), StorageConfig::default());
        assert_eq!(rows(&engine), 30, "{name}: after the repair");
    }
}

#[test]
fn two_damaged_copies_refuse_to_open_naming_both() {
    let dir = tempfile::tempdir().expect("temp dir");
    let region_dir = region_with_files(dir.path());
    let listing = |dir: &Path| -> Vec<String> {
        let entries = std::fs::read_dir(dir).expect("family folder");
        let mut names: Vec<String> = entries
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let store_files = listing(&region_dir.join("cf"));
    assert_eq!(
        store_files.iter().filter(|n| n.ends_with(".hfile")).count(),
        2
    );
    let mut before = Vec::new();
    for name in [FILE_NAME, SECOND_COPY] {
        let path = region_dir.join(name);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.truncate(bytes.len() - 3);
        std::fs::write(&path, &bytes).expect("damage");
        before.push(bytes);
    }
    let engine = open_engine(dir.path(), StorageConfig::default());
    let err = engine
        .open_region(RegionInfo::whole("r1"), table(&["cf"]))
        .expect_err("no usable manifest");
    assert_eq!(err.kind(), ErrorKind::DataCorruption, "{err}");
    let text = err.to_string();
    for name in [FILE_NAME, SECOND_COPY] {
        let path = region_dir.join(name).display().to_string();
        assert!(text.contains(&path), "{text} names {name}");
    }
    for (name, bytes) in [FILE_NAME, SECOND_COPY].iter().zip(before) {
        assert_eq!(
            std::fs::read(region_dir.join(name)).expect("read"),
            bytes,
            "untouched"
        );
    }
    assert_eq!(
        listing(&region_dir.join("cf")),
        store_files,
        "no store file removed"
    );
}
