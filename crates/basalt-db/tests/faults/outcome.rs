//! Reopening a damaged copy and reading every region back against the model.

use super::damage::hfiles;
use super::world::{config, RegionId, Row, Worlds, FAMILY, QUALIFIER};
use basalt_api::Connection;
use basalt_db::{Database, EmbeddedConnection};
use basalt_types::Get;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::time::{Duration, Instant};

/// The designed outcome of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Every region serves every row with its newest value.
    Served,
    /// The region opens; reads that reach the damaged block fail with a corruption error
    /// naming the file, every other read is right.
    BlockError(RegionId),
    /// These regions failed to open: every read fails with an error naming the damaged
    /// file. Every other region serves.
    Failed(Vec<RegionId>),
    /// `hbase:meta` failed: every user region fails, the error names the damaged file.
    CatalogFailed,
    /// The newest segment's tail from this record on was dropped as torn: rows whose puts
    /// were there read their earlier value, everything else is served.
    TornTail(usize),
}

/// What one region did when read back.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    Served,
    /// Every read failed; the first error.
    Failed(String),
    /// Some reads failed, some succeeded (all with right values); the first error.
    Partly(String),
}

/// Opens the damaged copy at `root`, reads every row, closes, and checks the outcome
/// against `expect`. `damaged` is the file name the errors must name.
pub fn check(worlds: &Worlds, root: &Path, crashed: bool, damaged: &str, expect: &Expect) {
    let files_before = contents(root);
    let db = Database::open(root, config())
        .unwrap_or_else(|e| panic!("the database must open despite the damage: {e}"));
    let conn = EmbeddedConnection::new(db.clone());
    let torn_from = match expect {
        Expect::TornTail(record) => Some(*record),
        _ => None,
    };
    let mut seen = BTreeMap::new();
    for region in RegionId::ALL {
        let rows: Vec<&Row> = worlds.rows.iter().filter(|r| r.region == region).collect();
        seen.insert(region, read_region(&conn, &rows, crashed, torn_from));
    }
    drop(conn);
    db.close().expect("the database closes");
    drop(db);
    compare(&seen, damaged, expect);
    let after = contents(root);
    let lost: Vec<_> = files_before.difference(&after).collect();
    assert!(lost.is_empty(), "store files deleted: {lost:?}");
}

fn read_region(
    conn: &EmbeddedConnection,
    rows: &[&Row],
    crashed: bool,
    torn_from: Option<usize>,
) -> Seen {
    let mut first_error = None;
    let mut served = 0;
    for row in rows {
        let want = match &row.v2 {
            Some((record, v2)) if crashed && torn_from.is_none_or(|t| *record < t) => v2,
            _ => &row.v1,
        };
        let started = Instant::now();
        let got = conn
            .table(&row.region.table())
            .and_then(|t| t.get(&Get::new(row.key.clone())));
        let took = started.elapsed();
        match got {
            Ok(result) => {
                let value = result.value(FAMILY.as_bytes(), QUALIFIER.as_bytes());
                assert_eq!(
                    value.map(|v| v.to_vec()).as_ref(),
                    Some(want),
                    "silently wrong value for row {}",
                    String::from_utf8_lossy(&row.key)
                );
                served += 1;
            }
            Err(e) => {
                assert!(
                    took < Duration::from_secs(1),
                    "a failed read took {took:?} to fail: {e}"
                );
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    match first_error {
        None => Seen::Served,
        Some(e) if served == 0 => Seen::Failed(e),
        Some(e) => Seen::Partly(e),
    }
}

fn compare(seen: &BTreeMap<RegionId, Seen>, damaged: &str, expect: &Expect) {
    let user_regions: BTreeSet<RegionId> = RegionId::ALL.into_iter().collect();
    let (failed, partly): (BTreeSet<RegionId>, BTreeSet<RegionId>) = match expect {
        Expect::Served | Expect::TornTail(_) => (BTreeSet::new(), BTreeSet::new()),
        Expect::BlockError(r) => (BTreeSet::new(), BTreeSet::from([r.clone()])),
        Expect::Failed(rs) => (rs.iter().cloned().collect(), BTreeSet::new()),
        Expect::CatalogFailed => (user_regions.clone(), BTreeSet::new()),
    };
    for (region, got) in seen {
        match got {
            Seen::Served => assert!(
                !failed.contains(region) && !partly.contains(region),
                "{region:?} served, but the design is {expect:?}"
            ),
            Seen::Failed(e) => {
                assert!(
                    failed.contains(region),
                    "{region:?} failed ({e}), but the design is {expect:?}"
                );
                assert!(
                    e.contains(damaged),
                    "{region:?}'s error does not name {damaged}: {e}"
                );
            }
            Seen::Partly(e) => {
                assert!(
                    partly.contains(region),
                    "{region:?} partly served ({e}), but the design is {expect:?}"
                );
                assert!(
                    e.contains(damaged),
                    "{region:?}'s error does not name {damaged}: {e}"
                );
            }
        }
    }
    for region in partly {
        assert!(
            matches!(seen[&region], Seen::Partly(_)),
            "{region:?} should fail the reads of its damaged block: {:?}",
            seen[&region]
        );
    }
}

/// A fingerprint of every store file's bytes under `root` (wherever it sits: in its
/// region, or moved aside to a quarantine folder).
fn contents(root: &Path) -> BTreeSet<(u64, u64)> {
    hfiles(root)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("read store file");
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut hasher);
            (bytes.len() as u64, hasher.finish())
        })
        .collect()
}
