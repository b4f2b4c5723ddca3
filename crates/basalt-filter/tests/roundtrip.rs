//! Property tests: the language printers and the wire form give back the spec they were
//! given, and no input makes the parser or the decoder panic.

use basalt_filter::{decode, encode, parse, parse_extended, to_extended_language, to_language};
use basalt_types::filter_spec::{
    BitOp, ColumnOffset, Comparator, CompareSpec, FuzzyKey, RowRange, SingleColumnValueSpec,
    REGEX_CASE_INSENSITIVE, REGEX_DOTALL, REGEX_MULTILINE,
};
use basalt_types::{CompareOp, FilterSpec};
use bytes::Bytes;
use proptest::prelude::*;

/// What the generated specs must be expressible in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    /// HBase's language: UTF-8 strings, its filters and comparators only.
    HBase,
    /// The extended dialect: everything but lists of fewer than two filters.
    Extended,
    /// The wire form: everything.
    Wire,
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec![
            'a', 'b', 'Z', '0', ' ', '\'', ':', ',', '(', ')', '\\', 'é', '\t',
        ]),
        0..6,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn bytes(t: Target) -> BoxedStrategy<Bytes> {
    if t == Target::HBase {
        text().prop_map(Bytes::from).boxed()
    } else {
        proptest::collection::vec(any::<u8>(), 0..6)
            .prop_map(Bytes::from)
            .boxed()
    }
}

fn op(with_no_op: bool) -> BoxedStrategy<CompareOp> {
    let mut ops = vec![
        CompareOp::Less,
        CompareOp::LessOrEqual,
        CompareOp::Equal,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Greater,
    ];
    if with_no_op {
        ops.push(CompareOp::NoOp);
    }
    prop::sample::select(ops).boxed()
}

fn compare(t: Target) -> BoxedStrategy<CompareSpec> {
    let any_op = op(t == Target::Wire);
    let eq_op = if t == Target::Wire {
        op(true).boxed()
    } else {
        prop::sample::select(vec![CompareOp::Equal, CompareOp::NotEqual]).boxed()
    };
    let flags = if t == Target::HBase {
        Just(REGEX_DOTALL).boxed()
    } else {
        prop::sample::subsequence(
            vec![REGEX_CASE_INSENSITIVE, REGEX_MULTILINE, REGEX_DOTALL],
            0..=3,
        )
        .prop_map(|bits| bits.into_iter().fold(0, |a, b| a | b))
        .boxed()
    };
    let ordered = prop_oneof![
        bytes(t).prop_map(Comparator::Binary),
        bytes(t).prop_map(Comparator::BinaryPrefix),
    ];
    let equality = prop_oneof![
        (text(), flags).prop_map(|(pattern, flags)| Comparator::RegexString { pattern, flags }),
        text().prop_map(Comparator::Substring),
    ];
    let ordered =
        (any_op.clone(), ordered).prop_map(|(op, comparator)| CompareSpec { op, comparator });
    let equality = (eq_op, equality).prop_map(|(op, comparator)| CompareSpec { op, comparator });
    if t == Target::HBase {
        return prop_oneof![ordered, equality].boxed();
    }
    let bit_op = prop::sample::select(vec![BitOp::And, BitOp::Or, BitOp::Xor]);
    let extra = prop_oneof![
        (bytes(t), bit_op).prop_map(|(mask, op)| Comparator::Bit { mask, op }),
        Just(Comparator::Null),
        any::<i64>().prop_map(Comparator::Long),
    ];
    let extra = (any_op, extra).prop_map(|(op, comparator)| CompareSpec { op, comparator });
    prop_oneof![ordered, equality, extra].boxed()
}

