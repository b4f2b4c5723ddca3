//! From spec to evaluator, with HBase's constructor checks.

use crate::comparator::CompiledCompare;
use crate::filters::*;
use crate::{Filter, FilterError, DEPTH_MAX};
use basalt_types::filter_spec::{ColumnOffset, CompareSpec, FuzzyKey, RowRange};
use basalt_types::FilterSpec;

/// Builds a fresh evaluator for `spec` (one per scan: filters keep per-scan state).
pub fn build(spec: &FilterSpec) -> Result<Box<dyn Filter>, FilterError> {
    build_at(spec, 1)
}

fn compile(spec: &CompareSpec) -> Result<CompiledCompare, FilterError> {
    CompiledCompare::compile(spec)
}

fn non_negative(filter: &'static str, what: &str, v: i32) -> Result<u32, FilterError> {
    u32::try_from(v)
        .map_err(|_| FilterError::invalid(filter, format!("{what} must be >= 0, got {v}")))
}

fn build_at(spec: &FilterSpec, depth: usize) -> Result<Box<dyn Filter>, FilterError> {
    if depth > DEPTH_MAX {
        return Err(FilterError::TooDeep {
            depth_max: DEPTH_MAX,
        });
    }
    let name = spec.name();
    Ok(match spec {
        FilterSpec::List {
            must_pass_all,
            filters,
        } => {
            let built = filters
                .iter()
                .map(|f| build_at(f, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(list::FilterList::new(*must_pass_all, built))
        }
        FilterSpec::Skip(inner) => Box::new(skip::SkipFilter::new(build_at(inner, depth + 1)?)),
        FilterSpec::WhileMatch(inner) => Box::new(while_match::WhileMatchFilter::new(build_at(
            inner,
            depth + 1,
        )?)),
        FilterSpec::Row(c) => Box::new(row::RowFilter::new(compile(c)?)),
        FilterSpec::Family(c) => Box::new(family::FamilyFilter::new(compile(c)?)),
        FilterSpec::Qualifier(c) => Box::new(qualifier::QualifierFilter::new(compile(c)?)),
        FilterSpec::Value(c) => Box::new(value::ValueFilter::new(compile(c)?)),
        FilterSpec::SingleColumnValue(s) => Box::new(
            single_column_value::SingleColumnValueFilter::new(s, compile(&s.compare)?),
        ),
        FilterSpec::SingleColumnValueExclude(s) => {
            let inner = single_column_value::SingleColumnValueFilter::new(s, compile(&s.compare)?);
            Box::new(single_column_value_exclude::SingleColumnValueExcludeFilter::new(inner))
        }
        FilterSpec::ColumnValue {
            family,
            qualifier,
            compare,
        } => Box::new(column_value::ColumnValueFilter::new(
            family.clone(),
            qualifier.clone(),
            compile(compare)?,
        )),
        FilterSpec::DependentColumn {
            family,
            qualifier,
            drop_dependent_column,
            compare,
        } => Box::new(dependent_column::DependentColumnFilter::new(
            family.clone(),
            qualifier.clone(),
            *drop_dependent_column,
            compare.as_ref().map(compile).transpose()?,
        )),
        FilterSpec::Prefix(p) => Box::new(prefix::PrefixFilter::new(p.clone())),
        FilterSpec::ColumnPrefix(p) => Box::new(column_prefix::ColumnPrefixFilter::new(p.clone())),
        FilterSpec::MultipleColumnPrefix(ps) => {
            Box::new(multiple_column_prefix::MultipleColumnPrefixFilter::new(ps))
        }
        FilterSpec::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => Box::new(column_range::ColumnRangeFilter::new(
            min.clone(),
            *min_inclusive,
            max.clone(),
            *max_inclusive,
        )),
        FilterSpec::ColumnPagination { limit, offset } => {
            let limit = non_negative(name, "limit", *limit)?;
            if let ColumnOffset::Index(o) = offset {
                non_negative(name, "offset", *o)?;
            }
            Box::new(column_pagination::ColumnPaginationFilter::new(
                limit,
                offset.clone(),
            ))
        }
        FilterSpec::ColumnCountGet(limit) => Box::new(column_count_get::ColumnCountGetFilter::new(
            non_negative(name, "limit", *limit)?,
        )),
        FilterSpec::Page(n) => Box::new(page::PageFilter::new(*n)),
        FilterSpec::KeyOnly { length_as_value } => {
            Box::new(key_only::KeyOnlyFilter::new(*length_as_value))
        }
        FilterSpec::FirstKeyOnly => Box::new(first_key_only::FirstKeyOnlyFilter::default()),
        FilterSpec::FirstKeyValueMatchingQualifiers(qs) => Box::new(
            first_key_value_matching_qualifiers::FirstKeyValueMatchingQualifiersFilter::new(qs),
        ),
        FilterSpec::InclusiveStop(stop) => {
            Box::new(inclusive_stop::InclusiveStopFilter::new(stop.clone()))
        }
        FilterSpec::Timestamps {
            timestamps,
            can_hint,
        } => {
            if let Some(ts) = timestamps.iter().find(|&&t| t < 0) {
                return Err(FilterError::invalid(
                    name,
                    format!("timestamp must be >= 0, got {ts}"),
                ));
            }
            Box::new(timestamps::TimestampsFilter::new(timestamps, *can_hint))
        }
        FilterSpec::RandomRow { chance, seed } => {
            Box::new(random_row::RandomRowFilter::new(*chance, *seed))
        }
        FilterSpec::FuzzyRow(keys) => {
            keys.iter().try_for_each(check_fuzzy_key)?;
            Box::new(fuzzy_row::FuzzyRowFilter::new(keys))
        }
        FilterSpec::MultiRowRange(ranges) => {
            ranges.iter().try_for_each(check_range)?;
            Box::new(multi_row_range::MultiRowRangeFilter::new(ranges))
        }
    })
}

fn check_fuzzy_key(k: &FuzzyKey) -> Result<(), FilterError> {
    const NAME: &str = "FuzzyRowFilter";
    if k.key.len() != k.mask.len() {
        return Err(FilterError::invalid(
            NAME,
            format!(
                "key and mask lengths differ ({} vs {})",
                k.key.len(),
                k.mask.len()
            ),
        ));
    }
    if k.mask.iter().any(|&m| m > 1) {
        return Err(FilterError::invalid(
            NAME,
            "mask bytes must be 0 (fixed) or 1 (any)",
        ));
    }
    Ok(())
}

fn check_range(r: &RowRange) -> Result<(), FilterError> {
    let ord = r.start.cmp(&r.stop);
    let valid = r.start.is_empty()
        || r.stop.is_empty()
        || ord.is_lt()
        || (ord.is_eq() && r.start_inclusive && r.stop_inclusive);
    if valid {
        Ok(())
    } else {
        Err(FilterError::invalid(
            "MultiRowRangeFilter",
            "a range's start row must not sort after its stop row",
        ))
    }
}
