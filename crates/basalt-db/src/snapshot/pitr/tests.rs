//! The refusal rule, case by case: each row is a situation and the answer it gets.

use super::*;
use crate::snapshot::manifest::SnapshotRegion;
use basalt_types::{FamilyDescriptor, TableName};

fn descriptor(retention: Option<&str>) -> TableDescriptor {
    let family = FamilyDescriptor::new("f").expect("a valid family");
    let mut d = TableDescriptor::new(TableName::parse("t").expect("a valid name"), vec![family]);
    if let Some(secs) = retention {
        d.metadata
            .insert(TableDescriptor::WAL_RETENTION_SECS.into(), secs.into());
    }
    d
}

fn snapshot(retention: Option<&str>) -> SnapshotManifest {
    SnapshotManifest {
        name: "s".into(),
        table: TableName::parse("t").expect("a valid name"),
        creation_ms: 10_000,
        ttl_secs: None,
        descriptor: descriptor(retention),
        regions: vec![SnapshotRegion {
            folder: "r1".into(),
            start_key: Bytes::new(),
            end_key: Bytes::new(),
            families: Vec::new(),
        }],
    }
}

/// The answer as one line: "ok" or the refusal's distinctive words.
fn answer(
    s: &SnapshotManifest,
    current: Option<(&TableDescriptor, &[(String, u64)])>,
    to: i64,
    now: i64,
) -> String {
    match check(s, current, to, now) {
        Ok(()) => "ok".into(),
        Err(e) => e.message,
    }
}

/// The table's current descriptor and regions (encoded name, region id), as `check` takes
/// them.
type Current<'a> = Option<(&'a TableDescriptor, &'a [(String, u64)])>;

/// (what, snapshot, current table, restore time, now, expected answer)
type Case<'a> = (&'a str, SnapshotManifest, Current<'a>, i64, i64, &'a str);

#[test]
fn the_refusals_name_what_is_missing() {
    let kept = descriptor(Some("3600"));
    let unset = descriptor(None);
    // (encoded name, region id: about its creation's millisecond)
    let same = vec![("r1".to_string(), 1_000)];
    let split = vec![("r1".to_string(), 1_000), ("r2".to_string(), 11_000)];
    let restored_since = vec![("r3".to_string(), 15_000)];
    let cases: Vec<Case> = vec![
        (
            "retained throughout",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            12_000,
            20_000,
            "ok",
        ),
        (
            "the time is the snapshot's own",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            10_000,
            20_000,
            "ok",
        ),
        (
            "not retained when taken",
            snapshot(None),
            Some((&kept, &same)),
            12_000,
            20_000,
            "did not retain its logs when it was taken",
        ),
        (
            "a time before the snapshot",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            9_999,
            20_000,
            "it was taken later, at 10000",
        ),
        (
            "past the retention window",
            snapshot(Some("1")),
            Some((&kept, &same)),
            10_500,
            11_001,
            "keeps its logs for 1 s",
        ),
        (
            "retention unset since",
            snapshot(Some("3600")),
            Some((&unset, &same)),
            12_000,
            20_000,
            "WAL_RETENTION_SECS was unset",
        ),
        (
            "table dropped",
            snapshot(Some("3600")),
            None,
            12_000,
            20_000,
            "no longer exists",
        ),
        (
            "split since",
            snapshot(Some("3600")),
            Some((&kept, &split)),
            12_000,
            20_000,
            "region r2 of table 't' is not in the snapshot",
        ),
        (
            "a region made after the time (a restore since) holds nothing before it",
            snapshot(Some("3600")),
            Some((&kept, &restored_since)),
            12_000,
            20_000,
            "ok",
        ),
        (
            "a region made at or before the time, not in the snapshot",
            snapshot(Some("3600")),
            Some((&kept, &restored_since)),
            15_000,
            20_000,
            "region r3 of table 't' is not in the snapshot and was created before 15000",
        ),
    ];
    for (what, s, current, to, now, expected) in cases {
        let got = answer(&s, current, to, now);
        assert!(
            got.contains(expected),
            "{what}: expected an answer containing {expected:?}, got {got:?}"
        );
    }
}
