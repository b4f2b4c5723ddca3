//! Each filter's argument list, typed and checked as HBase's `createFilterFromArguments`.

use super::{Dialect, ParseError};
use basalt_types::filter_spec::{
    BitOp, ColumnOffset, Comparator, CompareSpec, FuzzyKey, RowRange, SingleColumnValueSpec,
    REGEX_CASE_INSENSITIVE, REGEX_DOTALL, REGEX_MULTILINE,
};
use basalt_types::{CompareOp, FilterSpec};
use bytes::Bytes;

/// One argument as written: a quoted string or a bare word, with its position.
#[derive(Debug, Clone)]
pub struct Arg {
    quoted: Option<Vec<u8>>,
    word: String,
    pos: usize,
}

impl Arg {
    pub fn quoted(bytes: Vec<u8>, pos: usize) -> Self {
        Self {
            quoted: Some(bytes),
            word: String::new(),
            pos,
        }
    }

    pub fn word(word: String, pos: usize) -> Self {
        Self {
            quoted: None,
            word,
            pos,
        }
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.pos, message)
    }

    fn bytes(&self) -> Result<Bytes, ParseError> {
        match &self.quoted {
            Some(b) => Ok(Bytes::from(b.clone())),
            None => Err(self.err("expected a quoted string")),
        }
    }

    fn number(&self, what: &str) -> Result<i128, ParseError> {
        let w = self.word.as_str();
        let digits = w.strip_prefix('-').unwrap_or(w);
        if self.quoted.is_some() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(self.err(format!("expected {what}")));
        }
        w.parse::<i128>()
            .map_err(|_| self.err(format!("{what} out of range")))
    }

    fn int(&self) -> Result<i32, ParseError> {
        let n = self.number("an integer")?;
        i32::try_from(n).map_err(|_| self.err("integer argument out of range"))
    }

    fn long(&self) -> Result<i64, ParseError> {
        let n = self.number("a long integer")?;
        i64::try_from(n).map_err(|_| self.err("long argument out of range"))
    }

    fn non_negative_int(&self, what: &str) -> Result<i32, ParseError> {
        let n = self.int()?;
        if n < 0 {
            return Err(self.err(format!("{what} must be >= 0")));
        }
        Ok(n)
    }

    fn boolean(&self) -> Result<bool, ParseError> {
        match self.word.to_ascii_lowercase().as_str() {
            "true" if self.quoted.is_none() => Ok(true),
            "false" if self.quoted.is_none() => Ok(false),
            _ => Err(self.err("expected true or false")),
        }
    }

    fn is_boolean(&self) -> bool {
        self.boolean().is_ok()
    }

    fn op(&self) -> Result<CompareOp, ParseError> {
        if self.quoted.is_some() {
            return Err(self.err("expected a compare operator"));
        }
        Ok(match self.word.as_str() {
            "<" => CompareOp::Less,
            "<=" => CompareOp::LessOrEqual,
            "=" => CompareOp::Equal,
            "!=" => CompareOp::NotEqual,
            ">=" => CompareOp::GreaterOrEqual,
            ">" => CompareOp::Greater,
            other => return Err(self.err(format!("invalid compare operator '{other}'"))),
        })
    }

    fn comparator(&self, dialect: Dialect) -> Result<Comparator, ParseError> {
        let Some(raw) = &self.quoted else {
            return Err(self.err("expected a quoted comparator"));
        };
        let Some(colon) = raw.iter().position(|&b| b == b':') else {
            return Err(self.err("incorrect comparator: expected 'type:value'"));
        };
        let (kind, value) = (&raw[..colon], &raw[colon + 1..]);
        let text = || {
            String::from_utf8(value.to_vec()).map_err(|_| self.err("comparator value is not UTF-8"))
        };
        let extended = dialect == Dialect::Extended;
        Ok(match kind {
            b"binary" => Comparator::Binary(Bytes::copy_from_slice(value)),
            b"binaryprefix" => Comparator::BinaryPrefix(Bytes::copy_from_slice(value)),
            b"regexstring" => Comparator::RegexString {
                pattern: text()?,
                flags: REGEX_DOTALL,
            },
            b"substring" => Comparator::Substring(text()?),
            b"long" if extended => match std::str::from_utf8(value).ok().map(str::parse) {
                Some(Ok(v)) => Comparator::Long(v),
                _ => return Err(self.err("long comparator expects an integer")),
            },
            b"null" if extended => Comparator::Null,
            b"bitand" if extended => bit(value, BitOp::And),
            b"bitor" if extended => bit(value, BitOp::Or),
            b"bitxor" if extended => bit(value, BitOp::Xor),
            _ if extended && kind.starts_with(b"regexstring/") => Comparator::RegexString {
                pattern: text()?,
                flags: self.regex_flags(&kind[b"regexstring/".len()..])?,
            },
            _ => {
                let kind = String::from_utf8_lossy(kind);
                return Err(self.err(format!("incorrect comparator type '{kind}'")));
            }
        })
    }

    fn regex_flags(&self, letters: &[u8]) -> Result<u32, ParseError> {
        letters.iter().try_fold(0, |flags, l| match l {
            b'i' => Ok(flags | REGEX_CASE_INSENSITIVE),
            b'm' => Ok(flags | REGEX_MULTILINE),
            b's' => Ok(flags | REGEX_DOTALL),
            _ => Err(self.err("regex flags are i, m and s")),
        })
    }
}

