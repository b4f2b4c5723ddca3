//! Prints a spec in the filter language, so that parsing the text gives the spec back.
//!
//! Lists print as `AND` / `OR` chains with nested lists in parentheses (a list needs at
//! least two filters to be printable); `SKIP` / `WHILE` parenthesise a list operand.

use super::Dialect;
use crate::DEPTH_MAX;
use basalt_types::filter_spec::{
    BitOp, ColumnOffset, Comparator, CompareSpec, REGEX_CASE_INSENSITIVE, REGEX_DOTALL,
    REGEX_MULTILINE,
};
use basalt_types::{CompareOp, FilterSpec};
use std::fmt::Write;

/// HBase's filter language for `spec`, or `None` when the language cannot express it
/// (filters outside `ParseFilter`, non-UTF-8 bytes, lists of fewer than two filters, ...).
pub fn to_language(spec: &FilterSpec) -> Option<String> {
    Printer::new(Dialect::HBase).expr(spec)
}

/// The extended dialect for `spec`; `None` only for lists of fewer than two filters,
/// `NO_OP` compares, NaN `RandomRowFilter` chances, fuzzy masks other than 0/1, unknown regex
/// flags and nesting deeper than [`DEPTH_MAX`].
pub fn to_extended_language(spec: &FilterSpec) -> Option<String> {
    Printer::new(Dialect::Extended).expr(spec)
}

struct Printer {
    dialect: Dialect,
    out: String,
    /// Nesting as the parser counts it (parentheses, `SKIP`, `WHILE`).
    depth: usize,
}

