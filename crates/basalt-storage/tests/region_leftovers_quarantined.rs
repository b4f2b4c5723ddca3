//! At open a region sets aside, never deletes, the files in its family folders that its
//! manifest does not name: each goes to `<root>/quarantine/` under its own relative path,
//! with a reason, and the region serves what its manifest names. Only the staging folder,
//! files the engine itself was writing, is deleted. A region that fails to open keeps its
//! replayed log edits for the next attempt.

use crate::support;

use basalt_storage::quarantine;
use basalt_storage::RegionInfo;
use basalt_types::{Put, Scan};
use support::*;

#[test]
fn unnamed_files_go_to_the_quarantine_and_staging_files_go() {
    let dir = tempfile::tempdir().expect("temp dir");
    let family_dir;
    {
        let engine = open_engine(dir.path(), Default::default());
        let region = open_region(&engine, table(&["cf"]));
        region
            .put(&Put::new("row").add("cf", "q", "v"))
            .expect("put");
        region.flush().expect("flush");
        family_dir = region.dir().join("cf");
        engine.close().expect("close");
    }
    let committed = std::fs::read_dir(&family_dir)
        .expect("family folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "hfile"))
        .expect("the flushed file");
    let stray = family_dir.join("00000000000000000042.hfile");
    std::fs::copy(&committed, &stray).expect("copy");
    std::fs::create_dir_all(family_dir.join(".tmp")).expect("staging");
    std::fs::write(family_dir.join(".tmp/half-written"), b"x").expect("staged");

    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(scan_all(&region, &Scan::new()).len(), 1);
    assert!(!stray.exists() && committed.exists());
    assert!(
        !family_dir.join(".tmp").exists(),
        "staging files are deleted"
    );
    let items = quarantine::list(dir.path()).expect("list");
    assert_eq!(items.len(), 1, "{items:?}");
    let original = stray.strip_prefix(dir.path()).expect("inside");
    assert_eq!(items[0].original, original.display().to_string());
    assert_eq!(
        items[0].path,
        std::path::Path::new("quarantine").join(original)
    );
    assert!(
        items[0].reason.contains("no manifest names this file"),
        "{items:?}"
    );
    assert_eq!(
        std::fs::read(dir.path().join(&items[0].path)).expect("kept"),
        std::fs::read(&committed).expect("read"),
    );
    engine.close().expect("close");
}

#[test]
fn a_region_that_fails_to_open_keeps_its_log_edits_for_the_next_attempt() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest;
    {
        let engine = open_engine(dir.path(), Default::default());
        let region = open_region(&engine, table(&["cf"]));
        region
            .put(&Put::new("flushed").add("cf", "q", "in a file"))
            .expect("put");
        region.flush().expect("flush writes the manifest");
        region
            .put(&Put::new("row").add("cf", "q", "only in the log"))
            .expect("put");
        manifest = region.dir().join("MANIFEST");
        // Dropped without a close: the edit is only in the log.
    }
    // Both copies damaged, so that the open fails.
    let second = manifest.with_file_name("MANIFEST.2");
    let good = std::fs::read(&manifest).expect("manifest");
    let good_second = std::fs::read(&second).expect("second copy");
    std::fs::write(&manifest, b"damaged").expect("damage");
    std::fs::write(&second, b"damaged too").expect("damage");
    let engine = open_engine(dir.path(), Default::default());
    engine
        .open_region(RegionInfo::whole("r1"), table(&["cf"]))
        .expect_err("the manifest is damaged");
    std::fs::write(&manifest, good).expect("repair");
    std::fs::write(&second, good_second).expect("repair");
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(
        scan_all(&region, &Scan::new()).len(),
        2,
        "the replayed edit is back"
    );
    engine.close().expect("close");
}