fn leaf(t: Target) -> BoxedStrategy<FilterSpec> {
    let b = move || bytes(t);
    let non_neg = || 0..=i32::MAX;
    let scv = (b(), b(), compare(t), any::<bool>(), any::<bool>()).prop_map(|(f, q, c, m, l)| {
        SingleColumnValueSpec {
            family: f,
            qualifier: q,
            compare: c,
            filter_if_missing: m,
            latest_version_only: l,
        }
    });
    let mut options: Vec<BoxedStrategy<FilterSpec>> = vec![
        compare(t).prop_map(FilterSpec::Row).boxed(),
        compare(t).prop_map(FilterSpec::Family).boxed(),
        compare(t).prop_map(FilterSpec::Qualifier).boxed(),
        compare(t).prop_map(FilterSpec::Value).boxed(),
        scv.clone().prop_map(FilterSpec::SingleColumnValue).boxed(),
        scv.prop_map(FilterSpec::SingleColumnValueExclude).boxed(),
        (b(), b(), compare(t))
            .prop_map(|(family, qualifier, compare)| FilterSpec::ColumnValue {
                family,
                qualifier,
                compare,
            })
            .boxed(),
        (b(), b(), any::<bool>(), proptest::option::of(compare(t)))
            .prop_map(
                |(family, qualifier, d, compare)| FilterSpec::DependentColumn {
                    family,
                    qualifier,
                    drop_dependent_column: d,
                    compare,
                },
            )
            .boxed(),
        b().prop_map(FilterSpec::Prefix).boxed(),
        b().prop_map(FilterSpec::ColumnPrefix).boxed(),
        proptest::collection::vec(b(), 0..3)
            .prop_map(FilterSpec::MultipleColumnPrefix)
            .boxed(),
        (b(), any::<bool>(), b(), any::<bool>())
            .prop_map(|(min, mi, max, ma)| FilterSpec::ColumnRange {
                min,
                min_inclusive: mi,
                max,
                max_inclusive: ma,
            })
            .boxed(),
        (non_neg(), non_neg())
            .prop_map(|(limit, o)| FilterSpec::ColumnPagination {
                limit,
                offset: ColumnOffset::Index(o),
            })
            .boxed(),
        non_neg().prop_map(FilterSpec::ColumnCountGet).boxed(),
        (0..=i64::MAX as u64).prop_map(FilterSpec::Page).boxed(),
        any::<bool>()
            .prop_map(|l| FilterSpec::KeyOnly { length_as_value: l })
            .boxed(),
        Just(FilterSpec::FirstKeyOnly).boxed(),
        b().prop_map(FilterSpec::InclusiveStop).boxed(),
        proptest::collection::vec(0..=i64::MAX, 0..4)
            .prop_map(|timestamps| FilterSpec::Timestamps {
                timestamps,
                can_hint: false,
            })
            .boxed(),
    ];
    if t != Target::HBase {
        let mask = proptest::collection::vec(0u8..=1, 0..5).prop_map(Bytes::from);
        options.extend([
            (non_neg(), b())
                .prop_map(|(limit, q)| FilterSpec::ColumnPagination {
                    limit,
                    offset: ColumnOffset::Qualifier(q),
                })
                .boxed(),
            proptest::collection::vec(b(), 0..3)
                .prop_map(FilterSpec::FirstKeyValueMatchingQualifiers)
                .boxed(),
            (proptest::collection::vec(any::<i64>(), 0..4), any::<bool>())
                .prop_map(|(timestamps, can_hint)| FilterSpec::Timestamps {
                    timestamps: timestamps.into_iter().map(|t| t.max(0)).collect(),
                    can_hint,
                })
                .boxed(),
            (-2.0f32..2.0, any::<u64>())
                .prop_map(|(chance, seed)| FilterSpec::RandomRow { chance, seed })
                .boxed(),
            proptest::collection::vec(
                (b(), mask).prop_map(|(key, mask)| FuzzyKey { key, mask }),
                0..3,
            )
            .prop_map(FilterSpec::FuzzyRow)
            .boxed(),
            proptest::collection::vec(
                (b(), any::<bool>(), b(), any::<bool>()).prop_map(|(s, si, e, ei)| RowRange {
                    start: s,
                    start_inclusive: si,
                    stop: e,
                    stop_inclusive: ei,
                }),
                0..3,
            )
            .prop_map(FilterSpec::MultiRowRange)
            .boxed(),
        ]);
    }
    if t == Target::Wire {
        options.extend([
            (any::<i32>(), any::<i32>())
                .prop_map(|(limit, o)| FilterSpec::ColumnPagination {
                    limit,
                    offset: ColumnOffset::Index(o),
                })
                .boxed(),
            any::<u64>().prop_map(FilterSpec::Page).boxed(),
        ]);
    }
    prop::strategy::Union::new(options).boxed()
}

fn spec(t: Target) -> impl Strategy<Value = FilterSpec> {
    let min_list = if t == Target::Wire { 0 } else { 2 };
    leaf(t).prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            (
                any::<bool>(),
                proptest::collection::vec(inner.clone(), min_list..4)
            )
                .prop_map(|(must_pass_all, filters)| FilterSpec::List {
                    must_pass_all,
                    filters,
                }),
            inner.clone().prop_map(|f| FilterSpec::Skip(Box::new(f))),
            inner.prop_map(|f| FilterSpec::WhileMatch(Box::new(f))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn language_round_trips(s in spec(Target::HBase)) {
        let text = to_language(&s).expect("generated specs are expressible");
        prop_assert_eq!(parse(&text), Ok(s), "{}", text);
    }

    #[test]
    fn extended_language_round_trips(s in spec(Target::Extended)) {
        let text = to_extended_language(&s).expect("generated specs are expressible");
        prop_assert_eq!(parse_extended(&text), Ok(s), "{}", text);
    }

    #[test]
    fn wire_round_trips(s in spec(Target::Wire)) {
        prop_assert_eq!(decode(&encode(&s)), Ok(s));
    }

    #[test]
    fn decoding_mutated_bytes_never_panics(s in spec(Target::Wire), flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4), cut in any::<usize>()) {
        let mut bytes = encode(&s);
        for (at, b) in flips {
            let i = at % bytes.len();
            bytes[i] = b;
        }
        let _ = decode(&bytes);
        let _ = decode(&bytes[..cut % (bytes.len() + 1)]);
    }

    #[test]
    fn parsing_any_text_never_panics(text in "[ -~\t]{0,40}") {
        let _ = parse(&text);
        let _ = parse_extended(&text);
    }

    #[test]
    fn parsing_any_bytes_never_panics(mut prefix in proptest::collection::vec(any::<u8>(), 0..40)) {
        let _ = parse(&prefix);
        prefix.splice(0..0, b"ValueFilter(=, 'binary:".iter().copied());
        let _ = parse(&prefix);
        let _ = parse_extended(&prefix);
    }

    #[test]
    fn parsing_filter_like_text_never_panics(s in spec(Target::Extended), cut in any::<usize>()) {
        let text = to_extended_language(&s).expect("generated specs are expressible");
        let mut end = cut % (text.len() + 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let _ = parse(&text[..end]);
        let _ = parse_extended(&text[..end]);
    }
}
