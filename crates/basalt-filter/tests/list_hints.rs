//! FilterList merges its filters' seek hints: AND takes the furthest, OR the nearest.

use basalt_filter::{build, parse, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

fn cell(q: &'static str) -> Cell {
    Cell::put("r1", "cf", q, 1, "v")
}

fn hint_qualifier(filter: &str, at: &'static str) -> (ReturnCode, Option<Bytes>) {
    let mut f = build(&parse(filter).expect("valid filter")).expect("buildable");
    let c = cell(at);
    let code = f.filter_cell(&c);
    (code, f.next_cell_hint(&c).map(|h| h.qualifier_bytes()))
}

#[test]
fn and_seeks_to_the_furthest_hint() {
    let (code, hint) = hint_qualifier(
        "ColumnPrefixFilter('d') AND ColumnRangeFilter('b', true, 'z', true)",
        "a",
    );
    assert_eq!(code, ReturnCode::SeekNextUsingHint);
    assert_eq!(hint, Some(Bytes::from_static(b"d")));
}

#[test]
fn or_seeks_to_the_nearest_hint_only_when_all_seek() {
    let (code, hint) = hint_qualifier("ColumnPrefixFilter('d') OR ColumnPrefixFilter('c')", "a");
    assert_eq!(code, ReturnCode::SeekNextUsingHint);
    assert_eq!(hint, Some(Bytes::from_static(b"c")));
    let (code, _) = hint_qualifier(
        "ColumnPrefixFilter('d') OR QualifierFilter(=, 'binary:x')",
        "a",
    );
    assert_eq!(code, ReturnCode::Skip);
}

#[test]
fn prefix_filter_hints_to_the_prefix_going_forward() {
    let mut f = build(&parse("PrefixFilter('m')").expect("valid")).expect("buildable");
    let first = Cell::put("b", "cf", "q", 1, "v");
    assert!(!f.filter_row_key(&first));
    assert_eq!(f.filter_cell(&first), ReturnCode::SeekNextUsingHint);
    let hint = f.next_cell_hint(&first).expect("a hint");
    assert_eq!(hint.row(), Bytes::from_static(b"m"));
    assert!(hint.cmp_key(&Cell::put("m", "", "", i64::MAX, "")).is_le());
}
