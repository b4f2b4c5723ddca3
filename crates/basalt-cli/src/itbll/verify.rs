//! `basalt itbll verify`: one scan of the whole table, every key sorted into HBase's
//! counters, and a verdict.
//!
//! Each row found is a *defined* node; its `meta:prev` is a *reference* to another. The
//! tally keeps one entry per key seen either way — 16 bytes of key and 4 of state (a
//! defined bit and a reference count), about 40 bytes a node with the map's overhead, so a
//! few million nodes take a little over a hundred megabytes — and sorts them at the end:
//!
//! | counter | defined | referenced | means |
//! |---|---|---|---|
//! | REFERENCED | yes | yes | as it should be |
//! | UNREFERENCED | yes | no | the end of a list: an unfinished generate, or its referrer is lost |
//! | UNDEFINED | no | yes | lost data |
//!
//! Which node references an undefined key is not kept during the scan (it would double the
//! memory); when there are undefined keys, a second scan of `meta:prev` alone finds the
//! referrers of the first few listed.

use super::{fail, hex, open_table, progress, Key, VerifyArgs, FAMILY, KEY_LEN, PREV};
use crate::CliError;
use basalt_api::Table;
use basalt_types::Scan;
use std::collections::HashMap;
use std::time::Instant;

/// How many undefined (and unreferenced) keys are listed.
pub const LISTED: usize = 10;
/// Rows per round trip of the scans.
const CACHING: u32 = 1000;
/// The state bit of a key seen as a row.
const DEFINED: u32 = 1 << 31;

/// Every key seen, and what was seen of it.
#[derive(Debug, Default)]
pub struct Tally {
    /// `DEFINED` when the key is a row; the low bits count the references to it.
    nodes: HashMap<Key, u32>,
    rows: u64,
    /// Rows without `meta:prev`.
    unlinked: u64,
    /// Rows whose key or `meta:prev` is not 16 bytes: not itbll nodes.
    malformed: u64,
}

/// The counters of a tally.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub rows: u64,
    pub referenced: u64,
    pub unreferenced: u64,
    pub undefined: u64,
    /// Keys referenced by more than one node.
    pub extra_references: u64,
    pub unlinked: u64,
    pub malformed: u64,
}

impl Tally {
    /// Records the row `row` and the key its `meta:prev` holds.
    pub fn add(&mut self, row: &[u8], prev: Option<&[u8]>) {
        self.rows += 1;
        let Ok(key) = Key::try_from(row) else {
            self.malformed += 1;
            return;
        };
        *self.nodes.entry(key).or_default() |= DEFINED;
        match prev.map(Key::try_from) {
            None => self.unlinked += 1,
            Some(Err(_)) => self.malformed += 1,
            Some(Ok(prev)) => {
                let state = self.nodes.entry(prev).or_default();
                if *state & !DEFINED < !DEFINED {
                    *state += 1;
                }
            }
        }
    }

    pub fn counts(&self) -> Counts {
        let mut counts = Counts {
            rows: self.rows,
            unlinked: self.unlinked,
            malformed: self.malformed,
            ..Counts::default()
        };
        for &state in self.nodes.values() {
            let references = state & !DEFINED;
            match (state & DEFINED != 0, references) {
                (true, 0) => counts.unreferenced += 1,
                (true, _) => counts.referenced += 1,
                (false, _) => counts.undefined += 1,
            }
            if references > 1 {
                counts.extra_references += 1;
            }
        }
        counts
    }

    /// The first `limit` keys (in key order) that are referenced but missing.
    pub fn undefined(&self, limit: usize) -> Vec<Key> {
        self.first(limit, |state| state & DEFINED == 0)
    }

    /// The first `limit` keys (in key order) that exist but nobody references.
    pub fn unreferenced(&self, limit: usize) -> Vec<Key> {
        self.first(limit, |state| state == DEFINED)
    }

    fn first(&self, limit: usize, wanted: impl Fn(u32) -> bool) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .nodes
            .iter()
            .filter(|(_, &state)| wanted(state))
            .map(|(key, _)| *key)
            .collect();
        keys.sort_unstable();
        keys.truncate(limit);
        keys
    }
}

impl Counts {
    /// Why the lists are not whole, in one line; `None` when they are.
    pub fn problem(&self) -> Option<String> {
        let mut problems = Vec::new();
        if self.undefined > 0 {
            problems.push(format!(
                "{} UNDEFINED nodes are referenced but missing (lost data)",
                self.undefined
            ));
        }
        if self.unreferenced > 0 {
            problems.push(format!(
                "{} UNREFERENCED nodes are referenced by no node (an unfinished generate, or lost data)",
                self.unreferenced
            ));
        }
        if self.unlinked > 0 {
            problems.push(format!(
                "{} nodes have no meta:prev (a generate that did not finish)",
                self.unlinked
            ));
        }
        if self.extra_references > 0 {
            problems.push(format!(
                "{} nodes are referenced more than once",
                self.extra_references
            ));
        }
        if self.malformed > 0 {
            problems.push(format!(
                "{} rows are not nodes (key or meta:prev not {KEY_LEN} bytes)",
                self.malformed
            ));
        }
        if self.rows == 0 {
            problems.push("the table holds no nodes (run basalt itbll generate first)".into());
        }
        (!problems.is_empty()).then(|| problems.join("; "))
    }
}

