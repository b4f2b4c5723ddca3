//! Golden tests for the query matcher: every `*.txt` under `tests/golden/matcher/`.
//!
//! The format is described at the top of `tests/golden/matcher/cases.txt`. Each case
//! names a family, a clock and input cells in cell order, then runs readers and rewrites
//! over them; flush/minor/major runs replace the cells with their output, scans only read.

use basalt_filter::{Filter, ReturnCode};
use basalt_storage::scanner::matcher::{
    trace, CompactionKind, CompactionMatcher, CompactionOptions, MatchCode, QueryMatcher,
    UserMatcher, UserScanOptions,
};
use basalt_types::{Cell, CellType, FamilyDescriptor, KeepDeletedCells, TimeRange};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::path::Path;

type Result<T> = std::result::Result<T, String>;

/// A filter answering by the cell's value (`Include` for values it does not name); its
/// hint jumps past the cell's column.
#[derive(Debug)]
struct ValueFilter(BTreeMap<Bytes, ReturnCode>);

impl Filter for ValueFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        self.0
            .get(cell.value())
            .copied()
            .unwrap_or(ReturnCode::Include)
    }
    fn next_cell_hint(&self, current: &Cell) -> Option<Cell> {
        Some(Cell::last_on_column(
            current.row_bytes(),
            current.family_bytes(),
            current.qualifier_bytes(),
        ))
    }
}

fn return_code(name: &str) -> Result<ReturnCode> {
    Ok(match name {
        "Include" => ReturnCode::Include,
        "IncludeAndNextCol" => ReturnCode::IncludeAndNextCol,
        "IncludeAndSeekNextRow" => ReturnCode::IncludeAndSeekNextRow,
        "Skip" => ReturnCode::Skip,
        "NextCol" => ReturnCode::NextCol,
        "NextRow" => ReturnCode::NextRow,
        "SeekNextUsingHint" => ReturnCode::SeekNextUsingHint,
        other => return Err(format!("unknown filter return code {other}")),
    })
}

const FAMILY: &str = "cf";

