//! Filters and comparators in their protobuf form (a Java class name and that class's own
//! message) to Basalt's [`FilterSpec`]. The common filters are here; any other is refused
//! by its name with a `DoNotRetryIOException`, never ignored (a scan without its filter
//! would answer rows the client did not ask for).

use crate::pb;
use crate::RpcError;
use basalt_types::filter_spec::{Comparator, CompareSpec, SingleColumnValueSpec};
use basalt_types::{CompareOp, FilterSpec};
use bytes::Bytes;
use prost::Message;

const FILTERS: &str = "org.apache.hadoop.hbase.filter.";

fn decode<M: Message + Default>(bytes: Option<&Bytes>, name: &str) -> Result<M, RpcError> {
    M::decode(bytes.map(|b| b.as_ref()).unwrap_or_default())
        .map_err(|e| RpcError::bad_request(name, e))
}

pub fn compare_op(code: i32) -> Result<CompareOp, RpcError> {
    use pb::CompareType as C;
    Ok(match C::try_from(code) {
        Ok(C::Less) => CompareOp::Less,
        Ok(C::LessOrEqual) => CompareOp::LessOrEqual,
        Ok(C::Equal) => CompareOp::Equal,
        Ok(C::NotEqual) => CompareOp::NotEqual,
        Ok(C::GreaterOrEqual) => CompareOp::GreaterOrEqual,
        Ok(C::Greater) => CompareOp::Greater,
        Ok(C::NoOp) => CompareOp::NoOp,
        Err(_) => {
            return Err(RpcError::do_not_retry(format!(
                "unknown compare type {code}"
            )))
        }
    })
}

pub fn comparator(pb: &pb::Comparator) -> Result<Comparator, RpcError> {
    let name = pb.name.as_str();
    let bytes = pb.serialized_comparator.as_ref();
    let short = name.strip_prefix(FILTERS).unwrap_or(name);
    Ok(match short {
        "BinaryComparator" => {
            let c: pb::BinaryComparator = decode(bytes, name)?;
            Comparator::Binary(c.comparable.value.unwrap_or_default())
        }
        "BinaryPrefixComparator" => {
            let c: pb::BinaryPrefixComparator = decode(bytes, name)?;
            Comparator::BinaryPrefix(c.comparable.value.unwrap_or_default())
        }
        "LongComparator" => {
            let c: pb::LongComparator = decode(bytes, name)?;
            let value = c.comparable.value.unwrap_or_default();
            let long: [u8; 8] = value
                .as_ref()
                .try_into()
                .map_err(|_| RpcError::do_not_retry("LongComparator needs an 8-byte value"))?;
            Comparator::Long(i64::from_be_bytes(long))
        }
        "NullComparator" => Comparator::Null,
        "SubstringComparator" => {
            let c: pb::SubstringComparator = decode(bytes, name)?;
            Comparator::Substring(c.substr)
        }
        "RegexStringComparator" => {
            let c: pb::RegexStringComparator = decode(bytes, name)?;
            Comparator::RegexString {
                pattern: c.pattern,
                flags: c.pattern_flags as u32,
            }
        }
        _ => {
            return Err(RpcError::do_not_retry(format!(
                "comparator {name} is not supported by Basalt"
            )))
        }
    })
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
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            let f: pb::SingleColumnValueFilter = decode(bytes, name)?;
            let spec = SingleColumnValueSpec {
                family: f.column_family.unwrap_or_default(),
                qualifier: f.column_qualifier.unwrap_or_default(),
                compare: CompareSpec {
                    op: compare_op(f.compare_op)?,
                    comparator: comparator(&f.comparator)?,
                },
                filter_if_missing: f.filter_if_missing.unwrap_or(false),
                latest_version_only: f.latest_version_only.unwrap_or(true),
            };
            match short {
                "SingleColumnValueFilter" => FilterSpec::SingleColumnValue(spec),
                _ => FilterSpec::SingleColumnValueExclude(spec),
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

#[cfg(test)]
mod tests {
    use super::*;

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
