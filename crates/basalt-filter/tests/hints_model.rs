//! Seek hints must never skip a matching cell: each hinting filter, run through the
//! reference scan loop forwards and backwards, returns exactly the cells a brute-force
//! predicate selects.

mod support;

use basalt_filter::build;
use basalt_types::filter_spec::{Comparator, CompareSpec, FuzzyKey, RowRange};
use basalt_types::{Cell, CompareOp, FilterSpec};
use bytes::Bytes;
use proptest::prelude::*;
use support::scan::{run, ScanSettings};

/// Short keys over a tiny alphabet, so that rules and ranges actually hit.
fn key(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop::sample::select(vec![0u8, b'a', b'b', 0xff]),
        0..=max_len,
    )
}

fn table(rows: Vec<Vec<u8>>, qualifiers: Vec<Vec<u8>>) -> Vec<Cell> {
    let mut cells = Vec::new();
    for r in rows.iter().filter(|r| !r.is_empty()) {
        for q in &qualifiers {
            // A second family for qualifiers ending in 'b': NEXT_ROW must stay per family.
            let family = if q.last() == Some(&b'b') { "f2" } else { "cf" };
            cells.push(Cell::put(
                Bytes::from(r.clone()),
                family,
                Bytes::from(q.clone()),
                1,
                "v",
            ));
        }
    }
    cells.sort_by(|a, b| a.cmp_key(b));
    cells.dedup_by(|a, b| a.cmp_key(b).is_eq());
    cells
}

fn scan(cells: &[Cell], spec: &FilterSpec, reversed: bool) -> Vec<Cell> {
    let settings = ScanSettings {
        reversed,
        ..ScanSettings::default()
    };
    run(cells, Some(build(spec).expect("valid spec")), &settings)
}

/// The expected cells in scan order.
fn expected(cells: &[Cell], mut keep: impl FnMut(&Cell) -> bool, reversed: bool) -> Vec<Cell> {
    let kept: Vec<Cell> = cells.iter().filter(|c| keep(c)).cloned().collect();
    if !reversed {
        return kept;
    }
    // Rows descending, cells within a row ascending.
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for c in kept {
        match rows.last_mut() {
            Some(row) if row[0].row() == c.row() => row.push(c),
            _ => rows.push(vec![c]),
        }
    }
    rows.into_iter().rev().flatten().collect()
}

fn fuzzy_match(rule: &FuzzyKey, row: &[u8]) -> bool {
    row.iter()
        .zip(rule.key.iter())
        .zip(rule.mask.iter())
        .all(|((r, k), m)| *m == 1 || r == k)
}

fn in_range(r: &RowRange, row: &[u8]) -> bool {
    let (start, stop) = (r.start.as_ref(), r.stop.as_ref());
    (start.is_empty() || row > start || (row == start && r.start_inclusive))
        && (stop.is_empty() || row < stop || (row == stop && r.stop_inclusive))
}

fn fuzzy_rule() -> impl Strategy<Value = FuzzyKey> {
    key(4).prop_flat_map(|k| {
        let n = k.len();
        (Just(k), proptest::collection::vec(0u8..=1, n)).prop_map(|(key, mask)| FuzzyKey {
            key: Bytes::from(key),
            mask: Bytes::from(mask),
        })
    })
}

