//! Filters and comparators in their protobuf form (a Java class name and that class's own
//! message) to Basalt's [`FilterSpec`]: every filter of HBase's filter language, plus
//! `FilterWrapper`. Any other is refused by its name with a `DoNotRetryIOException`, never
//! ignored (a scan without its filter would answer rows the client did not ask for).

pub use super::comparator::{comparator, compare_op};
use crate::pb;
use crate::RpcError;
use basalt_types::filter_spec::{
    ColumnOffset, CompareSpec, FuzzyKey, RowRange, SingleColumnValueSpec,
};
use basalt_types::FilterSpec;
use bytes::Bytes;
use prost::Message;

pub(crate) const FILTERS: &str = "org.apache.hadoop.hbase.filter.";

pub(crate) fn decode<M: Message + Default>(
    bytes: Option<&Bytes>,
    name: &str,
) -> Result<M, RpcError> {
    M::decode(bytes.map(|b| b.as_ref()).unwrap_or_default())
        .map_err(|e| RpcError::bad_request(name, e))
}

fn compare(pb: &pb::CompareFilter, name: &str) -> Result<CompareSpec, RpcError> {
    let named = pb
        .comparator
        .as_ref()
        .ok_or_else(|| RpcError::do_not_retry(format!("{name} without a comparator")))?;
    Ok(CompareSpec {
        op: compare_op(pb.compare_op)?,
        comparator: comparator(named)?,
    })
}

/// The filter `pb` names, or a `DoNotRetryIOException` naming the one Basalt lacks.
pub fn spec(pb: &pb::Filter) -> Result<FilterSpec, RpcError> {
    spec_at(pb, 0)
}

