//! Table and namespace names with HBase's naming rules (reference §2.4).

use crate::error::{invalid, Result};
use std::fmt;

pub const DEFAULT_NAMESPACE: &str = "default";

/// The encoded name inside HBase's full region name `table,start,id.ENCODED.` (the text
/// itself when it is already an encoded name).
pub fn encoded_region_name(name: &str) -> &str {
    match name.strip_suffix('.') {
        Some(body) => body.rsplit('.').next().unwrap_or(name),
        None => name,
    }
}
pub const SYSTEM_NAMESPACE: &str = "hbase";

/// `namespace:qualifier`; a name without a namespace is in `default`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    namespace: String,
    qualifier: String,
}

impl TableName {
    /// Parses `ns:table` or `table`, checking both parts.
    pub fn parse(text: &str) -> Result<Self> {
        let (namespace, qualifier) = match text.split_once(':') {
            Some((ns, q)) => (ns, q),
            None => (DEFAULT_NAMESPACE, text),
        };
        Self::new(namespace, qualifier)
    }

    pub fn new(namespace: &str, qualifier: &str) -> Result<Self> {
        validate_namespace(namespace)?;
        validate_qualifier(qualifier)?;
        Ok(Self {
            namespace: namespace.to_string(),
            qualifier: qualifier.to_string(),
        })
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    pub fn qualifier(&self) -> &str {
        &self.qualifier
    }

    pub fn is_system(&self) -> bool {
        self.namespace == SYSTEM_NAMESPACE
    }
}

/// Prints as HBase does: `t` in the default namespace, `ns:t` elsewhere.
impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == DEFAULT_NAMESPACE {
            f.write_str(&self.qualifier)
        } else {
            write!(f, "{}:{}", self.namespace, self.qualifier)
        }
    }
}

/// Namespaces: `[a-zA-Z_0-9]+`.
pub fn validate_namespace(namespace: &str) -> Result<()> {
    if namespace.is_empty() {
        return Err(invalid("Namespace name must not be empty"));
    }
    if let Some(c) = namespace
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(invalid(format!(
            "Illegal character <{c}> in namespace name '{namespace}': only [a-zA-Z_0-9] allowed"
        )));
    }
    Ok(())
}

/// Table qualifiers: `[a-zA-Z_0-9-.]+`, not starting with `.` or `-`.
pub fn validate_qualifier(qualifier: &str) -> Result<()> {
    if qualifier.is_empty() {
        return Err(invalid("Table qualifier must not be empty"));
    }
    if qualifier.starts_with('.') || qualifier.starts_with('-') {
        return Err(invalid(format!(
            "Illegal first character in table name '{qualifier}': names cannot start with '.' or '-'"
        )));
    }
    if let Some(c) = qualifier
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(invalid(format!(
            "Illegal character <{c}> in table name '{qualifier}': only [a-zA-Z_0-9-.] allowed"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_names_come_out_of_region_names() {
        assert_eq!(
            encoded_region_name("t1,,1700000000000.0123abcd."),
            "0123abcd"
        );
        assert_eq!(encoded_region_name("ns:t,a.b,17.ff00."), "ff00");
        assert_eq!(encoded_region_name("ff00"), "ff00");
    }

    #[test]
    fn parses_and_prints() {
        let t = TableName::parse("access-logs").expect("valid");
        assert_eq!(t.namespace(), "default");
        assert_eq!(t.to_string(), "access-logs");
        let m = TableName::parse("hbase:meta").expect("valid");
        assert!(m.is_system());
        assert_eq!(m.to_string(), "hbase:meta");
    }

    #[test]
    fn rejects_bad_names() {
        for bad in ["", ".t", "-t", "a b", "ns-x:t", ":t", "t:"] {
            assert!(TableName::parse(bad).is_err(), "{bad:?}");
        }
    }
}
