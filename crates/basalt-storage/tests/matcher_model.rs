//! The matcher against a plain model of HBase's read rules, on random small rows.
//!
//! The model looks at each column as a whole (no cursor, no seeks): a put is visible when
//! no marker masks it, it is in the time range, its own TTL has not run out, it is the
//! newest of its timestamp, and it is within the versions (MIN_VERSIONS beating the
//! family TTL). A second property: flushes and compactions never change what a full read
//! sees (without KEEP_DELETED_CELLS, where deleted cells do not count as versions).

use basalt_storage::scanner::matcher::{
    apply, CompactionKind, CompactionMatcher, CompactionOptions, UserMatcher, UserScanOptions,
};
use basalt_types::{Cell, CellType, FamilyDescriptor, KeepDeletedCells, TimeRange};
use bytes::Bytes;
use proptest::prelude::*;

const NOW_MS: i64 = 100;

fn arb_cell() -> impl Strategy<Value = Cell> {
    let kinds = prop_oneof![
        4 => Just(CellType::Put),
        1 => Just(CellType::Delete),
        1 => Just(CellType::DeleteColumn),
        1 => Just(CellType::DeleteFamily),
        1 => Just(CellType::DeleteFamilyVersion),
    ];
    (
        0..2u8,
        0..3u8,
        85..100i64,
        kinds,
        prop::option::weighted(0.2, 0..12u64),
    )
        .prop_map(|(row, q, ts, kind, ttl)| {
            let q = if kind.is_family_delete() {
                ""
            } else {
                ["", "a", "b"][q as usize]
            };
            let mut cell = Cell::marker(format!("r{row}"), "cf", q, ts, kind);
            if kind == CellType::Put {
                cell.set_value(Bytes::from(format!("v{ts}")));
                cell.set_ttl_ms(ttl);
            }
            cell
        })
}

/// Sorted cells with distinct sequence ids (write order = generation order).
fn arb_cells() -> impl Strategy<Value = Vec<Cell>> {
    prop::collection::vec(arb_cell(), 0..24).prop_map(|cells| {
        let mut cells: Vec<Cell> = cells
            .into_iter()
            .enumerate()
            .map(|(i, c)| c.with_seq(i as u64 + 1))
            .collect();
        cells.sort_by(|a, b| a.cmp_key(b));
        cells
    })
}

fn arb_family() -> impl Strategy<Value = FamilyDescriptor> {
    let keep = prop_oneof![
        Just(KeepDeletedCells::False),
        Just(KeepDeletedCells::True),
        Just(KeepDeletedCells::Ttl)
    ];
    (1..4u32, 0..4u32, prop::option::of(1..2u64), keep).prop_map(|(max, min, ttl, keep)| {
        let mut f = FamilyDescriptor::new("cf").expect("valid name");
        f.max_versions = max;
        f.min_versions = min.min(max);
        // A 1 s TTL; `now_for` picks the clock that makes it bite inside 85..100.
        if let Some(secs) = ttl {
            f.ttl_secs = secs;
        }
        f.keep_deleted_cells = keep;
        f
    })
}

/// A clock that makes a 1-second family TTL expire timestamps below `cutoff`.
fn now_for(family: &FamilyDescriptor, cutoff: i64) -> i64 {
    match family.ttl_ms() {
        Some(ttl_ms) => cutoff + ttl_ms as i64,
        None => NOW_MS,
    }
}

fn cell_ttl_expired(c: &Cell, now: i64) -> bool {
    c.ttl_ms()
        .is_some_and(|ttl| c.timestamp() + (ttl as i64) < now)
}

fn masks(marker: &Cell, put: &Cell) -> bool {
    match marker.cell_type() {
        CellType::DeleteFamily => put.timestamp() <= marker.timestamp(),
        CellType::DeleteFamilyVersion => put.timestamp() == marker.timestamp(),
        CellType::DeleteColumn => {
            put.qualifier() == marker.qualifier() && put.timestamp() <= marker.timestamp()
        }
        CellType::Delete => {
            put.qualifier() == marker.qualifier() && put.timestamp() == marker.timestamp()
        }
        _ => false,
    }
}

#[derive(Debug, Clone)]
struct Read {
    versions: u32,
    range: TimeRange,
    columns: Option<Vec<Bytes>>,
}

/// What a normal read returns, column by column.
fn model(family: &FamilyDescriptor, cells: &[Cell], read: &Read, now: i64) -> Vec<Cell> {
    let oldest = family.ttl_ms().map_or(i64::MIN, |t| now - t as i64);
    let keep = family.keep_deleted_cells != KeepDeletedCells::False;
    let limit = read.versions.min(family.max_versions);
    let mut out = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        let row = &cells[i].row();
        let end = i + cells[i..].iter().take_while(|c| c.row() == *row).count();
        let row_cells = &cells[i..end];
        let markers: Vec<&Cell> = row_cells
            .iter()
            .filter(|m| m.is_delete())
            .filter(|m| {
                if keep {
                    read.range.contains(m.timestamp())
                } else {
                    read.range.is_all() || m.timestamp() >= read.range.min
                }
            })
            .collect();
        let mut column: Option<Bytes> = None;
        let (mut count, mut last_ts) = (0u32, None);
        for put in row_cells.iter().filter(|c| !c.is_delete()) {
            if column.as_ref() != Some(&put.qualifier_bytes()) {
                column = Some(put.qualifier_bytes());
                (count, last_ts) = (0, None);
            }
            let wanted = read
                .columns
                .as_ref()
                .is_none_or(|w| w.contains(&put.qualifier_bytes()));
            if !wanted
                || cell_ttl_expired(put, now)
                || markers.iter().any(|m| masks(m, put))
                || !read.range.contains(put.timestamp())
                || last_ts == Some(put.timestamp())
            {
                continue;
            }
            count += 1;
            if count <= limit && (count <= family.min_versions || put.timestamp() >= oldest) {
                last_ts = Some(put.timestamp());
                out.push(put.clone());
            }
        }
        i = end;
    }
    out
}

