//! HBase REST's models: what each resource reads and writes, in every representation.
//!
//! # Layout
//! - [`cell_set`]: rows of cells (`CellSet`), the body of row reads, writes and scans.
//! - [`schema`]: `TableSchema` / `ColumnSchema` and their mapping onto descriptors.
//! - [`scanner`]: the `Scanner` model that opens a stateful scanner.
//! - [`filter`]: the JSON filter model inside a scanner.
//! - [`catalog`]: table lists, namespaces, namespace properties and region lists.
//! - [`status`]: versions and the cluster status.

pub mod catalog;
pub mod cell_set;
pub mod filter;
pub mod scanner;
pub mod schema;
pub mod status;

use crate::error::{RestError, Result};
use serde_json::Value;

/// A model the gateway can write in XML, JSON, protobuf and (where HBase has one) text.
pub trait Model {
    fn json(&self) -> Value;
    /// The document without its declaration.
    fn xml(&self) -> String;
    fn protobuf(&self) -> Vec<u8>;
    /// HBase's human form; models without one write their JSON.
    fn text(&self) -> String {
        self.json().to_string()
    }
}

/// The string field `key` of a JSON object, if present.
pub fn json_str<'a>(object: &'a Value, key: &str, model: &str) -> Result<Option<&'a str>> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(RestError::bad(format!(
            "{model}: field '{key}' must be a string, not {other}"
        ))),
    }
}

/// The integer field `key` of a JSON object (a number or a decimal string), if present.
pub fn json_i64(object: &Value, key: &str, model: &str) -> Result<Option<i64>> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| {
            RestError::bad(format!(
                "{model}: field '{key}' must be an integer, not {n}"
            ))
        }),
        Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| {
            RestError::bad(format!(
                "{model}: field '{key}' must be an integer, not '{s}'"
            ))
        }),
        Some(other) => Err(RestError::bad(format!(
            "{model}: field '{key}' must be an integer, not {other}"
        ))),
    }
}

/// The boolean field `key` of a JSON object (a boolean or `"true"`/`"false"`), if present.
pub fn json_bool(object: &Value, key: &str, model: &str) -> Result<Option<bool>> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(other) => Err(RestError::bad(format!(
            "{model}: field '{key}' must be true or false, not {other}"
        ))),
    }
}

/// The array field `key` of a JSON object (a single element counts as a one-element array).
pub fn json_array<'a>(object: &'a Value, key: &str) -> Vec<&'a Value> {
    match object.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one) => vec![one],
    }
}

/// Fails unless `value` is a JSON object.
pub fn json_object<'a>(
    value: &'a Value,
    model: &str,
) -> Result<&'a serde_json::Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| RestError::bad(format!("{model} must be a JSON object, not {value}")))
}

/// An integer attribute of an XML element, if present.
pub fn xml_i64(element: &crate::repr::xml::Element, key: &str, model: &str) -> Result<Option<i64>> {
    element
        .attr(key)
        .map(|v| {
            v.trim().parse().map_err(|_| {
                RestError::bad(format!(
                    "{model}: attribute '{key}' must be an integer, not '{v}'"
                ))
            })
        })
        .transpose()
}
