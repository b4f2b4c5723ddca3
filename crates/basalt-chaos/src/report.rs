//! A whole history: grouped by key, each key checked, the findings gathered.

use std::collections::BTreeMap;
use std::fmt;

use crate::history::Operation;
use crate::linearizable::{check_ops, CheckOptions, KeyCheck, Verdict};
use crate::show::show_key;
use crate::violation::{Malformed, Violation};

/// What checking a history found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HistoryReport {
    pub keys_checked: usize,
    /// Operations in the history, failed ones included.
    pub ops: usize,
    /// Placements tried by the searches, over all keys.
    pub steps: u64,
    pub violations: Vec<Violation>,
    /// Keys whose search ran out of steps (the key, its operation count).
    pub undecided: Vec<(Vec<u8>, usize)>,
    pub malformed: Vec<Malformed>,
}

impl HistoryReport {
    /// No violation and nothing malformed (undecided keys are not failures).
    pub fn is_valid(&self) -> bool {
        self.violations.is_empty() && self.malformed.is_empty()
    }

    /// Valid, and every key decided.
    pub fn is_proven(&self) -> bool {
        self.is_valid() && self.undecided.is_empty()
    }

    /// Adds one key's check.
    pub fn add(&mut self, check: KeyCheck) {
        self.keys_checked += 1;
        self.ops += check.ops;
        self.steps += check.steps;
        match check.verdict {
            Verdict::Linearizable => {}
            Verdict::Violation(v) => self.violations.push(*v),
            Verdict::Undecided => self.undecided.push((check.key, check.ops)),
            Verdict::Malformed(m) => self.malformed.extend(m),
        }
    }
}

/// Checks every key of `history` (in key order) for linearizability.
pub fn check_history(history: &[Operation], options: &CheckOptions) -> HistoryReport {
    let mut by_key: BTreeMap<&[u8], Vec<&Operation>> = BTreeMap::new();
    for op in history {
        by_key.entry(&op.key).or_default().push(op);
    }
    let mut report = HistoryReport::default();
    for (key, ops) in by_key {
        report.add(check_ops(key, &ops, options));
    }
    report
}

/// A summary line, then one line per finding (`{:#}`: violations over several lines).
impl fmt::Display for HistoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "linearizability: {} keys, {} operations, {} steps: {} violations, {} undecided, {} malformed",
            self.keys_checked,
            self.ops,
            self.steps,
            self.violations.len(),
            self.undecided.len(),
            self.malformed.len()
        )?;
        for malformed in &self.malformed {
            write!(f, "\n{malformed}")?;
        }
        for violation in &self.violations {
            if f.alternate() {
                write!(f, "\n{violation:#}")?;
            } else {
                write!(f, "\n{violation}")?;
            }
        }
        for (key, ops) in &self.undecided {
            write!(
                f,
                "\nkey \"{}\": undecided ({ops} operations): the step budget ran out",
                show_key(key)
            )?;
        }
        Ok(())
    }
}
