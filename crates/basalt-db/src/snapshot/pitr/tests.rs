//! The refusal rule, case by case: each row is a situation and the answer it gets.

use super::*;
use crate::snapshot::lineage::Cause;
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

/// The answer as one line: "ok" with the regions read and their generations, or the
/// refusal's distinctive words.
fn answer(
    s: &SnapshotManifest,
    current: Option<(&TableDescriptor, &[(String, u64)])>,
    lineage: &[Lineage],
    to: i64,
    now: i64,
) -> String {
    match check(s, current, lineage, to, now) {
        Ok(generations) => {
            let mut read: Vec<_> = generations.into_iter().collect();
            read.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
            let read: Vec<String> = read.iter().map(|(r, g)| format!("{r}:{g}")).collect();
            format!("ok {}", read.join(" "))
        }
        Err(e) => e.message,
    }
}

/// A lineage record of table `t`: `region` (id) made by `cause` from `parents`.
fn made(region: &str, id: u64, cause: Cause, parents: &[(&str, u64)]) -> Lineage {
    Lineage {
        table: TableName::parse("t").expect("a valid name"),
        region: region.into(),
        region_id: id,
        cause,
        parents: parents.iter().map(|(p, i)| (p.to_string(), *i)).collect(),
    }
}

/// The table's current descriptor and regions (encoded name, region id), as `check` takes
/// them.
type Current<'a> = Option<(&'a TableDescriptor, &'a [(String, u64)])>;

/// (what, snapshot, current table, lineage records, restore time, now, expected answer)
type Case<'a> = (
    &'a str,
    SnapshotManifest,
    Current<'a>,
    &'a [Lineage],
    i64,
    i64,
    &'a str,
);