fn parse_cell(line: &str) -> Result<Cell> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [row, qualifier, ts, kind, extra @ ..] = words.as_slice() else {
        return Err(format!("cell needs `row qualifier ts Type`: {line}"));
    };
    let qualifier = if *qualifier == "\"\"" { "" } else { qualifier };
    let ts: i64 = ts.parse().map_err(|e| format!("timestamp {ts}: {e}"))?;
    let kind = [
        CellType::Put,
        CellType::Delete,
        CellType::DeleteFamilyVersion,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
    ]
    .into_iter()
    .find(|t| t.name() == *kind)
    .ok_or_else(|| format!("unknown cell type {kind}"))?;
    let mut cell = Cell::marker(row, FAMILY, qualifier, ts, kind);
    for word in extra {
        let (key, value) = word.split_once('=').ok_or(format!("bad word {word}"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{word}: {e}"));
        match key {
            "seq" => cell.set_seq_id(number()?),
            "ttl" => cell.set_ttl_ms(Some(number()?)),
            "value" => cell.set_value(value),
            _ => return Err(format!("unknown cell attribute {word}")),
        }
    }
    Ok(cell)
}

fn render(cell: &Cell) -> String {
    let q = String::from_utf8_lossy(cell.qualifier());
    let q = if q.is_empty() { "\"\"".into() } else { q };
    let mut s = format!(
        "{} {} {} {}",
        String::from_utf8_lossy(cell.row()),
        q,
        cell.timestamp(),
        cell.cell_type().name()
    );
    if cell.seq_id() != 0 {
        s.push_str(&format!(" seq={}", cell.seq_id()));
    }
    if let Some(ttl) = cell.ttl_ms() {
        s.push_str(&format!(" ttl={ttl}"));
    }
    if !cell.value().is_empty() {
        s.push_str(&format!(" value={}", String::from_utf8_lossy(cell.value())));
    }
    s
}

fn parse_family(words: &[&str]) -> Result<FamilyDescriptor> {
    let mut family = FamilyDescriptor::new(FAMILY).map_err(|e| e.to_string())?;
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or(format!("bad family word {word}"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{word}: {e}"));
        match key {
            "versions" => family.max_versions = number()? as u32,
            "min_versions" => family.min_versions = number()? as u32,
            "ttl_secs" if value == "FOREVER" => {}
            "ttl_secs" => family.ttl_secs = number()?,
            "new_version_behavior" => {
                family.new_version_behavior = value.parse().map_err(|e| format!("{word}: {e}"))?
            }
            "keep_deleted" => {
                family.keep_deleted_cells =
                    KeepDeletedCells::parse(value).map_err(|e| e.to_string())?
            }
            _ => return Err(format!("unknown family option {word}")),
        }
    }
    family.validate().map_err(|e| e.to_string())?;
    Ok(family)
}

/// One run: the matcher and the filter, built from the `run` line.
fn build_run(
    words: &[&str],
    family: &FamilyDescriptor,
    now_ms: i64,
    input: &[Cell],
) -> Result<(Box<dyn QueryMatcher>, Option<ValueFilter>)> {
    let (kind, options) = words.split_first().ok_or("empty run line")?;
    let kind = match *kind {
        "scan" => None,
        "flush" => Some(CompactionKind::Flush),
        "minor" => Some(CompactionKind::Minor),
        "major" => Some(CompactionKind::Major),
        other => return Err(format!("unknown run kind {other}")),
    };
    if let Some(kind) = kind {
        let mut o = CompactionOptions::new(kind, now_ms);
        o.earliest_put_ts = input
            .iter()
            .filter(|c| c.cell_type() == CellType::Put)
            .map(|c| c.timestamp())
            .min()
            .unwrap_or(i64::MAX);
        for word in options {
            let (key, value) = word.split_once('=').ok_or(format!("bad word {word}"))?;
            let number = value.parse::<i64>().map_err(|e| format!("{word}: {e}"))?;
            match key {
                "earliest_put_ts" => o.earliest_put_ts = number,
                "purge_delay" => o.purge_deletes_delay_ms = number as u64,
                _ => return Err(format!("unknown compaction option {word}")),
            }
        }
        return Ok((Box::new(CompactionMatcher::new(family, o)), None));
    }
    let mut o = UserScanOptions {
        max_versions: 1,
        time_range: TimeRange::ALL,
        columns: None,
        raw: false,
        has_filter: false,
        now_ms,
    };
    let mut filter = None;
    for word in options {
        if *word == "raw" {
            o.raw = true;
            continue;
        }
        let (key, value) = word.split_once('=').ok_or(format!("bad word {word}"))?;
        match key {
            "versions" => o.max_versions = value.parse().map_err(|e| format!("{word}: {e}"))?,
            "range" => {
                let (min, max) = value.split_once("..").ok_or(format!("bad range {word}"))?;
                let min = min.parse().map_err(|e| format!("{word}: {e}"))?;
                let max = max.parse().map_err(|e| format!("{word}: {e}"))?;
                o.time_range = TimeRange::new(min, max).map_err(|e| e.to_string())?;
            }
            "columns" => {
                o.columns = Some(
                    value
                        .split(',')
                        .map(|q| Bytes::from(q.to_string()))
                        .collect(),
                )
            }
            "filter" => {
                let mut answers = BTreeMap::new();
                for pair in value.split(',') {
                    let (v, code) = pair.split_once(':').ok_or(format!("bad filter {pair}"))?;
                    answers.insert(Bytes::from(v.to_string()), return_code(code)?);
                }
                filter = Some(ValueFilter(answers));
                o.has_filter = true;
            }
            _ => return Err(format!("unknown scan option {word}")),
        }
    }
    Ok((Box::new(UserMatcher::new(family, o)), filter))
}

#[derive(Default)]
struct Case {
    name: String,
    line: usize,
    family: Vec<String>,
    now_ms: i64,
    cells: Vec<Cell>,
    runs: Vec<Run>,
}

struct Run {
    line: usize,
    words: Vec<String>,
    codes: Option<Vec<String>>,
    expect: Vec<String>,
}

/// Parses the file into cases.
fn parse(text: &str) -> Result<Vec<Case>> {
    let mut cases: Vec<Case> = Vec::new();
    // Which block indented cell lines belong to: input cells or a run's expectation.
    let mut in_expect = false;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.split(" #").next().unwrap_or("").trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let at = |e: String| format!("line {line_no}: {e}");
        if raw.starts_with(' ') {
            let case = cases.last_mut().ok_or(at("cell outside a case".into()))?;
            let cell = parse_cell(line.trim()).map_err(at)?;
            match (in_expect, case.runs.last_mut()) {
                (true, Some(run)) => run.expect.push(render(&cell)),
                _ => case.cells.push(cell),
            }
            continue;
        }
        let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
        let words: Vec<String> = rest.split_whitespace().map(String::from).collect();
        match head {
            "case" => {
                in_expect = false;
                cases.push(Case {
                    name: rest.trim().to_string(),
                    line: line_no,
                    ..Case::default()
                });
                continue;
            }
            _ if cases.is_empty() => return Err(at(format!("`{head}` before any case"))),
            _ => {}
        }
        let case = cases.last_mut().ok_or(at("no case".into()))?;
        match head {
            "family" => case.family = words,
            "now" => case.now_ms = rest.trim().parse().map_err(|e| at(format!("{e}")))?,
            "cells" => in_expect = false,
            "run" => {
                in_expect = false;
                case.runs.push(Run {
                    line: line_no,
                    words,
                    codes: None,
                    expect: Vec::new(),
                });
            }
            "codes" => {
                let run = case.runs.last_mut().ok_or(at("codes before run".into()))?;
                run.codes = Some(words);
            }
            "expect" => {
                case.runs.last_mut().ok_or(at("expect before run".into()))?;
                in_expect = words.first().map(String::as_str) != Some("none");
            }
            other => return Err(at(format!("unknown directive {other}"))),
        }
    }
    Ok(cases)
}

fn check_case(case: &Case) -> Result<()> {
    let family_words: Vec<&str> = case.family.iter().map(String::as_str).collect();
    let family = parse_family(&family_words)?;
    for pair in case.cells.windows(2) {
        if !pair[0].cmp_key(&pair[1]).is_lt() {
            return Err(format!(
                "input not in cell order: `{}` then `{}`",
                render(&pair[0]),
                render(&pair[1])
            ));
        }
    }
    let mut cells = case.cells.clone();
    for run in &case.runs {
        let words: Vec<&str> = run.words.iter().map(String::as_str).collect();
        let (mut matcher, mut filter) = build_run(&words, &family, case.now_ms, &cells)?;
        let filter_ref = filter.as_mut().map(|f| f as &mut dyn Filter);
        let steps = trace(matcher.as_mut(), &cells, filter_ref);
        let mut codes = vec!["-".to_string(); cells.len()];
        for (i, code) in &steps {
            codes[*i] = code.name().to_string();
        }
        let out: Vec<Cell> = steps
            .iter()
            .filter(|(_, code)| code.includes())
            .map(|(i, _)| cells[*i].clone())
            .collect();
        let rendered: Vec<String> = out.iter().map(render).collect();
        let context =
            |what: &str| format!("run at line {} ({}): {what}", run.line, words.join(" "));
        if let Some(expected) = &run.codes {
            for code in expected {
                if code != "-" && MatchCode::parse(code).is_none() {
                    return Err(context(&format!("unknown match code {code}")));
                }
            }
            if *expected != codes {
                return Err(context(&format!(
                    "codes differ\n  expected: {}\n  actual:   {}",
                    expected.join(" "),
                    codes.join(" ")
                )));
            }
        }
        if rendered != run.expect {
            return Err(context(&format!(
                "cells differ\n  expected:\n    {}\n  actual:\n    {}",
                run.expect.join("\n    "),
                rendered.join("\n    ")
            )));
        }
        if words.first() != Some(&"scan") {
            cells = out;
        }
    }
    Ok(())
}

#[test]
fn matcher_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/matcher");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no golden files in {}", dir.display());
    let mut failures = Vec::new();
    let mut count = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable golden file");
        let cases = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in &cases {
            count += 1;
            if case.runs.is_empty() {
                failures.push(format!("{} (line {}): no runs", case.name, case.line));
            } else if let Err(e) = check_case(case) {
                failures.push(format!("{} (line {}): {e}", case.name, case.line));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} golden cases failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!("{count} golden matcher cases passed");
}

/// The runner itself must notice wrong expectations, or every golden case is vacuous.
#[test]
fn matcher_golden_runner_reports_mismatches() {
    let wrong_cells = "case c\nfamily versions=1\ncells\n  r1 a 2 Put\n  r1 a 1 Put\n\
                       run scan\nexpect\n  r1 a 1 Put\n";
    let wrong_codes =
        "case c\nfamily\ncells\n  r1 a 2 Put\nrun scan\ncodes Skip\nexpect\n  r1 a 2 Put\n";
    let unsorted = "case c\nfamily\ncells\n  r1 a 1 Put\n  r1 a 2 Put\nrun scan\nexpect none\n";
    for (text, needle) in [
        (wrong_cells, "cells differ"),
        (wrong_codes, "codes differ"),
        (unsorted, "not in cell order"),
    ] {
        let cases = parse(text).expect("parses");
        let err = check_case(&cases[0]).expect_err("must fail");
        assert!(err.contains(needle), "{err}");
    }
    assert!(
        parse("run scan\n").is_err(),
        "a run outside a case is refused"
    );
}
