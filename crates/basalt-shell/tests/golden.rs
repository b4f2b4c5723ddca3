//! Golden transcripts: each `tests/golden/*.txt` is a terminal transcript. Lines after a
//! prompt (`hbase(main):001:0> ` or `hbase:001:0> `) are the input, and so is the line
//! after a `(y/n)?` question; the whole file is the expected output of running that input
//! against a fresh embedded database, with timings pinned to `0.0000` and server-assigned
//! timestamps (13-digit epoch milliseconds, or ISO date-times, that no number of the input
//! gives) shown as `timestamp=<ts>`, region ids as `<id>` and encoded region names as
//! `<encoded>`; a snapshot's creation time, `(2024-10-15 14:13:25 +0000)`, is shown as
//! `(<creation time>)`.
//!
//! An optional first line `#! style=hbase1 width=100 timestamps=epoch n=true` picks the
//! output style (default `hbase2`), the terminal width (default 0: not a terminal), epoch
//! timestamps (default: ISO date-times, as HBase 2.4+ prints them, in UTC so transcripts do
//! not depend on the machine's zone; `hbase1` always prints epoch milliseconds) and
//! `hbase shell -n` (the first error ends the script).
//!
//! The `ruby_runbooks_*` transcripts are scripts from public HBase runbooks, books,
//! documentation and answers, each written anew in the spirit of its source and citing it
//! (URL) in a `# N.` comment line above it.
//!
//! Run with `BLESS=1` to rewrite the files from the actual output (then review the diff).

use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_shell::{FixedClock, Shell, ShellOptions, Style, TimestampFormat};
use std::path::Path;
use std::sync::Arc;

fn options(directive: Option<&str>) -> ShellOptions {
    let mut options = ShellOptions {
        echo: true,
        user: "tester".to_string(),
        clock: Arc::new(FixedClock),
        timestamps: TimestampFormat::Iso,
        ..ShellOptions::default()
    };
    for word in directive.unwrap_or_default().split_whitespace() {
        match word.split_once('=') {
            Some(("style", "hbase1")) => options.style = Style::Hbase1,
            Some(("style", "hbase2")) => options.style = Style::Hbase2,
            Some(("width", w)) => options.width = w.parse().expect("width is a number"),
            Some(("n", "true")) => options.non_interactive = true,
            Some(("timestamps", "iso")) => options.timestamps = TimestampFormat::Iso,
            Some(("timestamps", "epoch")) => options.timestamps = TimestampFormat::Epoch,
            _ => panic!("unknown directive {word}"),
        }
    }
    options
}

/// The input lines of a transcript.
fn input_of(transcript: &str) -> String {
    let prompt = regex::Regex::new(r"^hbase(\(main\))?:\d{3}:\d+[>*] ").expect("valid regex");
    let mut input = String::new();
    let mut answer_next = false;
    for line in transcript.lines() {
        if let Some(m) = prompt.find(line) {
            input.push_str(&line[m.end()..]);
            input.push('\n');
        } else if answer_next {
            input.push_str(line);
            input.push('\n');
        }
        answer_next = line.ends_with("(y/n)?");
    }
    input
}

/// Masks server-assigned timestamps (13-digit ones the input does not mention, ISO ones no
/// number of the input renders to) and region ids and encoded names
/// (`t,start,<id>.<encoded>.`), which come from the clock.
fn mask(output: &str, input: &str) -> String {
    // A snapshot's creation time, as Ruby's Time#to_s prints it in the machine's zone.
    let created =
        regex::Regex::new(r"\(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}\)").expect("valid regex");
    let output = created.replace_all(output, "(<creation time>)");
    let region = regex::Regex::new(r",\d{13}\.[0-9a-f]{32}\.").expect("valid regex");
    let output = region.replace_all(&output, ",<id>.<encoded>.");
    let encoded = regex::Regex::new(r"ENCODED => [0-9a-f]{32}").expect("valid regex");
    let output = encoded.replace_all(&output, "ENCODED => <encoded>");
    let ts = regex::Regex::new(r"timestamp=(1\d{12})\b").expect("valid regex");
    let output = ts.replace_all(&output, |c: &regex::Captures| {
        if input.contains(&c[1]) {
            c[0].to_string()
        } else {
            "timestamp=<ts>".to_string()
        }
    });
    let numbers = regex::Regex::new(r"-?\d+").expect("valid regex");
    let given: std::collections::HashSet<String> = numbers
        .find_iter(input)
        .filter_map(|m| m.as_str().parse::<i64>().ok())
        .map(basalt_shell::format::iso_utc)
        .collect();
    let iso = regex::Regex::new(r"timestamp=(\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{3})?)?)")
        .expect("valid regex");
    iso.replace_all(&output, |c: &regex::Captures| {
        if given.contains(&c[1]) {
            c[0].to_string()
        } else {
            "timestamp=<ts>".to_string()
        }
    })
    .into_owned()
}

fn run_golden(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).expect("readable golden file");
    let (directive, transcript) = match text.strip_prefix("#!") {
        Some(rest) => {
            let (first, body) = rest.split_once('\n').unwrap_or((rest, ""));
            (Some(first.to_string()), body.to_string())
        }
        None => (None, text.clone()),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("database opens");
    let conn = Arc::new(EmbeddedConnection::new(db.clone()));
    let mut shell = Shell::new(conn, options(directive.as_deref()));
    let mut out = Vec::new();
    let input = input_of(&transcript);
    shell.run_script(&input, &mut out);
    let _ = db.close();
    let actual = mask(&String::from_utf8(out).expect("utf-8 output"), &input);
    if actual == transcript {
        return None;
    }
    if std::env::var_os("BLESS").is_some() {
        let header = directive.map(|d| format!("#!{d}\n")).unwrap_or_default();
        std::fs::write(path, format!("{header}{actual}")).expect("writable golden file");
        return None;
    }
    let diff: Vec<String> = transcript
        .lines()
        .zip(actual.lines())
        .enumerate()
        .filter(|(_, (e, a))| e != a)
        .take(5)
        .map(|(i, (e, a))| format!("line {}:\n  expected: {e:?}\n  actual:   {a:?}", i + 1))
        .collect();
    Some(format!(
        "{}: output differs ({} expected lines, {} actual)\n{}\n--- actual ---\n{actual}",
        path.display(),
        transcript.lines().count(),
        actual.lines().count(),
        diff.join("\n")
    ))
}

#[test]
fn golden_transcripts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let failures: Vec<String> = paths.iter().filter_map(|p| run_golden(p)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
