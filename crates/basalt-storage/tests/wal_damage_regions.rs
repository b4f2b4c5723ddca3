//! Damage in the log costs only the regions that need the damaged bytes: they fail to open
//! with an error naming the segment, the offset and the cause; every other region opens
//! with all its edits; a damaged segment no region needs is moved to `wal/corrupt/`.
//!
//! Each test "crashes" by dropping the engine without flushing, then flips a bit in a real
//! segment file, as bit rot would, and opens the engine again.

use crate::wal_damage_support;

use basalt_storage::{Error, FileKind};
use wal_damage_support::*;

fn names(rows: &[&str]) -> Vec<String> {
    rows.iter().map(|r| r.to_string()).collect()
}

#[test]
fn wal_a_flip_mid_newest_segment_fails_only_the_region_needing_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    {
        let engine = start(dir, false);
        let (a, b, c) = (
            opened(&engine, "a"),
            opened(&engine, "b"),
            opened(&engine, "c"),
        );
        put(&a, "r1");
        put(&b, "r1");
        put(&c, "r1");
        put(&a, "r2");
        put(&b, "r2");
        a.flush().expect("flush");
        b.flush().expect("flush");
        put(&a, "r3");
        put(&b, "r3");
        put(&c, "r2");
    }
    let flipped = damage(dir, 1, "c", "r1");

    let engine = start(dir, false);
    let a = open(&engine, "a").expect("a logged and flushed r2 after the damage");
    let b = open(&engine, "b").expect("so did b");
    assert_eq!(rows(&a), names(&["r1", "r2", "r3"]));
    assert_eq!(rows(&b), names(&["r1", "r2", "r3"]));
    let err = open(&engine, "c").expect_err("c may have unflushed edits in the damage");
    let span = &engine.wal_damage()[0].spans[0];
    assert!(span.offset < flipped as u64 && flipped as u64 - span.offset < span.len);
    match &err {
        Error::Corruption {
            kind, file, offset, ..
        } => {
            assert_eq!((*kind, file), (FileKind::WalSegment, &segment(dir, 1)));
            assert_eq!(*offset, span.offset);
        }
        other => panic!("{other}"),
    }
    let message = err.to_string();
    assert!(message.starts_with("corrupt WAL segment "), "{message}");
    assert!(message.contains("region c needs them"), "{message}");
    assert!(message.contains("payload checksum mismatch"), "{message}");
    assert!(segment(dir, 1).exists(), "kept in the log");
    // A failed open keeps c's replayed edits for a later attempt.
    assert!(engine
        .regions_with_pending_edits()
        .contains(&"c".to_string()));
}

#[test]
fn wal_damage_in_an_older_segment_all_flushed_is_moved_aside_and_nothing_is_lost() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    {
        let engine = start(dir, false);
        let (a, b) = (opened(&engine, "a"), opened(&engine, "b"));
        for row in ["r1", "r2", "r3", "r4"] {
            put(&a, row);
            put(&b, row);
        }
        a.flush().expect("flush");
        b.flush().expect("flush");
    }
    {
        // A second run logs into segment 2; segment 1 stays until a and b flush again.
        let engine = start(dir, false);
        put(&open(&engine, "a").expect("opens"), "r5");
    }
    // b's last edit: after it come only the two flushes' barriers, which clear b too.
    damage(dir, 1, "b", "r4");
    // A table's own files beside its region folders are not regions that could need it.
    let table_dir = dir.join("data/default/t");
    assert!(table_dir.join("a").is_dir());
    std::fs::write(table_dir.join(".tableinfo"), b"the table's descriptor").expect("write");

    let engine = start(dir, false);
    assert!(engine.wal_damage().is_empty(), "no region needs it");
    assert!(!segment(dir, 1).exists());
    assert!(corrupt(dir, 1).exists(), "moved aside, not deleted");
    let a = open(&engine, "a").expect("opens");
    let b = open(&engine, "b").expect("opens");
    assert_eq!(rows(&a), names(&["r1", "r2", "r3", "r4", "r5"]));
    assert_eq!(rows(&b), names(&["r1", "r2", "r3", "r4"]));
}

#[test]
fn wal_damage_in_an_older_segment_still_needed_fails_that_region_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    {
        let engine = start(dir, false);
        let (a, b) = (opened(&engine, "a"), opened(&engine, "b"));
        for row in ["r1", "r2", "r3"] {
            put(&a, row);
            put(&b, row);
        }
        a.flush().expect("flush");
    }
    {
        let engine = start(dir, false);
        put(&open(&engine, "a").expect("opens"), "r4");
        open(&engine, "b").expect("undamaged yet");
    }
    let flipped = damage(dir, 1, "b", "r2");

    let engine = start(dir, false);
    let a = open(&engine, "a").expect("a flushed past the damage");
    assert_eq!(rows(&a), names(&["r1", "r2", "r3", "r4"]));
    let err = open(&engine, "b").expect_err("b never flushed: r2 is lost with the damage");
    let Error::Corruption {
        kind, file, offset, ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((*kind, file), (FileKind::WalSegment, &segment(dir, 1)));
    assert!(
        (*offset as usize) < flipped,
        "the damaged record's start: {err}"
    );
    assert!(
        err.to_string().contains("above 0 (its flushed id)"),
        "{err}"
    );
    // A region created now (a new table, a split's daughter) logged nothing before.
    let fresh = open(&engine, "n").expect("a new region needs no old log bytes");
    put(&fresh, "r1");
    // Retention never deletes a segment a region needs, however far the others flush.
    a.flush().expect("flush");
    assert!(segment(dir, 1).exists());
    drop((a, fresh, engine));
    let engine = start(dir, false);
    assert!(open(&engine, "b").is_err(), "still refused after a restart");
    assert!(segment(dir, 1).exists());
    // The new region's open logged a barrier after the damage: it still needs nothing.
    let fresh = open(&engine, "n").expect("created after the damage");
    assert_eq!(rows(&fresh), names(&["r1"]));
}
