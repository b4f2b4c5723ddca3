//! `--skip-corrupt-wal` (`StorageConfig::wal_skip_corrupt`, HBase's
//! `hbase.hlog.split.skip.errors`): a damaged segment is set aside in `wal/corrupt/`,
//! its readable records stay in the log, every region opens, and each region that may
//! have lost edits says so at warn: its name, the id range, the segment and offsets.

use crate::wal_damage_support;

use wal_damage_support::*;

#[test]
fn wal_skip_corrupt_opens_every_region_and_logs_what_may_be_lost() {
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
    damage(dir, 1, "b", "r2");
    let damaged = std::fs::read(segment(dir, 1)).expect("read");
    assert!(
        open(&start(dir, false), "b").is_err(),
        "refused without the flag"
    );

    let ((engine, a, b), logs) = logs_of(|| {
        let engine = start(dir, true);
        let a = open(&engine, "a").expect("opens");
        let b = open(&engine, "b").expect("opens despite the damage");
        (engine, a, b)
    });
    assert_eq!(rows(&a), ["r1", "r2", "r3", "r4"]);
    assert_eq!(rows(&b), ["r1", "r3"], "every readable edit of b, r2 lost");
    assert_eq!(std::fs::read(corrupt(dir, 1)).expect("kept"), damaged);
    let span = engine.wal_damage()[0].spans[0].clone();
    let lines: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("may have lost edits"))
        .collect();
    let [line] = lines.as_slice() else {
        panic!("one region may have lost edits: {logs}")
    };
    for expected in [
        "WARN".to_string(),
        "region=\"b\"".to_string(),
        "above 0 (its flushed id)".to_string(),
        "last before 1, first after 3".to_string(),
        format!("offset={}", span.offset),
        format!("bytes={}", span.len),
        format!("file={}", segment(dir, 1).display()),
        format!("kept={}", corrupt(dir, 1).display()),
        "record_hint=\"b seq 2\"".to_string(),
    ] {
        assert!(line.contains(&expected), "{expected} missing from {line}");
    }
    drop((a, b, engine));

    // The segment was rewritten with its readable records: b's unflushed r1 and r3 are
    // still in the log, and the next start is a normal one.
    let engine = start(dir, false);
    assert!(engine.wal_damage().is_empty());
    assert_eq!(rows(&open(&engine, "b").expect("opens")), ["r1", "r3"]);
    assert_eq!(
        rows(&open(&engine, "a").expect("opens")),
        ["r1", "r2", "r3", "r4"]
    );
}
