//! The scanner's JSON filter model (HBase's `ScannerModel.FilterModel`) into a
//! [`FilterSpec`].
//!
//! ```text
//! {"type":"PrefixFilter","value":"<b64>"}
//! {"type":"RowFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"<b64>"}}
//! {"type":"FilterList","op":"MUST_PASS_ALL","filters":[…]}
//! ```
//! Byte fields (`value` of most filters, `family`, `qualifier`, columns, prefixes, row
//! keys) are base64; regex and substring comparators take plain strings; `PageFilter`'s
//! value and `LongComparator`'s are decimal strings.

use super::{json_array, json_bool, json_i64, json_object, json_str};
use crate::error::{RestError, Result};
use crate::repr::b64;
use basalt_types::filter_spec::{
    BitOp, ColumnOffset, Comparator, CompareSpec, FuzzyKey, RowRange, SingleColumnValueSpec,
    REGEX_DOTALL,
};
use basalt_types::{CompareOp, FilterSpec};
use bytes::Bytes;
use serde_json::Value;

/// Deepest nesting of lists, `SkipFilter` and `WhileMatchFilter`.
const DEPTH_MAX: usize = basalt_filter::DEPTH_MAX;

/// Parses the filter model text a scanner model carries.
pub fn parse(text: &str) -> Result<FilterSpec> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| RestError::bad(format!("malformed JSON filter model: {e}")))?;
    from_json(&value, 0)
}

fn bytes_field(v: &Value, key: &str) -> Result<Bytes> {
    match json_str(v, key, "filter")? {
        Some(s) => b64::decode(s, key),
        None => Err(RestError::bad(format!(
            "filter model: missing field '{key}'"
        ))),
    }
}

fn op_field(v: &Value) -> Result<CompareOp> {
    let op = json_str(v, "op", "filter")?
        .ok_or_else(|| RestError::bad("filter model: missing field 'op'"))?;
    Ok(CompareOp::parse(op)?)
}

fn comparator(v: &Value) -> Result<Comparator> {
    let c = v
        .get("comparator")
        .ok_or_else(|| RestError::bad("filter model: missing field 'comparator'"))?;
    json_object(c, "comparator")?;
    let kind = json_str(c, "type", "comparator")?.unwrap_or_default();
    let text = || -> Result<String> {
        Ok(json_str(c, "value", "comparator")?
            .unwrap_or_default()
            .to_string())
    };
    Ok(match kind {
        "BinaryComparator" => Comparator::Binary(bytes_field(c, "value")?),
        "BinaryPrefixComparator" => Comparator::BinaryPrefix(bytes_field(c, "value")?),
        "BitComparator" => {
            let op = match json_str(c, "op", "comparator")?.unwrap_or_default() {
                "AND" => BitOp::And,
                "OR" => BitOp::Or,
                "XOR" => BitOp::Xor,
                other => return Err(RestError::bad(format!("unknown bitwise op '{other}'"))),
            };
            Comparator::Bit {
                mask: bytes_field(c, "value")?,
                op,
            }
        }
        "NullComparator" => Comparator::Null,
        "RegexStringComparator" => Comparator::RegexString {
            pattern: text()?,
            flags: REGEX_DOTALL,
        },
        "SubstringComparator" => Comparator::Substring(text()?),
        "LongComparator" => Comparator::Long(
            json_i64(c, "value", "comparator")?
                .ok_or_else(|| RestError::bad("LongComparator needs a value"))?,
        ),
        other => return Err(RestError::bad(format!("unknown comparator type '{other}'"))),
    })
}

fn compare(v: &Value) -> Result<CompareSpec> {
    Ok(CompareSpec {
        op: op_field(v)?,
        comparator: comparator(v)?,
    })
}

fn int_field(v: &Value, key: &str) -> Result<i64> {
    json_i64(v, key, "filter")?
        .ok_or_else(|| RestError::bad(format!("filter model: missing field '{key}'")))
}

fn i32_field(v: &Value, key: &str) -> Result<i32> {
    i32::try_from(int_field(v, key)?)
        .map_err(|_| RestError::bad(format!("filter model: '{key}' is out of range")))
}

fn single_column(v: &Value) -> Result<SingleColumnValueSpec> {
    Ok(SingleColumnValueSpec {
        family: bytes_field(v, "family")?,
        qualifier: bytes_field(v, "qualifier")?,
        compare: compare(v)?,
        filter_if_missing: json_bool(v, "ifMissing", "filter")?.unwrap_or(false),
        latest_version_only: json_bool(v, "latestVersion", "filter")?.unwrap_or(true),
    })
}