fn spec_at(pb: &pb::Filter, depth: usize) -> Result<FilterSpec, RpcError> {
    if depth > 32 {
        return Err(RpcError::do_not_retry("filters nested more than 32 deep"));
    }
    let name = pb.name.as_str();
    let bytes = pb.serialized_filter.as_ref();
    let short = name.strip_prefix(FILTERS).unwrap_or(name);
    let compare_only = |bytes| -> Result<CompareSpec, RpcError> {
        let f: pb::CompareFilterOnly = decode(bytes, name)?;
        compare(&f.compare_filter, name)
    };
    Ok(match short {
        "PrefixFilter" => {
            let f: pb::PrefixFilter = decode(bytes, name)?;
            FilterSpec::Prefix(f.prefix.unwrap_or_default())
        }
        "ColumnPrefixFilter" => {
            let f: pb::ColumnPrefixFilter = decode(bytes, name)?;
            FilterSpec::ColumnPrefix(f.prefix)
        }
        "MultipleColumnPrefixFilter" => {
            let f: pb::MultipleColumnPrefixFilter = decode(bytes, name)?;
            FilterSpec::MultipleColumnPrefix(f.sorted_prefixes)
        }
        "FirstKeyOnlyFilter" => FilterSpec::FirstKeyOnly,
        "KeyOnlyFilter" => {
            let f: pb::KeyOnlyFilter = decode(bytes, name)?;
            FilterSpec::KeyOnly {
                length_as_value: f.len_as_val,
            }
        }
        "PageFilter" => {
            let f: pb::PageFilter = decode(bytes, name)?;
            FilterSpec::Page(f.page_size.max(0) as u64)
        }
        "InclusiveStopFilter" => {
            let f: pb::InclusiveStopFilter = decode(bytes, name)?;
            FilterSpec::InclusiveStop(f.stop_row_key.unwrap_or_default())
        }
        "RowFilter" => FilterSpec::Row(compare_only(bytes)?),
        "FamilyFilter" => FilterSpec::Family(compare_only(bytes)?),
        "QualifierFilter" => FilterSpec::Qualifier(compare_only(bytes)?),
        "ValueFilter" => FilterSpec::Value(compare_only(bytes)?),
        "SingleColumnValueFilter" => {
            FilterSpec::SingleColumnValue(single_column(decode(bytes, name)?)?)
        }
        "SingleColumnValueExcludeFilter" => {
            let f: pb::SingleColumnValueExcludeFilter = decode(bytes, name)?;
            FilterSpec::SingleColumnValueExclude(single_column(f.single_column_value_filter)?)
        }
        "ColumnValueFilter" => {
            let f: pb::ColumnValueFilter = decode(bytes, name)?;
            FilterSpec::ColumnValue {
                family: f.family,
                qualifier: f.qualifier,
                compare: CompareSpec {
                    op: compare_op(f.compare_op)?,
                    comparator: comparator(&f.comparator)?,
                },
            }
        }
        "DependentColumnFilter" => {
            let f: pb::DependentColumnFilter = decode(bytes, name)?;
            let compare = match &f.compare_filter.comparator {
                Some(_) => Some(compare(&f.compare_filter, name)?),
                None => None,
            };
            FilterSpec::DependentColumn {
                family: f.column_family.unwrap_or_default(),
                qualifier: f.column_qualifier.unwrap_or_default(),
                drop_dependent_column: f.drop_dependent_column.unwrap_or(false),
                compare,
            }
        }
        "ColumnRangeFilter" => {
            let f: pb::ColumnRangeFilter = decode(bytes, name)?;
            FilterSpec::ColumnRange {
                min: f.min_column.unwrap_or_default(),
                min_inclusive: f.min_column_inclusive.unwrap_or(true),
                max: f.max_column.unwrap_or_default(),
                max_inclusive: f.max_column_inclusive.unwrap_or(false),
            }
        }
        "ColumnPaginationFilter" => {
            let f: pb::ColumnPaginationFilter = decode(bytes, name)?;
            let offset = match f.column_offset {
                Some(q) => ColumnOffset::Qualifier(q),
                None => ColumnOffset::Index(f.offset.unwrap_or(0)),
            };
            FilterSpec::ColumnPagination {
                limit: f.limit,
                offset,
            }
        }
        "ColumnCountGetFilter" => {
            let f: pb::ColumnCountGetFilter = decode(bytes, name)?;
            FilterSpec::ColumnCountGet(f.limit)
        }
        "FirstKeyValueMatchingQualifiersFilter" => {
            let f: pb::FirstKeyValueMatchingQualifiersFilter = decode(bytes, name)?;
            FilterSpec::FirstKeyValueMatchingQualifiers(f.qualifiers)
        }
        "TimestampsFilter" => {
            let f: pb::TimestampsFilter = decode(bytes, name)?;
            FilterSpec::Timestamps {
                timestamps: f.timestamps,
                can_hint: f.can_hint.unwrap_or(false),
            }
        }
        "RandomRowFilter" => {
            let f: pb::RandomRowFilter = decode(bytes, name)?;
            let mut seed = [0u8; 8];
            // Without randomness a fixed seed: the filter still keeps its chance.
            let _ = getrandom::fill(&mut seed);
            FilterSpec::RandomRow {
                chance: f.chance,
                seed: u64::from_le_bytes(seed),
            }
        }
        "FuzzyRowFilter" => {
            let f: pb::FuzzyRowFilter = decode(bytes, name)?;
            let wildcard = if f.is_mask_v2.unwrap_or(false) { 2 } else { 0 };
            FilterSpec::FuzzyRow(
                f.fuzzy_keys_data
                    .into_iter()
                    .map(|pair| fuzzy_key(pair.first, &pair.second, wildcard))
                    .collect(),
            )
        }
        "MultiRowRangeFilter" => {
            let f: pb::MultiRowRangeFilter = decode(bytes, name)?;
            FilterSpec::MultiRowRange(
                f.row_range_list
                    .into_iter()
                    .map(|r| RowRange {
                        start: r.start_row.unwrap_or_default(),
                        start_inclusive: r.start_row_inclusive.unwrap_or(true),
                        stop: r.stop_row.unwrap_or_default(),
                        stop_inclusive: r.stop_row_inclusive.unwrap_or(false),
                    })
                    .collect(),
            )
        }
        "SkipFilter" | "WhileMatchFilter" | "FilterWrapper" => {
            let f: pb::WrappingFilter = decode(bytes, name)?;
            let inner = spec_at(&f.filter, depth + 1)?;
            match short {
                "SkipFilter" => FilterSpec::Skip(Box::new(inner)),
                "WhileMatchFilter" => FilterSpec::WhileMatch(Box::new(inner)),
                _ => inner,
            }
        }
        "FilterList" => {
            let f: pb::FilterList = decode(bytes, name)?;
            FilterSpec::List {
                must_pass_all: f.operator != pb::filter_list::Operator::MustPassOne as i32,
                filters: f
                    .filters
                    .iter()
                    .map(|f| spec_at(f, depth + 1))
                    .collect::<Result<_, _>>()?,
            }
        }
        _ => {
            return Err(RpcError::do_not_retry(format!(
                "filter {name} is not supported by Basalt's native protocol yet"
            )))
        }
    })
}

fn single_column(f: pb::SingleColumnValueFilter) -> Result<SingleColumnValueSpec, RpcError> {
    Ok(SingleColumnValueSpec {
        family: f.column_family.unwrap_or_default(),
        qualifier: f.column_qualifier.unwrap_or_default(),
        compare: CompareSpec {
            op: compare_op(f.compare_op)?,
            comparator: comparator(&f.comparator)?,
        },
        filter_if_missing: f.filter_if_missing.unwrap_or(false),
        latest_version_only: f.latest_version_only.unwrap_or(true),
    })
}

