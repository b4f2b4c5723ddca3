//! Golden cases for the assignment planner: every `*.txt` under `tests/golden/planner/` is
//! one case, a cluster view and a question above an `expect:` line, the decisions and the
//! cluster they leave below it.
//!
//! ```text
//! # comments explain the case
//! server NAME [draining] [requests=N]     a live region server
//! region TABLE ENCODED SERVER [requests=N] a region on SERVER (`-`: on none; a name not
//!                                          listed as a server: a dead one); ENCODED may be
//!                                          a range `t01..t12`, one region each
//! run assign | run drain NAME | run balance [slop=F] [max_move_fraction=F]
//! expect:
//! assign ENCODED -> SERVER | move ENCODED: FROM -> TO | (none)
//! after:
//! SERVER: regions N (TABLE N, ...), load N[, draining]
//!                                          (load: the server's requests, or its
//!                                          regions' sum when larger, as the planner
//!                                          counts it)
//! on no live server: ENCODED ...
//! ```
//!
//! `BLESS=1 cargo test -p basalt-master --test planner_golden` rewrites everything below
//! `expect:` from what the planner now decides (then review the diff).

use basalt_master::planner::{
    assign, balance, drain, BalanceConfig, ClusterView, Decision, RegionView, ServerView,
};
use std::collections::BTreeMap;
use std::path::Path;

/// The words `key=value` among `words`, as a map.
fn options<'a>(words: &[&'a str]) -> BTreeMap<&'a str, &'a str> {
    words.iter().filter_map(|w| w.split_once('=')).collect()
}

fn number<T: std::str::FromStr>(options: &BTreeMap<&str, &str>, key: &str, or: T) -> T {
    options.get(key).map_or(or, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{key}={v} is not a number"))
    })
}

/// `t01..t12` as `t01`, `t02`, ... `t12`; any other word as itself.
fn expand(encoded: &str) -> Vec<String> {
    let Some((first, last)) = encoded.split_once("..") else {
        return vec![encoded.to_string()];
    };
    let digits = first.chars().rev().take_while(char::is_ascii_digit).count();
    let (prefix, from) = first.split_at(first.len() - digits);
    let to = &last[prefix.len()..];
    let (from, to): (usize, usize) = (
        from.parse().expect("range start"),
        to.parse().expect("range end"),
    );
    (from..=to)
        .map(|n| format!("{prefix}{n:0digits$}"))
        .collect()
}

/// The view and the question a case's input describes.
fn parse(input: &str) -> (ClusterView, Vec<String>) {
    let mut view = ClusterView::default();
    let mut run = Vec::new();
    for line in input.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let opts = options(&words);
        match words[0] {
            "server" => view.servers.push(ServerView {
                name: words[1].to_string(),
                accepting: !words.contains(&"draining"),
                requests: number(&opts, "requests", 0),
            }),
            "region" => {
                for encoded in expand(words[2]) {
                    view.regions.push(RegionView {
                        encoded,
                        table: words[1].to_string(),
                        server: (words[3] != "-").then(|| words[3].to_string()),
                        requests: number(&opts, "requests", 0),
                    });
                }
            }
            "run" => run = words[1..].iter().map(|w| w.to_string()).collect(),
            _ => panic!("cannot read `{line}`"),
        }
    }
    (view, run)
}

fn decide(view: &ClusterView, run: &[String]) -> Vec<Decision> {
    let words: Vec<&str> = run.iter().map(String::as_str).collect();
    match words.first().copied() {
        Some("assign") => assign(view),
        Some("drain") => drain(view, words[1]),
        Some("balance") => {
            let opts = options(&words);
            let default = BalanceConfig::default();
            let config = BalanceConfig {
                slop: number(&opts, "slop", default.slop),
                max_move_fraction: number(&opts, "max_move_fraction", default.max_move_fraction),
            };
            balance(view, &config)
        }
        other => panic!("unknown run {other:?}"),
    }
}

/// The decisions, then each server's regions per table and requests once they are applied.
fn render(view: &ClusterView, decisions: &[Decision]) -> String {
    let mut out = String::from("expect:\n");
    for decision in decisions {
        out.push_str(&format!("{decision}\n"));
    }
    if decisions.is_empty() {
        out.push_str("(none)\n");
    }
    out.push_str("after:\n");
    let mut after = view.clone();
    after.apply(decisions);
    for server in &after.servers {
        let mut tables: BTreeMap<&str, usize> = BTreeMap::new();
        let mut regions_load = 0;
        for region in after
            .regions
            .iter()
            .filter(|r| r.server.as_ref() == Some(&server.name))
        {
            *tables.entry(&region.table).or_default() += 1;
            regions_load += region.requests;
        }
        let count: usize = tables.values().sum();
        let tables: Vec<String> = tables.iter().map(|(t, n)| format!("{t} {n}")).collect();
        let draining = if server.accepting { "" } else { ", draining" };
        out.push_str(&format!(
            "{}: regions {count} ({}), load {}{draining}\n",
            server.name,
            tables.join(", "),
            server.requests.max(regions_load)
        ));
    }
    let unplaced: Vec<&str> = after
        .regions
        .iter()
        .filter(|r| {
            r.server
                .as_deref()
                .is_none_or(|s| after.server(s).is_none())
        })
        .map(|r| r.encoded.as_str())
        .collect();
    if !unplaced.is_empty() {
        out.push_str(&format!("on no live server: {}\n", unplaced.join(" ")));
    }
    out
}

/// A failure message for `path`, or `None` when the case holds (or was re-blessed).
fn check(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).expect("readable golden file");
    let (input, expected) = match text.find("\nexpect:\n") {
        Some(at) => (&text[..=at], &text[at + 1..]),
        None => (text.as_str(), ""),
    };
    let (view, run) = parse(input);
    let actual = render(&view, &decide(&view, &run));
    if actual == expected {
        return None;
    }
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(path, format!("{input}{actual}")).expect("writable golden file");
        return None;
    }
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    let diff: Vec<String> = (0..expected_lines.len().max(actual_lines.len()))
        .filter_map(|i| {
            let (e, a) = (expected_lines.get(i), actual_lines.get(i));
            (e != a).then(|| {
                let show =
                    |l: Option<&&str>| l.map_or("(no line)".to_string(), |l| format!("{l:?}"));
                format!(
                    "  line {}:\n    expected: {}\n    actual:   {}",
                    i + 1,
                    show(e),
                    show(a)
                )
            })
        })
        .take(8)
        .collect();
    Some(format!(
        "{}: the planner decides otherwise (BLESS=1 rewrites, then review)\n{}\n--- actual ---\n{actual}",
        path.display(),
        diff.join("\n")
    ))
}

#[test]
fn planner_golden_cases_hold() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/planner");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "the golden cases are there");
    let failures: Vec<String> = paths.iter().filter_map(|p| check(p)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