/// Scans the table, prints the counters and the first undefined keys; fails with the
/// reason unless every node is referenced and none is missing.
pub fn run(args: &VerifyArgs) -> Result<(), CliError> {
    let (conn, table) = super::connect(&args.target)?;
    let handle = open_table(&conn, &table)?;
    let began = Instant::now();
    let bar = progress("verify", None);
    let mut tally = Tally::default();
    let scan = Scan::new().family(FAMILY);
    for row in scan_rows(handle.as_ref(), scan)? {
        let row = row.map_err(|e| fail(format!("scanning {table}: {e}")))?;
        let Some(key) = row.row() else { continue };
        tally.add(key, row.value(FAMILY, PREV).map(AsRef::as_ref));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let counts = tally.counts();
    println!(
        "basalt itbll verify: table {table}, {} rows scanned in {:.1} s",
        counts.rows,
        began.elapsed().as_secs_f64()
    );
    println!("REFERENCED: {}", counts.referenced);
    println!("UNREFERENCED: {}", counts.unreferenced);
    println!("UNDEFINED: {}", counts.undefined);
    for (name, value) in [
        ("EXTRA_REFERENCES", counts.extra_references),
        ("WITHOUT_PREV", counts.unlinked),
        ("MALFORMED", counts.malformed),
    ] {
        if value > 0 {
            println!("{name}: {value}");
        }
    }
    let undefined = tally.undefined(LISTED);
    if !undefined.is_empty() {
        let referrers = find_referrers(handle.as_ref(), &undefined)
            .map_err(|e| fail(format!("scanning {table} for referrers: {e}")))?;
        println!(
            "UNDEFINED keys (first {} of {}):",
            undefined.len(),
            counts.undefined
        );
        for key in &undefined {
            let by: Vec<String> = referrers
                .get(key)
                .into_iter()
                .flatten()
                .map(|k| hex(k))
                .collect();
            println!("  {} referenced by {}", hex(key), by.join(", "));
        }
    }
    let unreferenced = tally.unreferenced(LISTED);
    if !unreferenced.is_empty() {
        println!(
            "UNREFERENCED keys (first {} of {}):",
            unreferenced.len(),
            counts.unreferenced
        );
        for key in &unreferenced {
            println!("  {}", hex(key));
        }
    }
    match counts.problem() {
        None => {
            println!("Status: OK");
            Ok(())
        }
        Some(problem) => {
            println!("Status: FAILED");
            Err(fail(format!("verify failed: {problem}")))
        }
    }
}

fn scan_rows(
    table: &dyn Table,
    mut scan: Scan,
) -> Result<Box<dyn basalt_api::ResultScanner>, CliError> {
    scan.caching = Some(CACHING);
    table
        .scan(&scan)
        .map_err(|e| fail(format!("scanning {}: {e}", table.name())))
}

/// The rows whose `meta:prev` is one of `wanted`, by the key they reference.
fn find_referrers(table: &dyn Table, wanted: &[Key]) -> Result<HashMap<Key, Vec<Key>>, CliError> {
    let mut found: HashMap<Key, Vec<Key>> = HashMap::new();
    for row in scan_rows(table, Scan::new().column(FAMILY, PREV))? {
        let row = row.map_err(|e| fail(e.to_string()))?;
        let (Some(key), Some(prev)) = (row.row(), row.value(FAMILY, PREV)) else {
            continue;
        };
        let (Ok(key), Ok(prev)) = (Key::try_from(key), Key::try_from(prev)) else {
            continue;
        };
        if wanted.contains(&prev) {
            found.entry(prev).or_default().push(key);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> Key {
        [n; KEY_LEN]
    }

    /// A circle of `n` nodes: node i points at node i + 1.
    fn circle(n: u8) -> Tally {
        let mut tally = Tally::default();
        for i in 0..n {
            tally.add(&key(i), Some(&key((i + 1) % n)));
        }
        tally
    }

    #[test]
    fn a_whole_circle_is_all_referenced() {
        let counts = circle(5).counts();
        assert_eq!(
            counts,
            Counts {
                rows: 5,
                referenced: 5,
                ..Counts::default()
            }
        );
        assert_eq!(counts.problem(), None);
    }

    #[test]
    fn a_lost_node_is_undefined_and_its_prev_unreferenced() {
        let mut tally = Tally::default();
        for i in (0..5u8).filter(|&i| i != 2) {
            tally.add(&key(i), Some(&key((i + 1) % 5)));
        }
        let counts = tally.counts();
        assert_eq!(
            (counts.referenced, counts.unreferenced, counts.undefined),
            (3, 1, 1)
        );
        assert_eq!(tally.undefined(LISTED), [key(2)]);
        assert_eq!(tally.unreferenced(LISTED), [key(3)]);
        let problem = counts.problem().expect("a problem");
        assert!(problem.starts_with("1 UNDEFINED"), "{problem}");
    }

    #[test]
    fn odd_rows_and_empty_tables_are_problems() {
        let mut tally = circle(3);
        tally.add(b"short", Some(&key(0)));
        tally.add(&key(9), Some(b"short"));
        tally.add(&key(8), None);
        tally.add(&key(7), Some(&key(0)));
        let counts = tally.counts();
        assert_eq!(counts.malformed, 2);
        assert_eq!(counts.unlinked, 1);
        assert_eq!(counts.extra_references, 1);
        assert!(counts.problem().is_some());
        let empty = Tally::default().counts().problem().expect("a problem");
        assert!(empty.contains("no nodes"), "{empty}");
    }
}
