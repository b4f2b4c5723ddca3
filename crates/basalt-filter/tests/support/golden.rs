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

use super::scan::ScanSettings;
use basalt_filter::{decode, encode, parse_extended, to_extended_language, to_language};
use basalt_types::{Cell, FilterSpec};
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
    pub settings: ScanSettings,
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
        escape(c.row()),
        escape(c.family()),
        escape(c.qualifier()),
        c.timestamp()
    );
    if !c.value().is_empty() {
        s.push(' ');
        s.push_str(&escape(c.value()));
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
                settings: ScanSettings::default(),
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

/// Carries out one scan: the table's cells, the case's filter (already parsed) and the scan
/// settings in; the cells the client receives (or an error's text) out. The reference loop
/// in `support::scan` is one executor; a real region scanner can be another.
pub type Executor<'a> =
    dyn Fn(&[Cell], Option<&FilterSpec>, &ScanSettings) -> Result<Vec<Cell>, String> + 'a;

/// Parses the case's filter (checking the printer and wire round trips on the way) and
/// runs it through `exec`.
pub fn run_case(case: &Case, exec: &Executor<'_>) -> Result<Vec<Cell>, String> {
    let Some(text) = &case.filter else {
        return exec(&case.table, None, &case.settings);
    };
    let spec = if case.extended {
        parse_extended(text)
    } else {
        basalt_filter::parse(text)
    }
    .map_err(|e| e.to_string())?;
    let printed = if case.extended {
        to_extended_language(&spec)
    } else {
        to_language(&spec)
    };
    let printed = printed.ok_or("the filter cannot be printed back")?;
    let reparsed = if case.extended {
        parse_extended(&printed)
    } else {
        basalt_filter::parse(&printed)
    };
    assert_eq!(reparsed, Ok(spec.clone()), "{}: {printed}", case.name);
    assert_eq!(decode(&encode(&spec)), Ok(spec.clone()), "{}", case.name);
    exec(&case.table, Some(&spec), &case.settings)
}

/// Runs every case of the golden file at `path` through `exec` and panics listing the
/// cases whose result differs. With `BLESS` set in the environment it rewrites the file's
/// expectations instead (review the diff: a blessed file is only as good as that review).
pub fn check_file(path: &str, exec: &Executor<'_>) {
    let text = std::fs::read_to_string(path).expect("golden file is readable");
    let cases = parse(&text).expect("golden file parses");
    if std::env::var_os("BLESS").is_some() {
        bless(path, &text, &cases, exec);
        return;
    }
    let mut failures = Vec::new();
    for case in &cases {
        let got = run_case(case, exec);
        let ok = match (&case.expect, &got) {
            (Expect::Cells(want), Ok(cells)) => want == cells,
            (Expect::Error(want), Err(e)) => want == e,
            _ => false,
        };
        if !ok {
            let shown = match &got {
                Ok(cells) => cells
                    .iter()
                    .map(format_cell)
                    .collect::<Vec<_>>()
                    .join("\n  "),
                Err(e) => format!("error {e}"),
            };
            failures.push(format!(
                "case {} (line {}): got\n  {shown}",
                case.name, case.line
            ));
        }
    }
    assert!(cases.len() >= 80, "only {} golden cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn bless(path: &str, text: &str, cases: &[Case], exec: &Executor<'_>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut cases = cases.iter();
    while i < lines.len() {
        let line = lines[i];
        out.push(line.to_owned());
        i += 1;
        if !line.trim_start().starts_with("case ") {
            continue;
        }
        let case = cases.next().expect("as many cases as 'case' lines");
        while i < lines.len() && lines[i].trim() != "end" {
            let l = lines[i].trim();
            if l == "expect" || l.starts_with("error ") {
                while i < lines.len() && lines[i].trim() != "end" {
                    i += 1;
                }
                break;
            }
            out.push(lines[i].to_owned());
            i += 1;
        }
        match run_case(case, exec) {
            Ok(cells) => {
                out.push("expect".to_owned());
                out.extend(cells.iter().map(format_cell));
            }
            Err(e) => out.push(format!("error {e}")),
        }
        out.push("end".to_owned());
        i += 1;
    }
    std::fs::write(path, out.join("\n") + "\n").expect("golden file is writable");
}
