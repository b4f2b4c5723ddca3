//! Reading command arguments: arity, strings, numbers, hashes, table names and columns.

use crate::command::{CmdError, Ctx};
use crate::parse::Value;
use basalt_types::TableName;
use bytes::Bytes;

/// Fails unless `min <= args.len() <= max`, in Ruby's words.
pub fn arity(ctx: &Ctx, args: &[Value], min: usize, max: usize) -> Result<(), CmdError> {
    let given = args.len();
    if given >= min && given <= max {
        return Ok(());
    }
    let expected = match (min, max) {
        (a, b) if a == b => a.to_string(),
        (a, usize::MAX) => format!("{a}+"),
        (a, b) => format!("{a}..{b}"),
    };
    Err(CmdError::new(match ctx.style {
        crate::Style::Hbase1 => format!("wrong number of arguments ({given} for {expected})"),
        crate::Style::Hbase2 => {
            format!("wrong number of arguments (given {given}, expected {expected})")
        }
    }))
}

/// The text of a string or constant argument.
pub fn text(v: &Value, what: &str) -> Result<String, CmdError> {
    match v {
        Value::Int(i) => Ok(i.to_string()),
        other => other.as_text().ok_or_else(|| {
            CmdError::new(format!("{what} must be a string, got {}", other.inspect()))
        }),
    }
}

/// The bytes of an argument (numbers print as decimal, as Ruby's `to_s`).
pub fn bytes(v: &Value, what: &str) -> Result<Bytes, CmdError> {
    match v {
        Value::Str(b) => Ok(Bytes::from(b.clone())),
        Value::Int(i) => Ok(Bytes::from(i.to_string())),
        Value::Float(f) => Ok(Bytes::from(f.to_string())),
        Value::Const(c) => Ok(Bytes::from(c.clone())),
        Value::Bool(b) => Ok(Bytes::from(b.to_string())),
        other => Err(CmdError::new(format!(
            "{what} must be a string, got {}",
            other.inspect()
        ))),
    }
}

/// An integer argument (a numeric string also counts, as the shell's `to_i` would).
pub fn int(v: &Value, what: &str) -> Result<i64, CmdError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Float(f) => Ok(*f as i64),
        Value::Str(_) | Value::Const(_) => {
            let t = v.as_text().unwrap_or_default();
            t.trim()
                .parse()
                .map_err(|_| CmdError::new(format!("{what} must be a number, got '{t}'")))
        }
        other => Err(CmdError::new(format!(
            "{what} must be a number, got {}",
            other.inspect()
        ))),
    }
}

/// A boolean argument (`true`, `'true'`, `'TRUE'`).
pub fn boolean(v: &Value, what: &str) -> Result<bool, CmdError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Str(_) | Value::Const(_) => {
            let t = v.as_text().unwrap_or_default();
            match t.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(CmdError::new(format!(
                    "{what} must be true or false, got '{t}'"
                ))),
            }
        }
        other => Err(CmdError::new(format!(
            "{what} must be true or false, got {}",
            other.inspect()
        ))),
    }
}

/// The pairs of a hash argument, or `None` when it is not a hash.
pub fn hash(v: &Value) -> Option<&[(Value, Value)]> {
    match v {
        Value::Hash(pairs) => Some(pairs),
        _ => None,
    }
}

/// The value under `key` (a constant or a string of that name).
pub fn get<'a>(pairs: &'a [(Value, Value)], key: &str) -> Option<&'a Value> {
    pairs
        .iter()
        .find(|(k, _)| k.as_text().as_deref() == Some(key))
        .map(|(_, v)| v)
}

/// A hash's keys as text.
pub fn keys(pairs: &[(Value, Value)]) -> Vec<String> {
    pairs.iter().filter_map(|(k, _)| k.as_text()).collect()
}

/// A table name argument (`'t'`, `'ns:t'` or a table reference).
pub fn table_name(v: &Value) -> Result<TableName, CmdError> {
    let name = text(v, "table name")?;
    TableName::parse(&name).map_err(|e| CmdError::new(e.to_string()))
}

/// A list argument: an array, or one value standing for a list of one.
pub fn list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    }
}

/// A column spec `f`, `f:` or `f:q` (bytes may hold any value; the first `:` splits).
/// Returns the family and the qualifier (`None` for a whole family).
pub fn column(spec: &[u8]) -> (Bytes, Option<Bytes>) {
    match spec.iter().position(|b| *b == b':') {
        Some(i) => (
            Bytes::copy_from_slice(&spec[..i]),
            Some(Bytes::copy_from_slice(&spec[i + 1..])),
        ),
        None => (Bytes::copy_from_slice(spec), None),
    }
}