/// What a raw read returns: markers and masked puts too, no family TTL, puts counted
/// against the read's versions alone.
fn raw_model(cells: &[Cell], read: &Read, now: i64) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::new();
    let mut column: Option<(Bytes, Bytes)> = None;
    let (mut count, mut last, mut done) = (0u32, None, false);
    for cell in cells {
        let key = (cell.row_bytes(), cell.qualifier_bytes());
        if column.as_ref() != Some(&key) {
            column = Some(key);
            (count, last, done) = (0, None, false);
        }
        let wanted = read
            .columns
            .as_ref()
            .is_none_or(|w| w.contains(&cell.qualifier_bytes()));
        if done
            || !wanted
            || cell_ttl_expired(cell, now)
            || !read.range.contains(cell.timestamp())
            || last == Some((cell.timestamp(), cell.cell_type()))
        {
            continue;
        }
        if !cell.is_delete() {
            count += 1;
        }
        if count > read.versions {
            done = true;
            continue;
        }
        last = Some((cell.timestamp(), cell.cell_type()));
        out.push(cell.clone());
    }
    out
}

fn scan(family: &FamilyDescriptor, cells: &[Cell], read: &Read, now: i64) -> Vec<Cell> {
    read_with(family, cells, read, now, false)
}

fn read_with(
    family: &FamilyDescriptor,
    cells: &[Cell],
    read: &Read,
    now: i64,
    raw: bool,
) -> Vec<Cell> {
    let options = UserScanOptions {
        max_versions: read.versions,
        time_range: read.range,
        columns: read.columns.clone(),
        raw,
        has_filter: false,
        now_ms: now,
    };
    apply(&mut UserMatcher::new(family, options), cells, None)
}

fn compact(family: &FamilyDescriptor, cells: &[Cell], kind: CompactionKind, now: i64) -> Vec<Cell> {
    let mut options = CompactionOptions::new(kind, now);
    options.earliest_put_ts = cells
        .iter()
        .filter(|c| !c.is_delete())
        .map(|c| c.timestamp())
        .min()
        .unwrap_or(i64::MAX);
    apply(&mut CompactionMatcher::new(family, options), cells, None)
}

fn arb_read() -> impl Strategy<Value = Read> {
    let range = prop_oneof![
        Just(TimeRange::ALL),
        (85..100i64, 0..8i64).prop_map(|(min, len)| TimeRange {
            min,
            max: min + len
        }),
    ];
    let columns = prop::option::of(prop::sample::subsequence(vec!["", "a", "b"], 1..3));
    (1..4u32, range, columns).prop_map(|(versions, range, columns)| Read {
        versions,
        range,
        columns: columns.map(|c| c.into_iter().map(Bytes::from).collect()),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn matcher_normal_reads_match_the_model(
        family in arb_family(), cells in arb_cells(), read in arb_read(), cutoff in 85..100i64,
    ) {
        let now = now_for(&family, cutoff);
        prop_assert_eq!(scan(&family, &cells, &read, now), model(&family, &cells, &read, now));
    }

    #[test]
    fn matcher_raw_reads_match_the_model(
        family in arb_family(), cells in arb_cells(), read in arb_read(), cutoff in 85..100i64,
    ) {
        let now = now_for(&family, cutoff);
        prop_assert_eq!(read_with(&family, &cells, &read, now, true), raw_model(&cells, &read, now));
    }

    #[test]
    fn matcher_rewrites_do_not_change_a_full_read(
        mut family in arb_family(), cells in arb_cells(), cutoff in 85..100i64,
    ) {
        family.keep_deleted_cells = KeepDeletedCells::False;
        let now = now_for(&family, cutoff);
        let full = Read { versions: family.max_versions, range: TimeRange::ALL, columns: None };
        let expected = scan(&family, &cells, &full, now);
        let flushed = compact(&family, &cells, CompactionKind::Flush, now);
        prop_assert_eq!(&scan(&family, &flushed, &full, now), &expected);
        let minor = compact(&family, &flushed, CompactionKind::Minor, now);
        prop_assert_eq!(&scan(&family, &minor, &full, now), &expected);
        let major = compact(&family, &minor, CompactionKind::Major, now);
        prop_assert!(major.iter().all(|c| !c.is_delete()), "major kept a marker: {:?}", major);
        prop_assert_eq!(&scan(&family, &major, &full, now), &expected);
    }
}
