//! Region operations end to end: every mutation kind, reads with their options, and the
//! same answers from the memstore, from files and after reopening.

use crate::support;

use basalt_storage::ErrorKind;
use basalt_types::{
    Append, CheckAndMutate, CompareOp, Delete, DeleteSpec, Get, Increment, Mutation, Put,
    RowMutations, Scan, TimeRange,
};
use bytes::Bytes;
use support::*;

fn value_at(region: &basalt_storage::Region, row: &str, column: (&str, &str)) -> Option<Bytes> {
    let got = region
        .get(&Get::new(row.to_string()).column(column.0.to_string(), column.1.to_string()))
        .expect("get");
    got.value_bytes(column.0.as_bytes(), column.1.as_bytes())
}

/// Runs `check` on the memstore, after a flush, and after a major compaction.
fn in_every_layout(region: &basalt_storage::Region, check: impl Fn(&str)) {
    check("memstore");
    region.flush().expect("flush");
    check("flushed");
    region.compact(true).expect("major compaction");
    check("compacted");
}

#[test]
fn put_get_scan_and_versions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf", "meta"]);
    t.families[0].max_versions = 3;
    let region = open_region(&engine, t);
    for ts in 1..=4 {
        region
            .put(&Put::new("row1").add_at("cf", "a", ts, format!("v{ts}")))
            .expect("put");
    }
    region
        .put(&Put::new("row1").add_at("meta", "m", 7, "x"))
        .expect("put");
    region
        .put(&Put::new("row2").add_at("cf", "a", 1, "other"))
        .expect("put");
    in_every_layout(&region, |layout| {
        assert_eq!(
            value_at(&region, "row1", ("cf", "a")).as_deref(),
            Some(&b"v4"[..]),
            "{layout}"
        );
        let all = region
            .get(&Get::new("row1").family("cf").versions(10))
            .expect("get");
        assert_eq!(
            show_rows(&[all]),
            ["row1/cf:a@4=v4", "row1/cf:a@3=v3", "row1/cf:a@2=v2"],
            "{layout}"
        );
        let ranged = region
            .get(
                &Get::new("row1")
                    .versions(10)
                    .time_range(TimeRange::new(2, 4).expect("range")),
            )
            .expect("get");
        assert_eq!(
            show_rows(&[ranged]),
            ["row1/cf:a@3=v3", "row1/cf:a@2=v2"],
            "{layout}"
        );
        let rows = scan_all(&region, &Scan::new());
        assert_eq!(
            show_rows(&rows),
            ["row1/cf:a@4=v4", "row1/meta:m@7=x", "row2/cf:a@1=other"],
            "{layout}"
        );
    });
}

#[test]
fn every_delete_kind_masks_what_hbase_masks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf"]);
    t.families[0].max_versions = 10;
    let region = open_region(&engine, t);
    let put = |q: &str, ts: i64| {
        region
            .put(&Put::new("r").add_at("cf", q, ts, format!("{q}{ts}")))
            .expect("put")
    };
    for ts in 1..=3 {
        for q in ["a", "b", "c", "d"] {
            put(q, ts);
        }
    }
    // One version of a, every version of b up to 2, every column at exactly 3 (family version).
    region
        .delete(&Delete::new("r").spec(DeleteSpec::Version {
            family: "cf".into(),
            qualifier: "a".into(),
            timestamp: 2,
        }))
        .expect("delete");
    region
        .delete(&Delete::new("r").at(2).columns("cf", "b"))
        .expect("delete");
    region
        .delete(&Delete::new("r").spec(DeleteSpec::FamilyVersion {
            family: "cf".into(),
            timestamp: 3,
        }))
        .expect("delete");
    in_every_layout(&region, |layout| {
        let got = region.get(&Get::new("r").versions(10)).expect("get");
        assert_eq!(
            show_rows(&[got]),
            [
                "r/cf:a@1=a1",
                "r/cf:c@2=c2",
                "r/cf:c@1=c1",
                "r/cf:d@2=d2",
                "r/cf:d@1=d1"
            ],
            "{layout}"
        );
    });
    // A marker masks later-written puts at or below its timestamp until a major compaction.
    region
        .delete(&Delete::new("r").at(5).family("cf"))
        .expect("delete family");
    put("e", 4);
    assert!(region.get(&Get::new("r")).expect("get").is_empty());
    region.flush().expect("flush");
    region.compact(true).expect("major compaction");
    put("e", 4);
    assert_eq!(
        show_rows(&[region.get(&Get::new("r")).expect("get")]),
        ["r/cf:e@4=e4"]
    );
}

#[test]
fn delete_without_timestamp_removes_only_the_newest_version_and_whole_row_delete_removes_all() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf", "x"]);
    t.families[0].max_versions = 5;
    let region = open_region(&engine, t);
    region
        .put(
            &Put::new("r")
                .add_at("cf", "q", 10, "old")
                .add_at("cf", "q", 20, "new"),
        )
        .expect("put");
    region
        .put(&Put::new("r").add_at("x", "q", 10, "x"))
        .expect("put");
    region
        .delete(&Delete::new("r").version("cf", "q"))
        .expect("delete newest");
    assert_eq!(
        value_at(&region, "r", ("cf", "q")).as_deref(),
        Some(&b"old"[..])
    );
    region.delete(&Delete::new("r")).expect("delete row");
    assert!(region.get(&Get::new("r")).expect("get").is_empty());
}