impl Printer {
    fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            out: String::new(),
            depth: 0,
        }
    }

    fn expr(mut self, spec: &FilterSpec) -> Option<String> {
        self.spec(spec)?;
        Some(self.out)
    }

    fn extended(&self) -> Option<()> {
        (self.dialect == Dialect::Extended).then_some(())
    }

    fn spec(&mut self, spec: &FilterSpec) -> Option<()> {
        match spec {
            FilterSpec::List {
                must_pass_all,
                filters,
            } => {
                if filters.len() < 2 {
                    return None;
                }
                let keyword = if *must_pass_all { " AND " } else { " OR " };
                for (i, f) in filters.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(keyword);
                    }
                    self.operand(f)?;
                }
                Some(())
            }
            FilterSpec::Skip(inner) => {
                self.out.push_str("SKIP ");
                self.nested(|p| p.operand(inner))
            }
            FilterSpec::WhileMatch(inner) => {
                self.out.push_str("WHILE ");
                self.nested(|p| p.operand(inner))
            }
            _ => self.call(spec),
        }
    }

    fn operand(&mut self, spec: &FilterSpec) -> Option<()> {
        if matches!(spec, FilterSpec::List { .. }) {
            self.out.push('(');
            self.nested(|p| p.spec(spec))?;
            self.out.push(')');
            Some(())
        } else {
            self.spec(spec)
        }
    }

    /// One level deeper; `None` past what the parser accepts.
    fn nested(&mut self, print: impl FnOnce(&mut Self) -> Option<()>) -> Option<()> {
        self.depth += 1;
        if self.depth > DEPTH_MAX {
            return None;
        }
        let out = print(self);
        self.depth -= 1;
        out
    }

    fn call(&mut self, spec: &FilterSpec) -> Option<()> {
        let mut args: Vec<String> = Vec::new();
        match spec {
            FilterSpec::Row(c)
            | FilterSpec::Family(c)
            | FilterSpec::Qualifier(c)
            | FilterSpec::Value(c) => self.compare(c, &mut args)?,
            FilterSpec::SingleColumnValue(s) | FilterSpec::SingleColumnValueExclude(s) => {
                args.push(self.quote(&s.family)?);
                args.push(self.quote(&s.qualifier)?);
                self.compare(&s.compare, &mut args)?;
                args.push(s.filter_if_missing.to_string());
                args.push(s.latest_version_only.to_string());
            }
            FilterSpec::ColumnValue {
                family,
                qualifier,
                compare,
            } => {
                args.push(self.quote(family)?);
                args.push(self.quote(qualifier)?);
                self.compare(compare, &mut args)?;
            }
            FilterSpec::DependentColumn {
                family,
                qualifier,
                drop_dependent_column,
                compare,
            } => {
                args.push(self.quote(family)?);
                args.push(self.quote(qualifier)?);
                args.push(drop_dependent_column.to_string());
                if let Some(c) = compare {
                    self.compare(c, &mut args)?;
                }
            }
            FilterSpec::Prefix(b) | FilterSpec::ColumnPrefix(b) | FilterSpec::InclusiveStop(b) => {
                args.push(self.quote(b)?);
            }
            FilterSpec::MultipleColumnPrefix(list) => {
                for b in list {
                    args.push(self.quote(b)?);
                }
            }
            FilterSpec::FirstKeyValueMatchingQualifiers(list) => {
                self.extended()?;
                for b in list {
                    args.push(self.quote(b)?);
                }
            }
            FilterSpec::ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            } => {
                args.push(self.quote(min)?);
                args.push(min_inclusive.to_string());
                args.push(self.quote(max)?);
                args.push(max_inclusive.to_string());
            }
            FilterSpec::ColumnPagination { limit, offset } => {
                args.push(limit.to_string());
                match offset {
                    ColumnOffset::Index(o) => args.push(o.to_string()),
                    ColumnOffset::Qualifier(q) => {
                        self.extended()?;
                        args.push(self.quote(q)?);
                    }
                }
            }
            FilterSpec::ColumnCountGet(n) => args.push(n.to_string()),
            FilterSpec::Page(n) => {
                i64::try_from(*n).ok()?;
                args.push(n.to_string());
            }
            FilterSpec::KeyOnly { length_as_value } => {
                if *length_as_value {
                    args.push("true".into());
                }
            }
            FilterSpec::FirstKeyOnly => {}
            FilterSpec::Timestamps {
                timestamps,
                can_hint,
            } => {
                args.extend(timestamps.iter().map(ToString::to_string));
                if *can_hint {
                    self.extended()?;
                    args.push("true".into());
                }
            }
            FilterSpec::RandomRow { chance, seed } => {
                self.extended()?;
                if chance.is_nan() {
                    return None;
                }
                args.push(format!("{chance:?}"));
                args.push(seed.to_string());
            }
            FilterSpec::FuzzyRow(keys) => {
                self.extended()?;
                for k in keys {
                    args.push(self.quote(&k.key)?);
                    let digits: Option<String> = k
                        .mask
                        .iter()
                        .map(|m| match m {
                            0 => Some('0'),
                            1 => Some('1'),
                            _ => None,
                        })
                        .collect();
                    args.push(format!("'{}'", digits?));
                }
            }
            FilterSpec::MultiRowRange(ranges) => {
                self.extended()?;
                for r in ranges {
                    args.push(self.quote(&r.start)?);
                    args.push(r.start_inclusive.to_string());
                    args.push(self.quote(&r.stop)?);
                    args.push(r.stop_inclusive.to_string());
                }
            }
            FilterSpec::List { .. } | FilterSpec::Skip(_) | FilterSpec::WhileMatch(_) => {
                return None
            }
        }
        let _ = write!(self.out, "{}({})", spec.name(), args.join(", "));
        Some(())
    }

    fn compare(&self, c: &CompareSpec, args: &mut Vec<String>) -> Option<()> {
        args.push(
            match c.op {
                CompareOp::Less => "<",
                CompareOp::LessOrEqual => "<=",
                CompareOp::Equal => "=",
                CompareOp::NotEqual => "!=",
                CompareOp::GreaterOrEqual => ">=",
                CompareOp::Greater => ">",
                CompareOp::NoOp => return None,
            }
            .to_owned(),
        );
        let equality_only = matches!(
            c.comparator,
            Comparator::RegexString { .. } | Comparator::Substring(_)
        );
        if equality_only && !matches!(c.op, CompareOp::Equal | CompareOp::NotEqual) {
            return None;
        }
        let (kind, value): (String, &[u8]) = match &c.comparator {
            Comparator::Binary(b) => ("binary".into(), b),
            Comparator::BinaryPrefix(b) => ("binaryprefix".into(), b),
            Comparator::RegexString { pattern, flags } if *flags == REGEX_DOTALL => {
                ("regexstring".into(), pattern.as_bytes())
            }
            Comparator::RegexString { pattern, flags } => {
                self.extended()?;
                let known = REGEX_CASE_INSENSITIVE | REGEX_MULTILINE | REGEX_DOTALL;
                if flags & !known != 0 {
                    return None;
                }
                let letters: String = [
                    (REGEX_CASE_INSENSITIVE, 'i'),
                    (REGEX_MULTILINE, 'm'),
                    (REGEX_DOTALL, 's'),
                ]
                .iter()
                .filter(|(bit, _)| flags & bit != 0)
                .map(|(_, l)| *l)
                .collect();
                (format!("regexstring/{letters}"), pattern.as_bytes())
            }
            Comparator::Substring(s) => ("substring".into(), s.as_bytes()),
            Comparator::Long(v) => {
                self.extended()?;
                args.push(format!("'long:{v}'"));
                return Some(());
            }
            Comparator::Null => {
                self.extended()?;
                ("null".into(), &[])
            }
            Comparator::Bit { mask, op } => {
                self.extended()?;
                let kind = match op {
                    BitOp::And => "bitand",
                    BitOp::Or => "bitor",
                    BitOp::Xor => "bitxor",
                };
                (kind.into(), mask)
            }
        };
        let mut full = kind.into_bytes();
        full.push(b':');
        full.extend_from_slice(value);
        args.push(self.quote(&full)?);
        Some(())
    }

    /// A quoted string: `''` for a quote; in the extended dialect `\xNN` for a backslash and
    /// any byte outside printable ASCII. HBase's language has no escapes: bytes must be UTF-8.
    fn quote(&self, bytes: &[u8]) -> Option<String> {
        let mut out = String::with_capacity(bytes.len() + 2);
        out.push('\'');
        match self.dialect {
            Dialect::HBase => {
                let text = std::str::from_utf8(bytes).ok()?;
                out.push_str(&text.replace('\'', "''"));
            }
            Dialect::Extended => {
                for &b in bytes {
                    match b {
                        b'\'' => out.push_str("''"),
                        b'\\' | 0..=0x1f | 0x7f..=0xff => {
                            let _ = write!(out, "\\x{b:02X}");
                        }
                        _ => out.push(char::from(b)),
                    }
                }
            }
        }
        out.push('\'');
        Some(out)
    }
}