fn children(v: &Value, depth: usize) -> Result<Vec<FilterSpec>> {
    json_array(v, "filters")
        .into_iter()
        .map(|f| from_json(f, depth + 1))
        .collect()
}

fn only_child(v: &Value, depth: usize) -> Result<Box<FilterSpec>> {
    let mut filters = children(v, depth)?;
    if filters.len() != 1 {
        return Err(RestError::bad(
            "SkipFilter and WhileMatchFilter wrap exactly one filter",
        ));
    }
    Ok(Box::new(filters.remove(0)))
}

fn b64_list(v: &Value, key: &str) -> Result<Vec<Bytes>> {
    json_array(v, key)
        .into_iter()
        .map(|p| {
            p.as_str()
                .ok_or_else(|| RestError::bad(format!("filter model: '{key}' holds a non-string")))
                .and_then(|s| b64::decode(s, key))
        })
        .collect()
}

/// One filter model (and its children).
pub fn from_json(v: &Value, depth: usize) -> Result<FilterSpec> {
    if depth > DEPTH_MAX {
        return Err(RestError::bad(format!(
            "filters nest deeper than {DEPTH_MAX}"
        )));
    }
    json_object(v, "filter model")?;
    let kind = json_str(v, "type", "filter")?
        .ok_or_else(|| RestError::bad("filter model: missing field 'type'"))?;
    Ok(match kind {
        "FilterList" => FilterSpec::List {
            must_pass_all: match json_str(v, "op", "filter")?.unwrap_or("MUST_PASS_ALL") {
                "MUST_PASS_ALL" => true,
                "MUST_PASS_ONE" => false,
                other => return Err(RestError::bad(format!("unknown FilterList op '{other}'"))),
            },
            filters: children(v, depth)?,
        },
        "SkipFilter" => FilterSpec::Skip(only_child(v, depth)?),
        "WhileMatchFilter" => FilterSpec::WhileMatch(only_child(v, depth)?),
        "RowFilter" => FilterSpec::Row(compare(v)?),
        "FamilyFilter" => FilterSpec::Family(compare(v)?),
        "QualifierFilter" => FilterSpec::Qualifier(compare(v)?),
        "ValueFilter" => FilterSpec::Value(compare(v)?),
        "SingleColumnValueFilter" => FilterSpec::SingleColumnValue(single_column(v)?),
        "SingleColumnValueExcludeFilter" => FilterSpec::SingleColumnValueExclude(single_column(v)?),
        "ColumnValueFilter" => FilterSpec::ColumnValue {
            family: bytes_field(v, "family")?,
            qualifier: bytes_field(v, "qualifier")?,
            compare: compare(v)?,
        },
        "DependentColumnFilter" => FilterSpec::DependentColumn {
            family: bytes_field(v, "family")?,
            qualifier: bytes_field(v, "qualifier")?,
            drop_dependent_column: json_bool(v, "dropDependentColumn", "filter")?.unwrap_or(false),
            compare: if v.get("comparator").is_some() {
                Some(compare(v)?)
            } else {
                None
            },
        },
        "PrefixFilter" => FilterSpec::Prefix(bytes_field(v, "value")?),
        "ColumnPrefixFilter" => FilterSpec::ColumnPrefix(bytes_field(v, "value")?),
        "MultipleColumnPrefixFilter" => FilterSpec::MultipleColumnPrefix(b64_list(v, "prefixes")?),
        "ColumnRangeFilter" => FilterSpec::ColumnRange {
            min: json_str(v, "minColumn", "filter")?
                .map(|s| b64::decode(s, "minColumn"))
                .transpose()?
                .unwrap_or_default(),
            min_inclusive: json_bool(v, "minColumnInclusive", "filter")?.unwrap_or(true),
            max: json_str(v, "maxColumn", "filter")?
                .map(|s| b64::decode(s, "maxColumn"))
                .transpose()?
                .unwrap_or_default(),
            max_inclusive: json_bool(v, "maxColumnInclusive", "filter")?.unwrap_or(false),
        },
        "ColumnPaginationFilter" => FilterSpec::ColumnPagination {
            limit: i32_field(v, "limit")?,
            offset: ColumnOffset::Index(i32_field(v, "offset")?),
        },
        "ColumnCountGetFilter" => FilterSpec::ColumnCountGet(i32_field(v, "limit")?),
        "PageFilter" => FilterSpec::Page(
            u64::try_from(int_field(v, "value")?)
                .map_err(|_| RestError::bad("PageFilter needs a non-negative page size"))?,
        ),
        "KeyOnlyFilter" => FilterSpec::KeyOnly {
            length_as_value: false,
        },
        "FirstKeyOnlyFilter" => FilterSpec::FirstKeyOnly,
        "InclusiveStopFilter" => FilterSpec::InclusiveStop(bytes_field(v, "value")?),
        "TimestampsFilter" => FilterSpec::Timestamps {
            timestamps: json_array(v, "timestamps")
                .into_iter()
                .map(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                        .ok_or_else(|| {
                            RestError::bad(format!("bad timestamp {t} in TimestampsFilter"))
                        })
                })
                .collect::<Result<_>>()?,
            can_hint: true,
        },
        "RandomRowFilter" => FilterSpec::RandomRow {
            chance: v
                .get("chance")
                .and_then(Value::as_f64)
                .ok_or_else(|| RestError::bad("RandomRowFilter needs a numeric 'chance'"))?
                as f32,
            seed: 0,
        },
        "FuzzyRowFilter" => FilterSpec::FuzzyRow(
            json_array(v, "fuzzyKeys")
                .into_iter()
                .map(|k| {
                    Ok(FuzzyKey {
                        key: bytes_field(k, "key")?,
                        mask: bytes_field(k, "value")?,
                    })
                })
                .collect::<Result<_>>()?,
        ),
        "MultiRowRangeFilter" => FilterSpec::MultiRowRange(
            json_array(v, "ranges")
                .into_iter()
                .map(|r| {
                    let key = |k: &str| -> Result<Bytes> {
                        Ok(json_str(r, k, "range")?
                            .map(|s| b64::decode(s, k))
                            .transpose()?
                            .unwrap_or_default())
                    };
                    Ok(RowRange {
                        start: key("startRow")?,
                        start_inclusive: json_bool(r, "startRowInclusive", "range")?
                            .unwrap_or(true),
                        stop: key("stopRow")?,
                        stop_inclusive: json_bool(r, "stopRowInclusive", "range")?.unwrap_or(false),
                    })
                })
                .collect::<Result<_>>()?,
        ),
        other => return Err(RestError::bad(format!("unknown filter type '{other}'"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hbase_examples_parse() {
        assert_eq!(
            parse(r#"{"type":"PrefixFilter","value":"cm93"}"#).expect("valid"),
            FilterSpec::Prefix(Bytes::from_static(b"row"))
        );
        let list = parse(
            r#"{"type":"FilterList","op":"MUST_PASS_ONE","filters":[
                {"type":"RowFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"YQ=="}},
                {"type":"ValueFilter","op":"EQUAL","comparator":{"type":"SubstringComparator","value":"abc"}},
                {"type":"PageFilter","value":"10"}]}"#,
        )
        .expect("valid");
        let FilterSpec::List {
            must_pass_all,
            filters,
        } = list
        else {
            panic!("a list");
        };
        assert!(!must_pass_all);
        assert_eq!(
            filters[0],
            FilterSpec::Row(CompareSpec {
                op: CompareOp::Equal,
                comparator: Comparator::Binary(Bytes::from_static(b"a"))
            })
        );
        assert_eq!(filters[2], FilterSpec::Page(10));
    }

    #[test]
    fn bad_models_say_what_is_wrong() {
        for (text, needle) in [
            ("{", "malformed JSON"),
            ("[]", "JSON object"),
            (r#"{"type":"NoSuchFilter"}"#, "unknown filter"),
            (r#"{"type":"PrefixFilter"}"#, "value"),
            (r#"{"type":"PrefixFilter","value":"!!"}"#, "base64"),
            (
                r#"{"type":"RowFilter","op":"SIDEWAYS","comparator":{"type":"BinaryComparator","value":""}}"#,
                "SIDEWAYS",
            ),
            (
                r#"{"type":"RowFilter","op":"EQUAL","comparator":{"type":"Nope"}}"#,
                "comparator",
            ),
            (r#"{"type":"SkipFilter","filters":[]}"#, "exactly one"),
        ] {
            let err = parse(text).expect_err(text).to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let deep = r#"{"type":"SkipFilter","filters":["#.repeat(100)
            + r#"{"type":"FirstKeyOnlyFilter"}"#
            + &"]}".repeat(100);
        assert!(parse(&deep).is_err());
    }
}
