//! The final scan against the acknowledged and unknown puts.

use basalt_chaos::{check_durability, DuplicatedRow, LostRow, PhantomRow};

fn rows(pairs: &[(&str, &str)]) -> Vec<(Vec<u8>, Vec<u8>)> {
    pairs
        .iter()
        .map(|(r, v)| (r.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect()
}

#[test]
fn a_faithful_scan_is_clean() {
    let acked = rows(&[("r1", "a"), ("r2", "b")]);
    let unknown = rows(&[("r3", "c"), ("r4", "d")]);
    let scanned = rows(&[("r1", "a"), ("r2", "b"), ("r3", "c")]);
    let report = check_durability(&acked, &unknown, &scanned);
    assert!(report.is_clean(), "{report}");
    assert_eq!(
        (report.acked_rows, report.unknown_rows, report.scanned_rows),
        (2, 2, 3)
    );
    assert_eq!(report.unknown_present, 1);
    assert_eq!(report.to_string().lines().count(), 1);
}

#[test]
fn missing_and_overwritten_rows_are_lost() {
    let acked = rows(&[("r1", "a"), ("r2", "b"), ("r3", "c")]);
    let scanned = rows(&[("r2", "x"), ("r3", "c")]);
    let report = check_durability(&acked, &[], &scanned);
    assert_eq!(
        report.lost,
        vec![
            LostRow {
                row: b"r1".to_vec(),
                acked: vec![b"a".to_vec()],
                found: None
            },
            LostRow {
                row: b"r2".to_vec(),
                acked: vec![b"b".to_vec()],
                found: Some(b"x".to_vec())
            },
        ]
    );
    assert!(report.duplicated.is_empty() && report.phantom.is_empty());
    let text = report.to_string();
    assert!(
        text.contains("\nlost row \"r1\": acknowledged \"a\", not returned"),
        "{text}"
    );
    assert!(
        text.contains("\nlost row \"r2\": acknowledged \"b\", returned \"x\""),
        "{text}"
    );
}

#[test]
fn a_later_unknown_put_may_explain_another_value() {
    let acked = rows(&[("r1", "a")]);
    let unknown = rows(&[("r1", "b")]);
    let report = check_durability(&acked, &unknown, &rows(&[("r1", "b")]));
    assert!(report.is_clean(), "{report}");
}

#[test]
fn rows_returned_twice_are_duplicated() {
    let acked = rows(&[("r1", "a"), ("r2", "b")]);
    let unknown = rows(&[("r3", "c")]);
    let scanned = rows(&[
        ("r1", "a"),
        ("r1", "a"),
        ("r2", "b"),
        ("r3", "c"),
        ("r3", "c"),
        ("r3", "c"),
    ]);
    let report = check_durability(&acked, &unknown, &scanned);
    assert!(report.lost.is_empty() && report.phantom.is_empty());
    assert_eq!(
        report.duplicated,
        vec![
            DuplicatedRow {
                row: b"r1".to_vec(),
                times: 2
            },
            DuplicatedRow {
                row: b"r3".to_vec(),
                times: 3
            },
        ]
    );
    assert!(report
        .to_string()
        .contains("\nduplicated row \"r3\": returned 3 times"));
}

#[test]
fn rows_nobody_wrote_are_phantoms() {
    let acked = rows(&[("r1", "a")]);
    let unknown = rows(&[("r2", "b")]);
    let scanned = rows(&[("r1", "a"), ("r2", "zz"), ("r9", "q"), ("r9", "q")]);
    let report = check_durability(&acked, &unknown, &scanned);
    assert!(report.lost.is_empty());
    assert_eq!(
        report.phantom,
        vec![
            PhantomRow {
                row: b"r2".to_vec(),
                value: b"zz".to_vec()
            },
            PhantomRow {
                row: b"r9".to_vec(),
                value: b"q".to_vec()
            },
        ]
    );
    assert_eq!(
        report.duplicated,
        vec![DuplicatedRow {
            row: b"r9".to_vec(),
            times: 2
        }]
    );
    assert_eq!(report.unknown_present, 0);
    assert!(!report.is_clean());
    assert_eq!(report.to_string().lines().count(), 4);
}
