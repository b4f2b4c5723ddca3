//! Spec → bytes.

use super::{tags, WIRE_VERSION};
use basalt_types::filter_spec::{BitOp, ColumnOffset, Comparator, CompareSpec};
use basalt_types::{CompareOp, FilterSpec};

/// Encodes `spec` (see the module documentation for the format).
pub fn encode(spec: &FilterSpec) -> Vec<u8> {
    let mut out = vec![WIRE_VERSION];
    put_spec(&mut out, spec);
    out
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    // Longer fields are refused by the decoder anyway; saturate rather than wrap.
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_len(out, b.len());
    out.extend_from_slice(b);
}

fn put_bool(out: &mut Vec<u8>, b: bool) {
    out.push(u8::from(b));
}

fn put_list<T>(out: &mut Vec<u8>, items: &[T], put: impl Fn(&mut Vec<u8>, &T)) {
    put_len(out, items.len());
    items.iter().for_each(|i| put(out, i));
}

pub fn op_code(op: CompareOp) -> u8 {
    match op {
        CompareOp::Less => 0,
        CompareOp::LessOrEqual => 1,
        CompareOp::Equal => 2,
        CompareOp::NotEqual => 3,
        CompareOp::GreaterOrEqual => 4,
        CompareOp::Greater => 5,
        CompareOp::NoOp => 6,
    }
}