#[test]
fn the_refusals_name_what_is_missing() {
    let kept = descriptor(Some("3600"));
    let unset = descriptor(None);
    // (encoded name, region id: about its creation's millisecond); the snapshot (at
    // 10_000) holds r1.
    let same = vec![("r1".to_string(), 1_000)];
    let split = vec![("a".to_string(), 11_000), ("b".to_string(), 11_000)];
    let merged = vec![("m".to_string(), 13_000)];
    let restored_since = vec![("r3".to_string(), 15_000)];
    let none: &[Lineage] = &[];
    let split_lineage = [
        made("a", 11_000, Cause::Split, &[("r1", 1_000)]),
        made("b", 11_000, Cause::Split, &[("r1", 1_000)]),
    ];
    // r1 split into a and b, merged back into m: only m is in the catalog now.
    let split_merged = [
        made("a", 11_000, Cause::Split, &[("r1", 1_000)]),
        made("b", 11_000, Cause::Split, &[("r1", 1_000)]),
        made("m", 13_000, Cause::Merge, &[("a", 11_000), ("b", 11_000)]),
    ];
    // r1 came from a split of p before the snapshot, beside a sibling q long gone.
    let before = [
        made("r1", 1_000, Cause::Split, &[("p", 500)]),
        made("q", 1_000, Cause::Split, &[("p", 500)]),
    ];
    // A restore at 15_000 made r3, which split into c and d at 16_000.
    let restored_split = [
        made("r3", 15_000, Cause::FromSnapshot, &[]),
        made("c", 16_000, Cause::Split, &[("r3", 15_000)]),
        made("d", 16_000, Cause::Split, &[("r3", 15_000)]),
    ];
    let restored_split_now = vec![("c".to_string(), 16_000), ("d".to_string(), 16_000)];
    // Truncated at 15_000 (r4) and again at 17_000 (r5): r4 is known from its record only.
    let truncated_twice = [
        made("r4", 15_000, Cause::Created, &[]),
        made("r5", 17_000, Cause::Created, &[]),
    ];
    let truncated_now = vec![("r5".to_string(), 17_000)];
    // a merge of the snapshot's region with a region from elsewhere
    let half = [made(
        "m",
        13_000,
        Cause::Merge,
        &[("r1", 1_000), ("x", 12_000)],
    )];
    let cases: Vec<Case> = vec![
        (
            "retained throughout",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            none,
            12_000,
            20_000,
            "ok r1:0",
        ),
        (
            "the time is the snapshot's own",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            none,
            10_000,
            20_000,
            "ok r1:0",
        ),
        (
            "not retained when taken",
            snapshot(None),
            Some((&kept, &same)),
            none,
            12_000,
            20_000,
            "did not retain its logs when it was taken",
        ),
        (
            "a time before the snapshot",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            none,
            9_999,
            20_000,
            "it was taken later, at 10000",
        ),
        (
            "past the retention window",
            snapshot(Some("1")),
            Some((&kept, &same)),
            none,
            10_500,
            11_001,
            "keeps its logs for 1 s",
        ),
        (
            "retention unset since",
            snapshot(Some("3600")),
            Some((&unset, &same)),
            none,
            12_000,
            20_000,
            "WAL_RETENTION_SECS was unset",
        ),
        (
            "table dropped",
            snapshot(Some("3600")),
            None,
            none,
            12_000,
            20_000,
            "no longer exists",
        ),
        (
            "split since: the daughters are read after their parent",
            snapshot(Some("3600")),
            Some((&kept, &split)),
            &split_lineage,
            12_000,
            20_000,
            "ok r1:0 a:1 b:1",
        ),
        (
            "split and merged back: the gone daughters are read too",
            snapshot(Some("3600")),
            Some((&kept, &merged)),
            &split_merged,
            12_000,
            20_000,
            "ok r1:0 a:1 b:1 m:2",
        ),
        (
            "a split since with no lineage record: not this history",
            snapshot(Some("3600")),
            Some((&kept, &split)),
            none,
            12_000,
            20_000,
            "region a of table 't' is not in the snapshot",
        ),
        (
            "a sibling gone before the snapshot is not another history",
            snapshot(Some("3600")),
            Some((&kept, &same)),
            &before,
            12_000,
            20_000,
            "ok r1:0",
        ),
        (
            "a region made after the time (a restore since) holds nothing before it",
            snapshot(Some("3600")),
            Some((&kept, &restored_since)),
            none,
            12_000,
            20_000,
            "ok r1:0",
        ),
        (
            "a restore since, at or before the time",
            snapshot(Some("3600")),
            Some((&kept, &restored_since)),
            none,
            15_000,
            20_000,
            "region r3 of table 't' is not in the snapshot and was created before 15000",
        ),
        (
            "a restore since, gone again by a split: named from its lineage",
            snapshot(Some("3600")),
            Some((&kept, &restored_split_now)),
            &restored_split,
            15_500,
            20_000,
            "region r3 of table 't' is not in the snapshot and was created before 15500",
        ),
        (
            "a restore since, split, all after the time",
            snapshot(Some("3600")),
            Some((&kept, &restored_split_now)),
            &restored_split,
            14_000,
            20_000,
            "ok r1:0",
        ),
        (
            "truncated twice since: the first truncate's region, gone, is named",
            snapshot(Some("3600")),
            Some((&kept, &truncated_now)),
            &truncated_twice,
            16_000,
            20_000,
            "region r4 of table 't' is not in the snapshot",
        ),
        (
            "a merge with a region of another history",
            snapshot(Some("3600")),
            Some((&kept, &merged)),
            &half,
            14_000,
            20_000,
            "region x of table 't' is not in the snapshot",
        ),
    ];
    for (what, s, current, lineage, to, now, expected) in cases {
        let got = answer(&s, current, lineage, to, now);
        assert!(
            got.contains(expected) && (expected.starts_with("ok") == got.starts_with("ok")),
            "{what}: expected an answer containing {expected:?}, got {got:?}"
        );
        if expected.starts_with("ok") {
            assert_eq!(got, expected, "{what}");
        }
    }
}
