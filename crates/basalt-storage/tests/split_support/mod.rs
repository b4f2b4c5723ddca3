//! Shared by the `split_*` tests: deterministic writes applied to a region and to a
//! control region that is never split or merged, and the answers to a fixed set of reads,
//! so that a daughter's answers can be compared with the control's rows of its range.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use basalt_storage::{Engine, Region, RegionInfo, Result};
use basalt_types::{Delete, Get, Put, Scan, TableDescriptor};
use bytes::Bytes;
use std::sync::Arc;

/// Rows `row00`..`row59`.
pub const ROWS: u64 = 60;

pub fn row(i: u64) -> String {
    format!("row{i:02}")
}

/// A write to replay on several regions.
#[derive(Debug, Clone)]
pub enum Op {
    Put(Put),
    Delete(Delete),
}

impl Op {
    pub fn row(&self) -> &Bytes {
        match self {
            Op::Put(p) => &p.row,
            Op::Delete(d) => &d.row,
        }
    }

    pub fn apply(&self, region: &Region) -> Result<()> {
        match self {
            Op::Put(p) => region.put(p),
            Op::Delete(d) => region.delete(d),
        }
    }
}

/// `n` varied writes over rows `[low, high)`: puts of several versions in two families and
/// every kind of delete, all with explicit timestamps (so that two regions agree).
pub fn random_ops(seed: u64, n: usize, low: u64, high: u64) -> Vec<Op> {
    let mut state = seed;
    let mut next = move |bound: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % bound
    };
    (0..n)
        .map(|i| {
            let r = row(low + next(high - low));
            let family = if next(3) == 0 { "d" } else { "cf" };
            let qualifier = format!("q{}", next(3));
            let ts = 1 + next(6) as i64;
            match next(10) {
                0 => Op::Delete(Delete::new(r).at(ts).version(family, qualifier)),
                1 => Op::Delete(Delete::new(r).at(ts).columns(family, qualifier)),
                2 => Op::Delete(Delete::new(r).at(ts).family(family)),
                _ => Op::Put(Put::new(r).add_at(family, qualifier, ts, format!("v{i}"))),
            }
        })
        .collect()
}

/// Applies `ops` to every region, failing on the first error.
pub fn apply_all(ops: &[Op], regions: &[&Region]) {
    for op in ops {
        for region in regions {
            op.apply(region).expect("write");
        }
    }
}

/// A cell as `row/family:qualifier@ts=value`.
fn show(cell: &basalt_types::Cell) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    format!(
        "{}/{}:{}@{}={}",
        text(cell.row()),
        text(cell.family()),
        text(cell.qualifier()),
        cell.timestamp(),
        text(cell.value())
    )
}

/// The reads every test compares: forward and reversed scans, whole and with start/stop
/// rows around the middle, several versions, and a get of every row.
fn queries() -> Vec<(String, Query)> {
    let mut out = vec![
        ("all".to_string(), Query::Scan(Scan::new().versions(3))),
        (
            "all reversed".into(),
            Query::Scan(Scan::new().reversed(true)),
        ),
    ];
    for (start, stop) in [
        ("row05", "row25"),
        ("row25", "row45"),
        ("row29", "row31"),
        ("", "row31"),
        ("row29", ""),
        ("row30", "row30\0"),
    ] {
        out.push((
            format!("{start}..{stop}"),
            Query::Scan(Scan::new().start(start).stop(stop).versions(2)),
        ));
        // Reversed: from the high row down to the low one.
        out.push((
            format!("{stop}..{start} reversed"),
            Query::Scan(Scan::new().start(stop).stop(start).reversed(true)),
        ));
    }
    for i in 0..ROWS {
        out.push((
            format!("get {}", row(i)),
            Query::Get(Get::new(row(i)).versions(3)),
        ));
    }
    out
}

enum Query {
    Scan(Scan),
    Get(Get),
}

/// Each query's cells whose rows are in `[low, high)` (empty: unbounded), one line per
/// query; `region` may hold more rows than that (the control region does).
pub fn answers(region: &Region, low: &[u8], high: &[u8]) -> Vec<String> {
    let in_range = |r: &[u8]| r >= low && (high.is_empty() || r < high);
    queries()
        .into_iter()
        .map(|(name, query)| {
            let cells = match query {
                Query::Scan(scan) => region
                    .scanner(&scan)
                    .expect("scanner opens")
                    .flat_map(|r| r.expect("scan reads").cells)
                    .collect::<Vec<_>>(),
                Query::Get(get) => region.get(&get).expect("get").cells,
            };
            let shown: Vec<String> = cells
                .iter()
                .filter(|c| in_range(c.row()))
                .map(show)
                .collect();
            format!("{name}: {}", shown.join(" "))
        })
        .collect()
}

/// Asserts `region` answers as `control` does for the rows of `region`'s range.
pub fn assert_same_as_control(region: &Region, control: &Region, what: &str) {
    let info = region.info();
    assert_same_in(region, control, &info.start_key, &info.end_key, what);
}

/// Asserts `region` answers as `control` does for the rows in `[low, high)`.
pub fn assert_same_in(region: &Region, control: &Region, low: &[u8], high: &[u8], what: &str) {
    let got = answers(region, low, high);
    let want = answers(control, low, high);
    assert!(
        want.iter().any(|line| line.contains('=')),
        "{what}: the control has no data in the range"
    );
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{what}");
    }
}

pub fn info(name: &str, start: &str, end: &str) -> RegionInfo {
    RegionInfo {
        name: name.to_string(),
        start_key: Bytes::copy_from_slice(start.as_bytes()),
        end_key: Bytes::copy_from_slice(end.as_bytes()),
    }
}

pub fn open(engine: &Engine, table: &TableDescriptor, info: RegionInfo) -> Arc<Region> {
    engine
        .open_region(info, table.clone())
        .expect("region opens")
}

/// Table `t` with families `cf` and `d`, three versions kept, small blocks (so files
/// have several blocks and a midpoint), and the log synced in the background (the tests
/// close their engines, which flushes; a sync per write would only slow them down).
pub fn table() -> TableDescriptor {
    let mut t = crate::support::table(&["cf", "d"]);
    t.durability = basalt_types::Durability::AsyncWal;
    for f in &mut t.families {
        f.max_versions = 3;
        f.block_size_bytes = 1024;
    }
    t
}