/// A fuzzy rule as HBase sends it: a mask already preprocessed by the client (every byte
/// 0xFF for a fixed position or `wildcard`: 0, or 2 for `is_mask_v2`), or as the user wrote
/// it (0 fixed, 1 any). Basalt's mask is 0 fixed, 1 any.
fn fuzzy_key(key: Bytes, mask: &[u8], wildcard: u8) -> FuzzyKey {
    let processed = mask.iter().all(|b| *b == 0xff || *b == wildcard);
    let mask = mask
        .iter()
        .map(|b| match processed {
            true => u8::from(*b != 0xff),
            false => u8::from(*b != 0),
        })
        .collect::<Vec<_>>();
    FuzzyKey {
        key,
        mask: Bytes::from(mask),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::filter_spec::Comparator;

    fn filter(name: &str, message: impl Message) -> pb::Filter {
        pb::Filter {
            name: format!("{FILTERS}{name}"),
            serialized_filter: Some(Bytes::from(message.encode_to_vec())),
        }
    }

    #[test]
    fn a_filter_list_of_known_filters_translates() {
        let prefix = filter(
            "PrefixFilter",
            pb::PrefixFilter {
                prefix: Some(Bytes::from_static(b"ro")),
            },
        );
        let value = filter(
            "ValueFilter",
            pb::CompareFilterOnly {
                compare_filter: pb::CompareFilter {
                    compare_op: pb::CompareType::Equal as i32,
                    comparator: Some(pb::Comparator {
                        name: format!("{FILTERS}BinaryComparator"),
                        serialized_comparator: Some(Bytes::from(
                            pb::BinaryComparator {
                                comparable: pb::ByteArrayComparable {
                                    value: Some(Bytes::from_static(b"v")),
                                },
                            }
                            .encode_to_vec(),
                        )),
                    }),
                },
            },
        );
        let list = filter(
            "FilterList",
            pb::FilterList {
                operator: pb::filter_list::Operator::MustPassAll as i32,
                filters: vec![prefix, value],
            },
        );
        let FilterSpec::List {
            must_pass_all,
            filters,
        } = spec(&list).expect("translates")
        else {
            panic!("not a list");
        };
        assert!(must_pass_all);
        assert_eq!(filters[0], FilterSpec::Prefix(Bytes::from_static(b"ro")));
        assert!(
            matches!(&filters[1], FilterSpec::Value(c) if c.comparator == Comparator::Binary(Bytes::from_static(b"v")))
        );
    }

    #[test]
    fn wrappers_and_excluding_filters_unwrap() {
        let scv = pb::SingleColumnValueFilter {
            column_family: Some(Bytes::from_static(b"cf")),
            column_qualifier: Some(Bytes::from_static(b"q")),
            compare_op: pb::CompareType::Equal as i32,
            comparator: pb::Comparator {
                name: format!("{FILTERS}NullComparator"),
                serialized_comparator: None,
            },
            filter_if_missing: Some(true),
            latest_version_only: None,
        };
        let exclude = filter(
            "SingleColumnValueExcludeFilter",
            pb::SingleColumnValueExcludeFilter {
                single_column_value_filter: scv,
            },
        );
        let skip = filter("SkipFilter", pb::WrappingFilter { filter: exclude });
        let FilterSpec::Skip(inner) = spec(&skip).expect("translates") else {
            panic!("not a skip");
        };
        let FilterSpec::SingleColumnValueExclude(s) = *inner else {
            panic!("not an exclude");
        };
        assert!(s.filter_if_missing && s.latest_version_only);
        assert_eq!(s.compare.comparator, Comparator::Null);
    }

    #[test]
    fn fuzzy_masks_read_preprocessed_and_raw() {
        let key = Bytes::from_static(b"ab");
        assert_eq!(&fuzzy_key(key.clone(), &[0xff, 0], 0).mask[..], &[0, 1]);
        assert_eq!(&fuzzy_key(key.clone(), &[0xff, 2], 2).mask[..], &[0, 1]);
        assert_eq!(&fuzzy_key(key, &[0, 1], 2).mask[..], &[0, 1]);
    }

    #[test]
    fn an_unknown_filter_is_refused_by_name() {
        let unknown = pb::Filter {
            name: "com.example.MyFilter".into(),
            serialized_filter: None,
        };
        let err = spec(&unknown).expect_err("refused");
        assert!(err.do_not_retry);
        assert!(err.message.contains("com.example.MyFilter"), "{err}");
    }
}