fn bit(value: &[u8], op: BitOp) -> Comparator {
    Comparator::Bit {
        mask: Bytes::copy_from_slice(value),
        op,
    }
}

fn arity(name: &str, pos: usize, args: &[Arg], allowed: &[usize]) -> Result<(), ParseError> {
    if allowed.contains(&args.len()) {
        return Ok(());
    }
    let expected: Vec<String> = allowed.iter().map(ToString::to_string).collect();
    Err(ParseError::new(
        pos,
        format!(
            "{name} expects {} argument(s), got {}",
            expected.join(" or "),
            args.len()
        ),
    ))
}

/// `op, 'comparator'` with HBase's rule that regex and substring only test (in)equality.
fn compare(op: &Arg, cmp: &Arg, dialect: Dialect) -> Result<CompareSpec, ParseError> {
    let op_value = op.op()?;
    let comparator = cmp.comparator(dialect)?;
    let equality_only = matches!(
        comparator,
        Comparator::RegexString { .. } | Comparator::Substring(_)
    );
    if equality_only && !matches!(op_value, CompareOp::Equal | CompareOp::NotEqual) {
        return Err(op.err("regexstring and substring comparators only allow = and !="));
    }
    Ok(CompareSpec {
        op: op_value,
        comparator,
    })
}

fn all_bytes(args: &[Arg]) -> Result<Vec<Bytes>, ParseError> {
    args.iter().map(Arg::bytes).collect()
}

pub fn filter_from_args(
    name: &str,
    pos: usize,
    a: &[Arg],
    dialect: Dialect,
) -> Result<FilterSpec, ParseError> {
    let ar = |allowed: &[usize]| arity(name, pos, a, allowed);
    let extended = dialect == Dialect::Extended;
    Ok(match name {
        "KeyOnlyFilter" => {
            ar(&[0, 1])?;
            FilterSpec::KeyOnly {
                length_as_value: a.first().map(Arg::boolean).transpose()?.unwrap_or(false),
            }
        }
        "FirstKeyOnlyFilter" => {
            ar(&[0])?;
            FilterSpec::FirstKeyOnly
        }
        "PrefixFilter" => {
            ar(&[1])?;
            FilterSpec::Prefix(a[0].bytes()?)
        }
        "ColumnPrefixFilter" => {
            ar(&[1])?;
            FilterSpec::ColumnPrefix(a[0].bytes()?)
        }
        "MultipleColumnPrefixFilter" => FilterSpec::MultipleColumnPrefix(all_bytes(a)?),
        "ColumnCountGetFilter" => {
            ar(&[1])?;
            FilterSpec::ColumnCountGet(a[0].non_negative_int("limit")?)
        }
        "PageFilter" => {
            ar(&[1])?;
            let n = a[0].long()?;
            FilterSpec::Page(u64::try_from(n).map_err(|_| a[0].err("page size must be >= 0"))?)
        }
        "ColumnPaginationFilter" => {
            ar(&[2])?;
            let limit = a[0].non_negative_int("limit")?;
            let offset = if extended && a[1].quoted.is_some() {
                ColumnOffset::Qualifier(a[1].bytes()?)
            } else {
                ColumnOffset::Index(a[1].non_negative_int("offset")?)
            };
            FilterSpec::ColumnPagination { limit, offset }
        }
        "InclusiveStopFilter" => {
            ar(&[1])?;
            FilterSpec::InclusiveStop(a[0].bytes()?)
        }
        "TimestampsFilter" => {
            let (list, can_hint) = match a.split_last() {
                Some((last, rest)) if extended && last.is_boolean() => (rest, last.boolean()?),
                _ => (a, false),
            };
            let timestamps = list
                .iter()
                .map(|t| match t.long()? {
                    ts if ts < 0 => Err(t.err("timestamp must be >= 0")),
                    ts => Ok(ts),
                })
                .collect::<Result<_, _>>()?;
            FilterSpec::Timestamps {
                timestamps,
                can_hint,
            }
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            ar(&[2])?;
            let c = compare(&a[0], &a[1], dialect)?;
            match name {
                "RowFilter" => FilterSpec::Row(c),
                "FamilyFilter" => FilterSpec::Family(c),
                "QualifierFilter" => FilterSpec::Qualifier(c),
                _ => FilterSpec::Value(c),
            }
        }
        "ColumnRangeFilter" => {
            ar(&[4])?;
            FilterSpec::ColumnRange {
                min: a[0].bytes()?,
                min_inclusive: a[1].boolean()?,
                max: a[2].bytes()?,
                max_inclusive: a[3].boolean()?,
            }
        }
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            ar(&[4, 6])?;
            let spec = SingleColumnValueSpec {
                family: a[0].bytes()?,
                qualifier: a[1].bytes()?,
                compare: compare(&a[2], &a[3], dialect)?,
                filter_if_missing: a.get(4).map(Arg::boolean).transpose()?.unwrap_or(false),
                latest_version_only: a.get(5).map(Arg::boolean).transpose()?.unwrap_or(true),
            };
            if name == "SingleColumnValueFilter" {
                FilterSpec::SingleColumnValue(spec)
            } else {
                FilterSpec::SingleColumnValueExclude(spec)
            }
        }
        "DependentColumnFilter" => {
            ar(&[2, 3, 5])?;
            FilterSpec::DependentColumn {
                family: a[0].bytes()?,
                qualifier: a[1].bytes()?,
                drop_dependent_column: a.get(2).map(Arg::boolean).transpose()?.unwrap_or(false),
                compare: match a.get(3..5) {
                    Some([op, cmp]) => Some(compare(op, cmp, dialect)?),
                    _ => None,
                },
            }
        }
        "ColumnValueFilter" => {
            ar(&[4])?;
            FilterSpec::ColumnValue {
                family: a[0].bytes()?,
                qualifier: a[1].bytes()?,
                compare: compare(&a[2], &a[3], dialect)?,
            }
        }
        _ if extended => return extended_filter(name, pos, a),
        _ => return Err(unsupported(name, pos)),
    })
}