#[test]
fn increments_appends_and_their_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    for expected in [5i64, 10, 15] {
        let result = region
            .increment(&Increment::new("c").add("cf", "hits", 5))
            .expect("increment");
        assert_eq!(
            result.value(b"cf", b"hits").map(|v| v.to_vec()),
            Some(expected.to_be_bytes().to_vec())
        );
    }
    region.flush().expect("flush");
    let result = region
        .increment(&Increment::new("c").add("cf", "hits", -20))
        .expect("increment");
    assert_eq!(
        result.value(b"cf", b"hits").map(|v| v.to_vec()),
        Some((-5i64).to_be_bytes().to_vec())
    );
    region
        .put(&Put::new("c").add("cf", "text", "abc"))
        .expect("put");
    let err = region
        .increment(&Increment::new("c").add("cf", "text", 1))
        .expect_err("not a long");
    assert_eq!(err.to_string(), "Field is not a long, it's 3 bytes wide");
    assert_eq!(err.kind(), ErrorKind::InvalidRequest);
    let appended = region
        .append(&Append::new("c").add("cf", "text", "def"))
        .expect("append");
    assert_eq!(
        appended.value(b"cf", b"text").map(|v| v.to_vec()),
        Some(b"abcdef".to_vec())
    );
}

/// HBase 0.98+ (HBASE-10252): an increment by 0 of an existing counter answers its value
/// and writes nothing — no new version one millisecond ahead. On a missing cell it writes
/// 0 (HBASE-17318), so the counter exists afterwards.
#[test]
fn an_increment_by_zero_reads_an_existing_counter_without_writing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let mut t = table(&["cf"]);
    t.families[0].max_versions = 5;
    let region = open_region(&engine, t);
    region
        .put(&Put::new("c").add_at("cf", "n", 10, 42i64.to_be_bytes()))
        .expect("put");
    let versions = |region: &basalt_storage::Region| {
        show_rows(&[region
            .get(&Get::new("c").family("cf").versions(10))
            .expect("get")])
    };
    in_every_layout(&region, |layout| {
        let result = region
            .increment(&Increment::new("c").add("cf", "n", 0).add("cf", "fresh", 0))
            .expect("increment by 0");
        assert_eq!(
            result.value(b"cf", b"n").map(|v| v.to_vec()),
            Some(42i64.to_be_bytes().to_vec()),
            "{layout}"
        );
        assert_eq!(
            result.value(b"cf", b"fresh").map(|v| v.to_vec()),
            Some(0i64.to_be_bytes().to_vec()),
            "{layout}: a missing counter is created at 0"
        );
        let cells = versions(&region);
        assert_eq!(
            cells.iter().filter(|c| c.starts_with("c/cf:n@")).count(),
            1,
            "{layout}: no new version of the existing counter: {cells:?}"
        );
        assert_eq!(
            cells
                .iter()
                .filter(|c| c.starts_with("c/cf:fresh@"))
                .count(),
            1,
            "{layout}: the missing counter was written once: {cells:?}"
        );
    });
    // A non-zero delta still writes a new version.
    region
        .increment(&Increment::new("c").add("cf", "n", 1))
        .expect("increment by 1");
    let cells = versions(&region);
    assert_eq!(
        cells.iter().filter(|c| c.starts_with("c/cf:n@")).count(),
        2,
        "{cells:?}"
    );
}

#[test]
fn check_and_mutate_compares_expected_against_current() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let put = |v: &str| Mutation::Put(Put::new("r").add("cf", "q", v));
    let cam = |op, expected: Option<&str>, m| {
        CheckAndMutate::column(
            "r",
            "cf",
            "q",
            op,
            expected.map(|e| Bytes::from(e.to_string())),
            m,
        )
        .expect("valid")
    };
    assert!(
        region
            .check_and_mutate(&cam(CompareOp::Equal, None, put("b")))
            .expect("cam")
            .0
    );
    assert!(
        !region
            .check_and_mutate(&cam(CompareOp::Equal, None, put("x")))
            .expect("cam")
            .0
    );
    // expected OP current: "c" > "b" holds.
    assert!(
        region
            .check_and_mutate(&cam(CompareOp::Greater, Some("c"), put("c")))
            .expect("cam")
            .0
    );
    assert!(
        !region
            .check_and_mutate(&cam(CompareOp::Less, Some("d"), put("z")))
            .expect("cam")
            .0
    );
    assert_eq!(
        value_at(&region, "r", ("cf", "q")).as_deref(),
        Some(&b"c"[..])
    );
    let delete = Mutation::Delete(Delete::new("r").columns("cf", "q"));
    assert!(
        region
            .check_and_mutate(&cam(CompareOp::Equal, Some("c"), delete))
            .expect("cam")
            .0
    );
    assert!(region.get(&Get::new("r")).expect("get").is_empty());
}

