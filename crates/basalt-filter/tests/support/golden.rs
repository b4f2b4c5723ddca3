//! The golden-file format for filter scans.
//!
//! ```text
//! # a comment
//! table people                      -- a named table, reusable by later cases
//! r1 cf:a 5 alice                   -- row family:qualifier timestamp [value]
//! r1 cf:b 5                         -- no value: empty
//! end
//!
//! case value-less-than              -- a case: a scan of a table through a filter
//! table people
//! filter ValueFilter(<, 'binary:b') -- HBase's filter language (`filter+` = extended dialect)
//! start r1                          -- optional: start row (inclusive), stop row (exclusive),
//! stop r9                           --   reversed, versions N (default 1)
//! reversed
//! expect                            -- the cells the client receives, in order
//! r1 cf:a 5 alice
//! end
//!
//! case bad-paren
//! filter ValueFilter(<, 'binary:b'
//! error expected ',' or ')' at position 32   -- the parse or build error instead
//! end
//! ```
//!
//! Rows, qualifiers and values take `\xNN` escapes (`\x20` for a space).

use basalt_types::Cell;
use bytes::Bytes;
use std::collections::HashMap;
use std::fmt::Write;

/// What a case expects.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Cells(Vec<Cell>),
    Error(String),
}

#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    /// Line of `case` in the file.
    pub line: usize,
    pub table: Vec<Cell>,
    pub filter: Option<String>,
    pub extended: bool,
    pub settings: super::scan::ScanSettings,
    pub expect: Expect,
}

pub fn unescape(token: &str) -> Result<Bytes, String> {
    let b = token.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            let hex = token.get(i + 2..i + 4).ok_or("short \\x escape")?;
            out.push(u8::from_str_radix(hex, 16).map_err(|e| e.to_string())?);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(Bytes::from(out))
}

pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'\\' {
            s.push(char::from(b));
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
    s
}

/// One cell as the golden file writes it.
pub fn format_cell(c: &Cell) -> String {
    let mut s = format!(
        "{} {}:{} {}",
        escape(&c.row),
        escape(&c.family),
        escape(&c.qualifier),
        c.timestamp
    );
    if !c.value.is_empty() {
        s.push(' ');
        s.push_str(&escape(&c.value));
    }
    s
}

fn parse_cell(line: &str) -> Result<Cell, String> {
    let parts: Vec<&str> = line.split_whitespace().collect();
    if !(3..=4).contains(&parts.len()) {
        return Err(format!(
            "expected 'row family:qualifier ts [value]', got {line:?}"
        ));
    }
    let (family, qualifier) = parts[1]
        .split_once(':')
        .ok_or_else(|| format!("expected family:qualifier, got {:?}", parts[1]))?;
    let ts: i64 = parts[2]
        .parse()
        .map_err(|e| format!("timestamp {:?}: {e}", parts[2]))?;
    let value = parts.get(3).map_or(Ok(Bytes::new()), |v| unescape(v))?;
    Ok(Cell::put(
        unescape(parts[0])?,
        unescape(family)?,
        unescape(qualifier)?,
        ts,
        value,
    ))
}

/// Parses a golden file into its cases.
pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut tables: HashMap<String, Vec<Cell>> = HashMap::new();
    let mut cases = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    while let Some((n, line)) = lines.next() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: String| format!("line {n}: {e}");
        if let Some(name) = line.strip_prefix("table ") {
            let mut cells = Vec::new();
            for (m, l) in lines.by_ref() {
                match l {
                    "end" => break,
                    "" => {}
                    l if l.starts_with('#') => {}
                    l => cells.push(parse_cell(l).map_err(|e| format!("line {m}: {e}"))?),
                }
            }
            tables.insert(name.trim().to_owned(), cells);
        } else if let Some(name) = line.strip_prefix("case ") {
            let mut case = Case {
                name: name.trim().to_owned(),
                line: n,
                table: Vec::new(),
                filter: None,
                extended: false,
                settings: super::scan::ScanSettings::default(),
                expect: Expect::Cells(Vec::new()),
            };
            let mut in_expect = false;
            let mut expected = Vec::new();
            for (m, l) in lines.by_ref() {
                let at = |e: String| format!("line {m}: {e}");
                if l == "end" {
                    break;
                }
                if l.is_empty() || l.starts_with('#') {
                    continue;
                }
                if in_expect {
                    expected.push(parse_cell(l).map_err(at)?);
                    continue;
                }
                let (key, rest) = l.split_once(' ').unwrap_or((l, ""));
                match key {
                    "table" => {
                        case.table = tables
                            .get(rest.trim())
                            .cloned()
                            .ok_or_else(|| at(format!("no table {rest:?}")))?;
                    }
                    "filter" => case.filter = Some(rest.to_owned()),
                    "filter+" => {
                        case.filter = Some(rest.to_owned());
                        case.extended = true;
                    }
                    "start" => case.settings.start = unescape(rest.trim()).map_err(at)?,
                    "stop" => case.settings.stop = unescape(rest.trim()).map_err(at)?,
                    "reversed" => case.settings.reversed = true,
                    "versions" => {
                        case.settings.versions = rest
                            .trim()
                            .parse()
                            .map_err(|e| at(format!("versions: {e}")))?;
                    }
                    "error" => case.expect = Expect::Error(rest.to_owned()),
                    "expect" => in_expect = true,
                    other => return Err(at(format!("unknown directive {other:?}"))),
                }
            }
            if in_expect {
                case.expect = Expect::Cells(expected);
            }
            cases.push(case);
        } else {
            return Err(at(format!("expected 'table' or 'case', got {line:?}")));
        }
    }
    Ok(cases)
}