fn extended_filter(name: &str, pos: usize, a: &[Arg]) -> Result<FilterSpec, ParseError> {
    Ok(match name {
        "FirstKeyValueMatchingQualifiersFilter" => {
            FilterSpec::FirstKeyValueMatchingQualifiers(all_bytes(a)?)
        }
        "RandomRowFilter" => {
            arity(name, pos, a, &[2])?;
            let chance = a[0]
                .word
                .parse::<f32>()
                .map_err(|_| a[0].err("expected a float"))?;
            let seed =
                u64::try_from(a[1].number("a seed")?).map_err(|_| a[1].err("seed out of range"))?;
            FilterSpec::RandomRow { chance, seed }
        }
        "FuzzyRowFilter" => {
            if !a.chunks_exact(2).remainder().is_empty() {
                return Err(ParseError::new(
                    pos,
                    "FuzzyRowFilter expects (key, mask) pairs",
                ));
            }
            let keys = a
                .chunks(2)
                .map(|pair| {
                    let mask = pair[1].bytes()?;
                    let mask: Vec<u8> = mask
                        .iter()
                        .map(|d| match d {
                            b'0' => Ok(0),
                            b'1' => Ok(1),
                            _ => Err(pair[1].err("a fuzzy mask is a string of 0 and 1")),
                        })
                        .collect::<Result<_, _>>()?;
                    Ok(FuzzyKey {
                        key: pair[0].bytes()?,
                        mask: Bytes::from(mask),
                    })
                })
                .collect::<Result<_, ParseError>>()?;
            FilterSpec::FuzzyRow(keys)
        }
        "MultiRowRangeFilter" => {
            if !a.chunks_exact(4).remainder().is_empty() {
                let msg = "MultiRowRangeFilter expects (start, inclusive, stop, inclusive) groups";
                return Err(ParseError::new(pos, msg));
            }
            let ranges = a
                .chunks(4)
                .map(|r| {
                    Ok(RowRange {
                        start: r[0].bytes()?,
                        start_inclusive: r[1].boolean()?,
                        stop: r[2].bytes()?,
                        stop_inclusive: r[3].boolean()?,
                    })
                })
                .collect::<Result<_, ParseError>>()?;
            FilterSpec::MultiRowRange(ranges)
        }
        _ => return Err(unsupported(name, pos)),
    })
}

/// Whether `name` is a wrapper filter the language writes as an operator, not a call.
pub(super) fn is_operator_filter(name: &str) -> bool {
    matches!(name, "WhileMatchFilter" | "SkipFilter" | "FilterList")
}

/// `filter name X not supported`, naming the operator to use for the wrapper filters the
/// language writes as operators (HBase's `ParseFilter` knows `WHILE` and `SKIP` as unary
/// operators and `AND` / `OR` for lists, never `WhileMatchFilter(...)`, `SkipFilter(...)`
/// or `FilterList(...)` calls).
pub(super) fn unsupported(name: &str, pos: usize) -> ParseError {
    let hint = match name {
        "WhileMatchFilter" => {
            ": the filter language writes it as the WHILE operator, e.g. WHILE RowFilter(=, 'binary:r1')"
        }
        "SkipFilter" => {
            ": the filter language writes it as the SKIP operator, e.g. SKIP ValueFilter(=, 'binary:v')"
        }
        "FilterList" => ": the filter language combines filters with AND and OR",
        _ => "",
    };
    ParseError::new(pos, format!("filter name {name} not supported{hint}"))
}