fn put_compare(out: &mut Vec<u8>, c: &CompareSpec) {
    out.push(op_code(c.op));
    match &c.comparator {
        Comparator::Binary(b) => {
            out.push(tags::CMP_BINARY);
            put_bytes(out, b);
        }
        Comparator::BinaryPrefix(b) => {
            out.push(tags::CMP_BINARY_PREFIX);
            put_bytes(out, b);
        }
        Comparator::RegexString { pattern, flags } => {
            out.push(tags::CMP_REGEX);
            put_bytes(out, pattern.as_bytes());
            out.extend_from_slice(&flags.to_be_bytes());
        }
        Comparator::Substring(s) => {
            out.push(tags::CMP_SUBSTRING);
            put_bytes(out, s.as_bytes());
        }
        Comparator::Bit { mask, op } => {
            out.push(tags::CMP_BIT);
            out.push(match op {
                BitOp::And => 0,
                BitOp::Or => 1,
                BitOp::Xor => 2,
            });
            put_bytes(out, mask);
        }
        Comparator::Null => out.push(tags::CMP_NULL),
        Comparator::Long(v) => {
            out.push(tags::CMP_LONG);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

fn put_spec(out: &mut Vec<u8>, spec: &FilterSpec) {
    match spec {
        FilterSpec::List {
            must_pass_all,
            filters,
        } => {
            out.push(tags::LIST);
            put_bool(out, *must_pass_all);
            put_list(out, filters, put_spec);
        }
        FilterSpec::Skip(inner) => {
            out.push(tags::SKIP);
            put_spec(out, inner);
        }
        FilterSpec::WhileMatch(inner) => {
            out.push(tags::WHILE_MATCH);
            put_spec(out, inner);
        }
        FilterSpec::Row(c) => {
            out.push(tags::ROW);
            put_compare(out, c);
        }
        FilterSpec::Family(c) => {
            out.push(tags::FAMILY);
            put_compare(out, c);
        }
        FilterSpec::Qualifier(c) => {
            out.push(tags::QUALIFIER);
            put_compare(out, c);
        }
        FilterSpec::Value(c) => {
            out.push(tags::VALUE);
            put_compare(out, c);
        }
        FilterSpec::SingleColumnValue(s) | FilterSpec::SingleColumnValueExclude(s) => {
            out.push(if matches!(spec, FilterSpec::SingleColumnValue(_)) {
                tags::SINGLE_COLUMN_VALUE
            } else {
                tags::SINGLE_COLUMN_VALUE_EXCLUDE
            });
            put_bytes(out, &s.family);
            put_bytes(out, &s.qualifier);
            put_compare(out, &s.compare);
            put_bool(out, s.filter_if_missing);
            put_bool(out, s.latest_version_only);
        }
        FilterSpec::ColumnValue {
            family,
            qualifier,
            compare,
        } => {
            out.push(tags::COLUMN_VALUE);
            put_bytes(out, family);
            put_bytes(out, qualifier);
            put_compare(out, compare);
        }
        FilterSpec::DependentColumn {
            family,
            qualifier,
            drop_dependent_column,
            compare,
        } => {
            out.push(tags::DEPENDENT_COLUMN);
            put_bytes(out, family);
            put_bytes(out, qualifier);
            put_bool(out, *drop_dependent_column);
            put_bool(out, compare.is_some());
            if let Some(c) = compare {
                put_compare(out, c);
            }
        }
        FilterSpec::Prefix(b) => {
            out.push(tags::PREFIX);
            put_bytes(out, b);
        }
        FilterSpec::ColumnPrefix(b) => {
            out.push(tags::COLUMN_PREFIX);
            put_bytes(out, b);
        }
        FilterSpec::MultipleColumnPrefix(list) => {
            out.push(tags::MULTIPLE_COLUMN_PREFIX);
            put_list(out, list, |o, b| put_bytes(o, b));
        }
        FilterSpec::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => {
            out.push(tags::COLUMN_RANGE);
            put_bytes(out, min);
            put_bool(out, *min_inclusive);
            put_bytes(out, max);
            put_bool(out, *max_inclusive);
        }
        FilterSpec::ColumnPagination { limit, offset } => {
            out.push(tags::COLUMN_PAGINATION);
            out.extend_from_slice(&limit.to_be_bytes());
            match offset {
                ColumnOffset::Index(i) => {
                    out.push(tags::OFFSET_INDEX);
                    out.extend_from_slice(&i.to_be_bytes());
                }
                ColumnOffset::Qualifier(q) => {
                    out.push(tags::OFFSET_QUALIFIER);
                    put_bytes(out, q);
                }
            }
        }
        FilterSpec::ColumnCountGet(n) => {
            out.push(tags::COLUMN_COUNT_GET);
            out.extend_from_slice(&n.to_be_bytes());
        }
        FilterSpec::Page(n) => {
            out.push(tags::PAGE);
            out.extend_from_slice(&n.to_be_bytes());
        }
        FilterSpec::KeyOnly { length_as_value } => {
            out.push(tags::KEY_ONLY);
            put_bool(out, *length_as_value);
        }
        FilterSpec::FirstKeyOnly => out.push(tags::FIRST_KEY_ONLY),
        FilterSpec::FirstKeyValueMatchingQualifiers(list) => {
            out.push(tags::FIRST_KEY_VALUE_MATCHING_QUALIFIERS);
            put_list(out, list, |o, b| put_bytes(o, b));
        }
        FilterSpec::InclusiveStop(b) => {
            out.push(tags::INCLUSIVE_STOP);
            put_bytes(out, b);
        }
        FilterSpec::Timestamps {
            timestamps,
            can_hint,
        } => {
            out.push(tags::TIMESTAMPS);
            put_bool(out, *can_hint);
            put_list(out, timestamps, |o, t| {
                o.extend_from_slice(&t.to_be_bytes())
            });
        }
        FilterSpec::RandomRow { chance, seed } => {
            out.push(tags::RANDOM_ROW);
            out.extend_from_slice(&chance.to_bits().to_be_bytes());
            out.extend_from_slice(&seed.to_be_bytes());
        }
        FilterSpec::FuzzyRow(keys) => {
            out.push(tags::FUZZY_ROW);
            put_list(out, keys, |o, k| {
                put_bytes(o, &k.key);
                put_bytes(o, &k.mask);
            });
        }
        FilterSpec::MultiRowRange(ranges) => {
            out.push(tags::MULTI_ROW_RANGE);
            put_list(out, ranges, |o, r| {
                put_bytes(o, &r.start);
                put_bool(o, r.start_inclusive);
                put_bytes(o, &r.stop);
                put_bool(o, r.stop_inclusive);
            });
        }
    }
}
