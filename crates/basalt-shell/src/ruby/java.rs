//! The Java names HBase runbooks use, as values of the shell's Ruby.
//!
//! | Ruby | value |
//! |------|-------|
//! | `org.apache.hadoop.hbase.util.Bytes.toBytes('r')` | the bytes of `'r'` (a number: 8 big-endian bytes) |
//! | `Bytes.toLong(v)`, `toInt`, `toString`, `toStringBinary`, `toBytesBinary`, `add` | as `Bytes` |
//! | `PrefixFilter.new(Bytes.toBytes('r'))` | a filter; `FILTER =>` reads it as `PrefixFilter('r')` |
//! | `SingleColumnValueFilter.new(f, q, CompareFilter::CompareOp.valueOf('EQUAL'), BinaryComparator.new(v))` | `SingleColumnValueFilter('f', 'q', =, 'binary:v')` |
//! | `CompareOperator::EQUAL`, `CompareFilter::CompareOp::GREATER` | the operators `=`, `>`, … |
//! | `FilterList.new(FilterList::Operator::MUST_PASS_ONE, [a, b])` | `(a) OR (b)` |
//! | `WhileMatchFilter.new(f)`, `SkipFilter.new(f)` | `WHILE f`, `SKIP f` |
//! | `java.lang.Long.valueOf('5')`, `Long::MAX_VALUE`, `java.util.ArrayList.new` | integers, an array |
//!
//! A filter object is its filter-language text: scans parse it as they parse a `FILTER`
//! string, so both forms check their arguments the same way.

use super::RubyError;
use crate::parse::Value;

/// A Java value the shell knows.
#[derive(Debug, Clone, PartialEq)]
pub enum JavaObject {
    /// A package path on the way to a class (`org.apache`).
    Package(String),
    /// A class (or nested class such as `CompareFilter.CompareOp`), by full name.
    Class(String),
    /// A filter: its class and its arguments in the filter language (bytes: a quoted
    /// argument keeps bytes that are not UTF-8).
    Filter {
        class: String,
        args: Vec<Vec<u8>>,
        /// `SingleColumnValueFilter`'s `setFilterIfMissing` / `setLatestVersionOnly`.
        flags: Option<(bool, bool)>,
    },
    /// `WHILE f` / `SKIP f`.
    Wrapped {
        word: &'static str,
        inner: Box<JavaObject>,
    },
    FilterList {
        must_pass_all: bool,
        filters: Vec<JavaObject>,
    },
    /// A comparator as the filter language writes it (`binary:abc`).
    Comparator { class: String, text: Vec<u8> },
    /// A compare operator by its Java name (`EQUAL`).
    CompareOp(&'static str),
    /// `FilterList::Operator::MUST_PASS_ALL` (true) or `MUST_PASS_ONE`.
    ListOperator(bool),
}

const FILTER_PACKAGE: &str = "org.apache.hadoop.hbase.filter";

const FILTERS: &[&str] = &[
    "KeyOnlyFilter",
    "FirstKeyOnlyFilter",
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnCountGetFilter",
    "PageFilter",
    "ColumnPaginationFilter",
    "InclusiveStopFilter",
    "TimestampsFilter",
    "RowFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ValueFilter",
    "ColumnRangeFilter",
    "SingleColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "DependentColumnFilter",
    "ColumnValueFilter",
    "FirstKeyValueMatchingQualifiersFilter",
    "RandomRowFilter",
];

const COMPARATORS: &[(&str, &str)] = &[
    ("BinaryComparator", "binary"),
    ("BinaryPrefixComparator", "binaryprefix"),
    ("SubstringComparator", "substring"),
    ("RegexStringComparator", "regexstring"),
    ("NullComparator", "null"),
    ("LongComparator", "long"),
];

const OPERATORS: &[(&str, &str)] = &[
    ("EQUAL", "="),
    ("NOT_EQUAL", "!="),
    ("LESS", "<"),
    ("LESS_OR_EQUAL", "<="),
    ("GREATER", ">"),
    ("GREATER_OR_EQUAL", ">="),
];

/// The package of a class Basalt's shell knows, by simple name.
pub fn package_of(class: &str) -> Option<&'static str> {
    if FILTERS.contains(&class)
        || COMPARATORS.iter().any(|(c, _)| *c == class)
        || matches!(
            class,
            "FilterList" | "CompareFilter" | "WhileMatchFilter" | "SkipFilter"
        )
    {
        return Some(FILTER_PACKAGE);
    }
    match class {
        "Bytes" => Some("org.apache.hadoop.hbase.util"),
        "CompareOperator" => Some("org.apache.hadoop.hbase"),
        "Long" | "Integer" | "String" => Some("java.lang"),
        "ArrayList" | "Arrays" => Some("java.util"),
        _ => None,
    }
}

