//! Values of the shell's Ruby subset and how IRB echoes them (`=> ...`).

/// A parsed argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A quoted string, as bytes (double quotes may hold any byte).
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
    /// An upper-case constant (`VERSIONS`): the shell defines these as their own names.
    Const(String),
    /// A lower-case bare word: a variable (or an undefined name).
    Ident(String),
    Array(Vec<Value>),
    /// Key/value pairs in input order.
    Hash(Vec<(Value, Value)>),
    /// A table reference (`t = get_table 't'`).
    Table(String),
    /// A Ruby symbol (`:name`); commands read it as its name.
    Symbol(String),
    /// An integer or string range (`1..10`, `'a'...'e'`).
    Range {
        from: Box<Value>,
        to: Box<Value>,
        exclusive: bool,
    },
    /// A Java package, class, filter, comparator or enum constant ([`crate::ruby::java`]).
    Java(crate::ruby::java::JavaObject),
}

impl Value {
    /// The text a string or constant stands for.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Str(b) => Some(String::from_utf8_lossy(b).into_owned()),
            Value::Const(c) => Some(c.clone()),
            Value::Table(t) => Some(t.clone()),
            Value::Symbol(s) => Some(s.clone()),
            Value::Java(j) => j.filter_text(),
            _ => None,
        }
    }

    /// Ruby's `inspect`, which IRB prints after `=> `.
    pub fn inspect(&self) -> String {
        match self {
            Value::Str(b) => inspect_str(b),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => {
                if f.fract() == 0.0 && f.is_finite() {
                    format!("{f:.1}")
                } else {
                    f.to_string()
                }
            }
            Value::Bool(b) => b.to_string(),
            Value::Nil => "nil".to_string(),
            Value::Const(c) => inspect_str(c.as_bytes()),
            Value::Ident(i) => i.clone(),
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().map(Value::inspect).collect();
                format!("[{}]", parts.join(", "))
            }
            Value::Hash(pairs) => {
                let parts: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{}=>{}", k.inspect(), v.inspect()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Value::Table(t) => format!("Hbase::Table - {t}"),
            Value::Symbol(s) => format!(":{s}"),
            Value::Range {
                from,
                to,
                exclusive,
            } => format!(
                "{}{}{}",
                from.inspect(),
                if *exclusive { "..." } else { ".." },
                to.inspect()
            ),
            Value::Java(j) => j.inspect(),
        }
    }
}

/// A Ruby string literal as `inspect` prints it.
pub fn inspect_str(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'\x1b' => out.push_str("\\e"),
            b'#' => out.push('#'),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02X}")),
        }
    }
    out.push('"');
    out
}
