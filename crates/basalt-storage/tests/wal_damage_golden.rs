//! Golden cases for which regions need damaged log bytes: every `*.txt` under
//! `tests/golden/wal_damage/` (the format is at the top of `cases.txt`). The rule is a
//! pure function of the readable edits around the damage and each region's flushed id.

use basalt_storage::wal::damage::{attach_evidence, judge, needed_by_any};
use basalt_storage::wal::{DamagedSegment, DamagedSpan, Verdict};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The damaged segments a `log:` line describes.
fn parse_log(line: &str) -> Vec<Option<DamagedSegment>> {
    let mut segments: Vec<(HashMap<String, u64>, Vec<DamagedSpan>)> = vec![Default::default()];
    let mut edits: Vec<(String, u64)> = Vec::new();
    let mut at = Vec::new();
    for token in line.split_whitespace() {
        let (regions, spans) = segments.last_mut().expect("one segment at least");
        match token {
            "|" => segments.push(Default::default()),
            "X" => {
                at.push(edits.len());
                spans.push(DamagedSpan {
                    offset: 0,
                    len: 1,
                    reason: "golden".into(),
                    hint: None,
                    single_record: false,
                    owner: None,
                    last_before: Default::default(),
                    first_after: Default::default(),
                });
            }
            edit => {
                let split = edit
                    .find(|c: char| c.is_ascii_digit())
                    .expect("region then id");
                let (region, seq) = edit.split_at(split);
                let seq: u64 = seq.parse().expect("a sequence id");
                let max = regions.entry(region.to_string()).or_insert(seq);
                *max = (*max).max(seq);
                edits.push((region.to_string(), seq));
            }
        }
    }
    let edits: Vec<(&str, u64)> = edits.iter().map(|(r, s)| (r.as_str(), *s)).collect();
    let mut spans: Vec<&mut DamagedSpan> = segments
        .iter_mut()
        .flat_map(|(_, spans)| spans.iter_mut())
        .collect();
    attach_evidence(&mut spans, &at, &edits);
    segments
        .into_iter()
        .enumerate()
        .map(|(i, (regions, spans))| {
            (!spans.is_empty()).then(|| DamagedSegment {
                id: i as u64 + 1,
                file: PathBuf::from("golden"),
                regions,
                spans,
                set_aside: None,
            })
        })
        .collect()
}

fn show(verdict: Verdict) -> String {
    let seq = |s: Option<u64>| s.map_or("none".to_string(), |s| s.to_string());
    match verdict {
        Verdict::AnotherRegionsRecord => "clear: another region's record".to_string(),
        Verdict::Clear { flushed_edit_after } => format!("clear by {flushed_edit_after}"),
        Verdict::Needed {
            flushed_seq,
            last_before,
            first_after,
        } => format!(
            "needed above {flushed_seq}, last before {}, first after {}",
            seq(last_before),
            seq(first_after)
        ),
    }
}

fn region_at(word: &str) -> (String, u64) {
    let (region, flushed) = word.split_once('@').expect("REGION@FLUSHED");
    (region.to_string(), flushed.parse().expect("a flushed id"))
}

fn run(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("readable");
    let mut failures = Vec::new();
    let (mut case, mut log) = (String::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        let at = format!("{}:{}", path.display(), n + 1);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(title) = line.strip_prefix("case:") {
            case = title.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("log:") {
            log = parse_log(rest);
        } else if let Some(rest) = line.strip_prefix("span ") {
            let (index, rest) = rest.split_once(':').expect("span N: ...");
            let (who, expected) = rest.split_once("->").expect("... -> VERDICT");
            let index: usize = index.trim().parse().expect("a span number");
            let span = log
                .iter()
                .flatten()
                .flat_map(|d| d.spans.iter())
                .nth(index - 1)
                .expect("the span exists");
            let (region, flushed) = region_at(who.trim());
            let got = show(judge(span, &region, flushed));
            if got != expected.trim() {
                failures.push(format!("{at} ({case}): {line}\n  got: {got}"));
            }
        } else if let Some(rest) = line.strip_prefix("segment ") {
            let (index, rest) = rest.split_once(':').expect("segment N: ...");
            let (who, expected) = rest.split_once("->").expect("... -> needed");
            let index: usize = index.trim().parse().expect("a segment number");
            let segment = log[index - 1].as_ref().expect("a damaged segment");
            let regions: Vec<(String, u64)> = who.split_whitespace().map(region_at).collect();
            let got = match needed_by_any(segment, &regions) {
                true => "needed",
                false => "not needed",
            };
            if got != expected.trim() {
                failures.push(format!("{at} ({case}): {line}\n  got: {got}"));
            }
        } else {
            failures.push(format!("{at}: cannot read `{line}`"));
        }
    }
    failures
}

#[test]
fn wal_damage_golden_cases_hold() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/wal_damage");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let failures: Vec<String> = files.iter().flat_map(|f| run(f)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