/// `pkg.Name`: a known class, or an error naming it.
pub fn class_in(package: &str, name: &str) -> Result<Value, RubyError> {
    match package_of(name) {
        Some(p) if p == package => Ok(Value::Java(JavaObject::Class(format!("{p}.{name}")))),
        _ => Err(RubyError::name(format!(
            "Java class {package}.{name} is not supported by Basalt's shell (it knows Bytes, \
             the filter and comparator classes, CompareOperator, java.lang.Long and \
             java.util.ArrayList)"
        ))),
    }
}

fn simple(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

fn camel_package(full: &str) -> String {
    let mut parts: Vec<&str> = full.split('.').collect();
    let mut classes = Vec::new();
    while parts
        .last()
        .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
    {
        classes.insert(0, parts.pop().unwrap_or_default());
    }
    let pkg: String = parts
        .iter()
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("Java::{pkg}::{}", classes.join("::"))
}

impl JavaObject {
    /// The filter-language string of a filter, list or wrapper, as bytes (what HBase's
    /// `ParseFilter` reads).
    pub fn filter_bytes(&self) -> Option<Vec<u8>> {
        Some(match self {
            JavaObject::Filter { class, args, flags } => {
                let mut args = args.clone();
                if let Some((if_missing, latest_only)) = flags {
                    args.push(if_missing.to_string().into_bytes());
                    args.push(latest_only.to_string().into_bytes());
                }
                let mut out = format!("{class}(").into_bytes();
                out.extend(args.join(&b", "[..]));
                out.push(b')');
                out
            }
            JavaObject::Wrapped { word, inner } => {
                let mut out = format!("{word} ").into_bytes();
                out.extend(inner.filter_bytes()?);
                out
            }
            JavaObject::FilterList {
                must_pass_all,
                filters,
            } => {
                let joiner: &[u8] = if *must_pass_all { b" AND " } else { b" OR " };
                let parts: Option<Vec<Vec<u8>>> = filters
                    .iter()
                    .map(|f| {
                        let mut part = vec![b'('];
                        part.extend(f.filter_bytes()?);
                        part.push(b')');
                        Some(part)
                    })
                    .collect();
                parts?.join(joiner)
            }
            _ => return None,
        })
    }

    /// [`Self::filter_bytes`] as text, for printing.
    pub fn filter_text(&self) -> Option<String> {
        self.filter_bytes()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    pub fn inspect(&self) -> String {
        match self {
            JavaObject::Package(p) => format!("#<Java::JavaPackage {p}>"),
            JavaObject::Class(c) => camel_package(c),
            JavaObject::Filter { class, .. } => format!(
                "#<{} {}>",
                camel_package(&format!("{FILTER_PACKAGE}.{class}")),
                self.filter_text().unwrap_or_default()
            ),
            JavaObject::Wrapped { word, .. } => format!(
                "#<Java::OrgApacheHadoopHbaseFilter::{} {}>",
                if *word == "SKIP" {
                    "SkipFilter"
                } else {
                    "WhileMatchFilter"
                },
                self.filter_text().unwrap_or_default()
            ),
            JavaObject::FilterList { filters, .. } => format!(
                "#<Java::OrgApacheHadoopHbaseFilter::FilterList {} filter(s)>",
                filters.len()
            ),
            JavaObject::Comparator { class, text } => format!(
                "#<{} {}>",
                camel_package(&format!("{FILTER_PACKAGE}.{class}")),
                String::from_utf8_lossy(text)
            ),
            JavaObject::CompareOp(name) => name.to_string(),
            JavaObject::ListOperator(all) => if *all {
                "MUST_PASS_ALL"
            } else {
                "MUST_PASS_ONE"
            }
            .to_string(),
        }
    }
}

/// `Class::NAME`: nested classes and enum constants.
pub fn scope(class: &str, name: &str) -> Result<Value, RubyError> {
    let short = simple(class);
    let nested = |n: &str| Ok(Value::Java(JavaObject::Class(format!("{class}.{n}"))));
    match (short, name) {
        ("CompareFilter", "CompareOp") | ("FilterList", "Operator") => nested(name),
        ("CompareOp" | "CompareOperator", op) => compare_op(op),
        ("Operator", "MUST_PASS_ALL") => Ok(Value::Java(JavaObject::ListOperator(true))),
        ("Operator", "MUST_PASS_ONE") => Ok(Value::Java(JavaObject::ListOperator(false))),
        ("Long", "MAX_VALUE") => Ok(Value::Int(i64::MAX)),
        ("Long", "MIN_VALUE") => Ok(Value::Int(i64::MIN)),
        ("Integer", "MAX_VALUE") => Ok(Value::Int(i32::MAX.into())),
        ("Integer", "MIN_VALUE") => Ok(Value::Int(i32::MIN.into())),
        _ => Err(RubyError::name(format!(
            "uninitialized constant {}::{name}",
            camel_package(class)
        ))),
    }
}

fn compare_op(name: &str) -> Result<Value, RubyError> {
    match OPERATORS.iter().find(|(n, _)| *n == name) {
        Some((n, _)) => Ok(Value::Java(JavaObject::CompareOp(n))),
        None => Err(RubyError::new(
            "ArgumentError",
            format!(
                "No enum constant CompareOperator.{name} (Basalt's shell knows EQUAL, NOT_EQUAL, \
                 LESS, LESS_OR_EQUAL, GREATER, GREATER_OR_EQUAL)"
            ),
        )),
    }
}

/// The bytes Java would pass for `v` where a `byte[]` is expected.
pub fn bytes_of(v: &Value, what: &str) -> Result<Vec<u8>, RubyError> {
    match v {
        Value::Str(b) => Ok(b.clone()),
        Value::Symbol(s) | Value::Const(s) => Ok(s.as_bytes().to_vec()),
        other => Err(RubyError::new(
            "TypeError",
            format!(
                "{what}: expected a byte[] (a string), got {}",
                other.inspect()
            ),
        )),
    }
}

/// A value as a filter-language argument.
fn arg_text(v: &Value, what: &str) -> Result<Vec<u8>, RubyError> {
    Ok(match v {
        Value::Int(i) => i.to_string().into_bytes(),
        Value::Float(f) => f.to_string().into_bytes(),
        Value::Bool(b) => b.to_string().into_bytes(),
        Value::Java(JavaObject::CompareOp(name)) => OPERATORS
            .iter()
            .find(|(n, _)| n == name)
            .map_or("=", |(_, s)| s)
            .as_bytes()
            .to_vec(),
        Value::Java(JavaObject::Comparator { text, .. }) => quote(text),
        other => quote(&bytes_of(other, what)?),
    })
}

/// A value where a comparator is expected: a comparator, or bytes (a binary comparison).
fn comparator_text(v: &Value, what: &str) -> Result<Vec<u8>, RubyError> {
    match v {
        Value::Java(JavaObject::Comparator { text, .. }) => Ok(quote(text)),
        other => {
            let mut text = b"binary:".to_vec();
            text.extend(bytes_of(other, what)?);
            Ok(quote(&text))
        }
    }
}

/// A quoted filter-language argument: every byte kept, quotes doubled.
fn quote(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'\'');
    for &b in bytes {
        out.push(b);
        if b == b'\'' {
            out.push(b'\'');
        }
    }
    out.push(b'\'');
    out
}

/// `Class.new(args)`.
pub fn construct(class: &str, args: &[Value]) -> Result<Value, RubyError> {
    let short = simple(class);
    if let Some((_, prefix)) = COMPARATORS.iter().find(|(c, _)| *c == short) {
        let mut text = format!("{prefix}:").into_bytes();
        match args.first() {
            Some(Value::Int(i)) => text.extend(i.to_string().into_bytes()),
            Some(v) => text.extend(bytes_of(v, short)?),
            None if *prefix == "null" => {}
            None => return Err(arity(short, 0)),
        }
        return Ok(Value::Java(JavaObject::Comparator {
            class: short.to_string(),
            text,
        }));
    }
    let filter = |args: Vec<Vec<u8>>| {
        Ok(Value::Java(JavaObject::Filter {
            class: short.to_string(),
            args,
            flags: None,
        }))
    };
    match short {
        "WhileMatchFilter" | "SkipFilter" => match args {
            [Value::Java(inner)] if inner.filter_bytes().is_some() => {
                Ok(Value::Java(JavaObject::Wrapped {
                    word: if short == "SkipFilter" {
                        "SKIP"
                    } else {
                        "WHILE"
                    },
                    inner: Box::new(inner.clone()),
                }))
            }
            _ => Err(RubyError::new(
                "TypeError",
                format!("{short}.new takes one filter"),
            )),
        },
        "FilterList" => filter_list(args),
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => match args {
            [op, cmp] => filter(vec![arg_text(op, short)?, comparator_text(cmp, short)?]),
            _ => Err(arity(short, args.len())),
        },
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" | "ColumnValueFilter" => {
            match args {
                [f, q, op, cmp] => filter(vec![
                    arg_text(f, short)?,
                    arg_text(q, short)?,
                    arg_text(op, short)?,
                    comparator_text(cmp, short)?,
                ]),
                _ => Err(arity(short, args.len())),
            }
        }
        "MultipleColumnPrefixFilter"
        | "TimestampsFilter"
        | "FirstKeyValueMatchingQualifiersFilter" => {
            let items: Vec<Value> = match args {
                [Value::Array(items)] => items.clone(),
                other => other.to_vec(),
            };
            filter(
                items
                    .iter()
                    .map(|v| arg_text(v, short))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ if FILTERS.contains(&short) => filter(
            args.iter()
                .map(|v| arg_text(v, short))
                .collect::<Result<_, _>>()?,
        ),
        "ArrayList" => Ok(Value::Array(Vec::new())),
        "String" => Ok(Value::Str(match args.first() {
            Some(v) => bytes_of(v, "String.new")?,
            None => Vec::new(),
        })),
        _ => Err(RubyError::no_method(format!(
            "Basalt's shell cannot construct {class} (no `new`)"
        ))),
    }
}

fn arity(class: &str, given: usize) -> RubyError {
    RubyError::new(
        "ArgumentError",
        format!("no constructor for arguments ({given}) on Java::{class}"),
    )
}

fn filter_list(args: &[Value]) -> Result<Value, RubyError> {
    let mut must_pass_all = true;
    let mut filters = Vec::new();
    for a in args {
        match a {
            Value::Java(JavaObject::ListOperator(all)) => must_pass_all = *all,
            Value::Array(items) => {
                for i in items {
                    filters.push(as_filter(i)?);
                }
            }
            other => filters.push(as_filter(other)?),
        }
    }
    Ok(Value::Java(JavaObject::FilterList {
        must_pass_all,
        filters,
    }))
}

/// `v` as a filter, or a type error.
pub fn as_filter(v: &Value) -> Result<JavaObject, RubyError> {
    match v {
        Value::Java(j) if j.filter_bytes().is_some() => Ok(j.clone()),
        other => Err(RubyError::new(
            "TypeError",
            format!("expected a filter, got {}", other.inspect()),
        )),
    }
}

/// The setters runbooks call on a filter held in a variable; the new filter.
pub fn call_on_filter(
    obj: &JavaObject,
    method: &str,
    args: &[Value],
) -> Option<Result<JavaObject, RubyError>> {
    let mut obj = obj.clone();
    match (&mut obj, method, args) {
        (
            JavaObject::Filter { flags, .. },
            "setFilterIfMissing" | "filter_if_missing=",
            [Value::Bool(b)],
        ) => {
            let (_, latest) = flags.unwrap_or((false, true));
            *flags = Some((*b, latest));
        }
        (JavaObject::Filter { flags, .. }, "setLatestVersionOnly", [Value::Bool(b)]) => {
            let (missing, _) = flags.unwrap_or((false, true));
            *flags = Some((missing, *b));
        }
        (JavaObject::FilterList { filters, .. }, "addFilter" | "add", [f]) => match as_filter(f) {
            Ok(f) => filters.push(f),
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    }
    Some(Ok(obj))
}

/// `Class.method(args)`: `Bytes`, `Long`, `CompareOp.valueOf`, `Arrays.asList`.
pub fn call_static(class: &str, method: &str, args: &[Value]) -> Result<Value, RubyError> {
    let short = simple(class);
    match (short, method) {
        ("Bytes", _) => super::bytes::call(method, args),
        ("CompareOp" | "CompareOperator", "valueOf") => match args {
            [v] => compare_op(&String::from_utf8_lossy(&bytes_of(v, "valueOf")?)),
            _ => Err(arity(short, args.len())),
        },
        ("Long" | "Integer", "valueOf" | "parseLong" | "parseInt" | "new") => match args {
            [Value::Int(i)] => Ok(Value::Int(*i)),
            [v] => {
                let text = String::from_utf8_lossy(&bytes_of(v, method)?).into_owned();
                text.trim().parse().map(Value::Int).map_err(|_| {
                    RubyError::new(
                        "NumberFormatException",
                        format!("For input string: \"{text}\""),
                    )
                })
            }
            _ => Err(arity(short, args.len())),
        },
        ("Long" | "Integer" | "String", "toString" | "valueOf") => match args {
            [v] => Ok(Value::Str(super::ops::to_s(v))),
            _ => Err(arity(short, args.len())),
        },
        ("Arrays", "asList") => Ok(Value::Array(args.to_vec())),
        (_, "new") => construct(class, args),
        _ => Err(RubyError::no_method(format!(
            "undefined method `{method}' for {}",
            camel_package(class)
        ))),
    }
}