#[test]
fn row_mutations_apply_together() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    region
        .put(&Put::new("r").add_at("cf", "gone", 1, "x"))
        .expect("put");
    let mutations = RowMutations::new(
        "r",
        vec![
            Mutation::Put(Put::new("r").add_at("cf", "a", 5, "1")),
            Mutation::Delete(Delete::new("r").columns("cf", "gone")),
            Mutation::Increment(Increment::new("r").add("cf", "n", 2)),
        ],
    )
    .expect("one row");
    let computed = region.mutate_row(&mutations).expect("mutate");
    assert_eq!(computed.cells.len(), 1);
    let got = region.get(&Get::new("r")).expect("get");
    let qualifiers: Vec<_> = got.cells.iter().map(|c| c.qualifier_bytes()).collect();
    assert_eq!(
        qualifiers,
        [Bytes::from_static(b"a"), Bytes::from_static(b"n")]
    );
    assert!(RowMutations::new("r", vec![Mutation::Put(Put::new("other"))]).is_err());
}

#[test]
fn scans_honour_bounds_direction_limit_and_batch() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    for i in 0..20 {
        let row = format!("row{i:02}");
        region
            .put(
                &Put::new(row)
                    .add_at("cf", "a", 1, "x")
                    .add_at("cf", "b", 1, "y")
                    .add_at("cf", "c", 1, "z"),
            )
            .expect("put");
        if i == 9 {
            region.flush().expect("flush");
        }
    }
    let rows = |scan: Scan| -> Vec<String> {
        scan_all(&region, &scan)
            .iter()
            .map(|r| String::from_utf8_lossy(r.row().expect("row")).into_owned())
            .collect()
    };
    assert_eq!(
        rows(Scan::new().start("row05").stop("row08")),
        ["row05", "row06", "row07"]
    );
    assert_eq!(
        rows(Scan::new().start("row08").stop("row05").reversed(true)),
        ["row08", "row07", "row06"]
    );
    assert_eq!(
        rows(Scan::new().reversed(true).limit(2)),
        ["row19", "row18"]
    );
    assert_eq!(
        rows(Scan::new().prefix("row1").limit(3)),
        ["row10", "row11", "row12"]
    );
    let mut inclusive = Scan::new().start("row03").stop("row05");
    inclusive.stop_inclusive = true;
    inclusive.start_inclusive = false;
    assert_eq!(rows(inclusive), ["row04", "row05"]);
    let parts = scan_all(&region, &Scan::new().start("row00").stop("row01").batch(2));
    assert_eq!(
        parts
            .iter()
            .map(|p| (p.cells.len(), p.partial))
            .collect::<Vec<_>>(),
        [(2, true), (1, false)]
    );
    let reversed_all = rows(Scan::new().reversed(true));
    assert_eq!(reversed_all.len(), 20);
    assert!(reversed_all.windows(2).all(|w| w[0] > w[1]));
}

#[test]
fn bad_input_gets_clear_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["f1", "f2"]));
    let err = region
        .put(&Put::new("r").add("nope", "q", "v"))
        .expect_err("unknown family");
    assert_eq!(
        err.to_string(),
        "Unknown column family! Valid column names: f1:*, f2:*"
    );
    let err = region
        .get(&Get::new("r").family("nope"))
        .expect_err("unknown family");
    assert_eq!(err.kind(), ErrorKind::InvalidRequest);
    let err = region
        .put(&Put::new("").add("f1", "q", "v"))
        .expect_err("empty row");
    assert!(err.to_string().contains("empty"), "{err}");
    let long_row = "x".repeat(40_000);
    assert!(region.put(&Put::new(long_row).add("f1", "q", "v")).is_err());
    let huge = vec![0u8; 11 * 1024 * 1024];
    let err = region
        .put(&Put::new("r").add("f1", "q", huge))
        .expect_err("cell too big");
    assert!(err.to_string().contains("exceeds limit"), "{err}");
}

#[test]
fn data_survives_close_and_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let engine = open_engine(dir.path(), Default::default());
        let region = open_region(&engine, table(&["cf"]));
        region
            .put(&Put::new("flushed").add("cf", "q", "1"))
            .expect("put");
        region.flush().expect("flush");
        region
            .put(&Put::new("logged").add("cf", "q", "2"))
            .expect("put");
        // Dropped without close: the logged put lives only in the write-ahead log.
    }
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(
        value_at(&region, "flushed", ("cf", "q")).as_deref(),
        Some(&b"1"[..])
    );
    assert_eq!(
        value_at(&region, "logged", ("cf", "q")).as_deref(),
        Some(&b"2"[..])
    );
    region
        .put(&Put::new("later").add("cf", "q", "3"))
        .expect("put");
    engine.close().expect("close");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(scan_all(&region, &Scan::new()).len(), 3);
}