fn row_range() -> impl Strategy<Value = RowRange> {
    (key(3), any::<bool>(), key(3), any::<bool>()).prop_map(|(a, ai, b, bi)| {
        let (start, stop) = if b.is_empty() || a <= b {
            (a, b)
        } else {
            (b, a)
        };
        RowRange {
            start_inclusive: ai || start == stop,
            stop_inclusive: bi || start == stop,
            start: Bytes::from(start),
            stop: Bytes::from(stop),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn fuzzy_rows_match_the_model(
        rows in proptest::collection::vec(key(5), 0..24),
        rules in proptest::collection::vec(fuzzy_rule(), 1..3),
        reversed in any::<bool>(),
    ) {
        let cells = table(rows, vec![b"q".to_vec(), b"r".to_vec()]);
        let spec = FilterSpec::FuzzyRow(rules.clone());
        let want = expected(&cells, |c| rules.iter().any(|r| fuzzy_match(r, c.row())), reversed);
        prop_assert_eq!(scan(&cells, &spec, reversed), want);
    }

    #[test]
    fn row_ranges_match_the_model(
        rows in proptest::collection::vec(key(4), 0..24),
        ranges in proptest::collection::vec(row_range(), 1..4),
        reversed in any::<bool>(),
    ) {
        let cells = table(rows, vec![b"q".to_vec()]);
        let spec = FilterSpec::MultiRowRange(ranges.clone());
        let want = expected(&cells, |c| ranges.iter().any(|r| in_range(r, c.row())), reversed);
        prop_assert_eq!(scan(&cells, &spec, reversed), want);
    }

    #[test]
    fn column_filters_match_the_model(
        rows in proptest::collection::vec(key(2), 1..6),
        qualifiers in proptest::collection::vec(key(3), 1..10),
        prefixes in proptest::collection::vec(key(2), 0..3),
        bounds in (key(2), any::<bool>(), key(2), any::<bool>()),
        reversed in any::<bool>(),
    ) {
        let cells = table(rows, qualifiers);
        let prefixes: Vec<Bytes> = prefixes.into_iter().map(Bytes::from).collect();
        let multi = FilterSpec::MultipleColumnPrefix(prefixes.clone());
        let want = expected(
            &cells,
            |c| prefixes.is_empty() || prefixes.iter().any(|p| c.qualifier().starts_with(p)),
            reversed,
        );
        prop_assert_eq!(scan(&cells, &multi, reversed), want);

        if let Some(p) = prefixes.first() {
            let single = FilterSpec::ColumnPrefix(p.clone());
            let want = expected(&cells, |c| c.qualifier().starts_with(p), reversed);
            prop_assert_eq!(scan(&cells, &single, reversed), want);
            let row_prefix = FilterSpec::Prefix(p.clone());
            let want = expected(&cells, |c| c.row().starts_with(p), reversed);
            prop_assert_eq!(scan(&cells, &row_prefix, reversed), want);
        }

        let (min, min_inclusive, max, max_inclusive) = bounds;
        let range = FilterSpec::ColumnRange {
            min: Bytes::from(min.clone()),
            min_inclusive,
            max: Bytes::from(max.clone()),
            max_inclusive,
        };
        let want = expected(
            &cells,
            |c| {
                let q = c.qualifier();
                let above = min.is_empty() || q > min.as_slice() || (min_inclusive && q == min.as_slice());
                let below = max.is_empty() || q < max.as_slice() || (max_inclusive && q == max.as_slice());
                above && below
            },
            reversed,
        );
        prop_assert_eq!(scan(&cells, &range, reversed), want);
    }
}

/// A leaf filter whose verdict depends on the cell alone, with its predicate.
fn leaf() -> impl Strategy<Value = FilterSpec> {
    let b = || key(2).prop_map(Bytes::from);
    prop_oneof![
        b().prop_map(FilterSpec::ColumnPrefix),
        proptest::collection::vec(b(), 1..3).prop_map(FilterSpec::MultipleColumnPrefix),
        (b(), any::<bool>(), b(), any::<bool>()).prop_map(|(min, mi, max, ma)| {
            FilterSpec::ColumnRange {
                min,
                min_inclusive: mi,
                max,
                max_inclusive: ma,
            }
        }),
        b().prop_map(FilterSpec::Prefix),
        proptest::collection::vec(row_range(), 1..3).prop_map(FilterSpec::MultiRowRange),
        proptest::collection::vec(fuzzy_rule(), 1..3).prop_map(FilterSpec::FuzzyRow),
        b().prop_map(|v| FilterSpec::Qualifier(CompareSpec {
            op: CompareOp::GreaterOrEqual,
            comparator: Comparator::Binary(v),
        })),
    ]
}

fn tree() -> impl Strategy<Value = FilterSpec> {
    leaf().prop_recursive(2, 12, 3, |inner| {
        (any::<bool>(), proptest::collection::vec(inner, 1..4)).prop_map(
            |(must_pass_all, filters)| FilterSpec::List {
                must_pass_all,
                filters,
            },
        )
    })
}

fn holds(spec: &FilterSpec, c: &Cell) -> bool {
    let q = c.qualifier();
    match spec {
        FilterSpec::List {
            must_pass_all: true,
            filters,
        } => filters.iter().all(|f| holds(f, c)),
        FilterSpec::List { filters, .. } => filters.iter().any(|f| holds(f, c)),
        FilterSpec::ColumnPrefix(p) => q.starts_with(p),
        FilterSpec::MultipleColumnPrefix(ps) => ps.iter().any(|p| q.starts_with(p)),
        FilterSpec::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => {
            let (min, max) = (min.as_ref(), max.as_ref());
            (min.is_empty() || q > min || (*min_inclusive && q == min))
                && (max.is_empty() || q < max || (*max_inclusive && q == max))
        }
        FilterSpec::Prefix(p) => c.row().starts_with(p),
        FilterSpec::MultiRowRange(rs) => rs.iter().any(|r| in_range(r, c.row())),
        FilterSpec::FuzzyRow(rules) => rules.iter().any(|r| fuzzy_match(r, c.row())),
        FilterSpec::Qualifier(CompareSpec {
            comparator: Comparator::Binary(v),
            ..
        }) => q >= v.as_ref(),
        other => unreachable!("not generated: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// AND / OR lists merge codes and hints so that exactly the cells the boolean
    /// combination selects come back.
    #[test]
    fn lists_of_hinting_filters_match_the_model(
        rows in proptest::collection::vec(key(3), 1..8),
        qualifiers in proptest::collection::vec(key(3), 1..8),
        spec in tree(),
        reversed in any::<bool>(),
    ) {
        let cells = table(rows, qualifiers);
        let want = expected(&cells, |c| holds(&spec, c), reversed);
        prop_assert_eq!(scan(&cells, &spec, reversed), want, "{:?}", spec);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Per row, the columns (across families, in order) from `offset` to `offset + limit`.
    #[test]
    fn column_pagination_matches_the_model(
        rows in proptest::collection::vec(key(2), 1..5),
        qualifiers in proptest::collection::vec(key(3), 1..8),
        limit in 0i32..4,
        offset in 0i32..4,
        reversed in any::<bool>(),
    ) {
        let cells = table(rows, qualifiers);
        let spec = FilterSpec::ColumnPagination {
            limit,
            offset: basalt_types::filter_spec::ColumnOffset::Index(offset),
        };
        let (lo, hi) = (offset as usize, (offset + limit) as usize);
        let mut index = 0usize;
        let mut row: Option<Bytes> = None;
        let positions: Vec<usize> = cells
            .iter()
            .map(|c| {
                if row.as_ref() != Some(&c.row_bytes()) {
                    row = Some(c.row_bytes());
                    index = 0;
                }
                index += 1;
                index - 1
            })
            .collect();
        let want: Vec<Cell> = {
            let mut i = 0;
            expected(&cells, |_| { let p = positions[i]; i += 1; (lo..hi).contains(&p) }, reversed)
        };
        prop_assert_eq!(scan(&cells, &spec, reversed), want);
    }

    /// Versions whose timestamp is listed, newest first, at most `versions` per column;
    /// hinting or not gives the same cells.
    #[test]
    fn timestamps_match_the_model(
        columns in proptest::collection::vec((key(1), key(1), proptest::collection::btree_set(0i64..6, 1..5)), 1..6),
        listed in proptest::collection::btree_set(0i64..6, 0..4),
        versions in 1usize..4,
        can_hint in any::<bool>(),
    ) {
        let mut cells: Vec<Cell> = columns
            .iter()
            .filter(|(r, _, _)| !r.is_empty())
            .flat_map(|(r, q, stamps)| {
                stamps.iter().map(move |&ts| {
                    Cell::put(Bytes::from(r.clone()), "cf", Bytes::from(q.clone()), ts, "v")
                })
            })
            .collect();
        cells.sort_by(|a, b| a.cmp_key(b));
        cells.dedup_by(|a, b| a.cmp_key(b).is_eq());
        let spec = FilterSpec::Timestamps {
            timestamps: listed.iter().copied().collect(),
            can_hint,
        };
        let mut want = Vec::new();
        let mut taken = 0usize;
        let mut last: Option<&Cell> = None;
        for c in &cells {
            if last.is_none_or(|l| !l.same_column(c)) {
                taken = 0;
            }
            last = Some(c);
            if listed.contains(&c.timestamp()) && taken < versions {
                taken += 1;
                want.push(c.clone());
            }
        }
        let settings = ScanSettings { versions, ..ScanSettings::default() };
        let got = run(&cells, Some(build(&spec).expect("valid spec")), &settings);
        prop_assert_eq!(got, want);
    }
}
