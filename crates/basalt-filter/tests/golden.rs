//! The filter golden file (`tests/golden/filters.txt`): every case is parsed, built and run
//! through the reference scan loop; every case's filter also round-trips through the
//! printer and the wire form.

mod support;

use basalt_filter::{
    build, decode, encode, parse, parse_extended, to_extended_language, to_language,
};
use support::golden::{self, format_cell, Expect};
use support::scan;

fn run_case(case: &golden::Case) -> Result<Vec<basalt_types::Cell>, String> {
    let Some(text) = &case.filter else {
        return Ok(scan::run(&case.table, None, &case.settings));
    };
    let spec = if case.extended {
        parse_extended(text)
    } else {
        parse(text)
    }
    .map_err(|e| e.to_string())?;
    // Round trips, checked on every case for free.
    if case.extended {
        let printed = to_extended_language(&spec).ok_or("extended dialect cannot print it")?;
        assert_eq!(
            parse_extended(&printed),
            Ok(spec.clone()),
            "{}: {printed}",
            case.name
        );
    } else {
        let printed = to_language(&spec).ok_or("the language cannot print it")?;
        assert_eq!(
            parse(&printed),
            Ok(spec.clone()),
            "{}: {printed}",
            case.name
        );
    }
    assert_eq!(decode(&encode(&spec)), Ok(spec.clone()), "{}", case.name);
    let filter = build(&spec).map_err(|e| e.to_string())?;
    Ok(scan::run(&case.table, Some(filter), &case.settings))
}

#[test]
fn golden_filters() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/filters.txt");
    let text = std::fs::read_to_string(path).expect("golden file is readable");
    let cases = golden::parse(&text).expect("golden file parses");
    if std::env::var_os("BLESS").is_some() {
        bless(path, &text, &cases);
        return;
    }
    let mut failures = Vec::new();
    for case in &cases {
        let got = run_case(case);
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

/// `BLESS=1 cargo test --test golden`: rewrites every case's expectation with what the
/// scan produced. Review the diff: a blessed golden file is only as good as that review.
fn bless(path: &str, text: &str, cases: &[golden::Case]) {
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
        match run_case(case) {
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
