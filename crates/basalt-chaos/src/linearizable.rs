//! Per-key linearizability: is there one order of a key's operations that respects real
//! time and under which every acknowledged answer is what the register would have said?
//!
//! The search is Wing & Gong's, with Lowe's memoisation. Events (invocations and
//! completions) are sorted by time, invocations before completions at equal times. The
//! search repeatedly picks an operation invoked before the earliest completion not yet
//! accounted for, applies it to the register, and backtracks when that completion is
//! reached with its operation still unplaced. A configuration — the set of placed
//! operations and the register's value — is explored at most once.
//!
//! Operations with an unknown outcome have no completion: each is a candidate from its
//! invocation on, is tried only after the acknowledged candidates, and never has to be
//! placed. They are what makes the search expensive, so three sound reductions apply:
//! - a configuration is skipped when an explored one has the same acknowledged operations
//!   and value but only a subset of its unknown operations placed (see `memo`);
//! - unknown operations of identical kind are interchangeable: only the earliest-invoked
//!   unplaced one of them is tried;
//! - an unknown put or delete must be followed directly by an operation that observes the
//!   register (a get, increment or check-and-put), else it could as well be left out.
//!
//! Even so, refuting a long history with many unknown writes of few distinct values can
//! exhaust the step budget: the verdict is then [`Verdict::Undecided`], never a guess.
//!
//! Failed operations and unknown gets are dropped: they changed nothing and promised
//! nothing.

use crate::history::{OpKind, Operation, Outcome};
use crate::search::{Found, Search};
use crate::violation::{Malformed, Violation};

/// How hard to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// Operations tried per key before giving up with [`Verdict::Undecided`].
    pub max_steps: u64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            max_steps: 2_000_000,
        }
    }
}

/// The answer for one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Linearizable,
    Violation(Box<Violation>),
    /// The step budget ran out first.
    Undecided,
    /// Some operations cannot be checked as recorded; the key was not searched.
    Malformed(Vec<Malformed>),
}

/// One key's check: its verdict and how much work it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyCheck {
    pub key: Vec<u8>,
    /// Operations on the key, failed ones included.
    pub ops: usize,
    /// Operations tried by the search.
    pub steps: u64,
    pub verdict: Verdict,
}

/// Checks the operations of `history` on `key` (operations on other keys are ignored).
pub fn check_key(key: &[u8], history: &[Operation], options: &CheckOptions) -> KeyCheck {
    let ops: Vec<&Operation> = history.iter().filter(|op| op.key == key).collect();
    check_ops(key, &ops, options)
}

/// Checks `ops` as the operations of one register named `key`.
pub(crate) fn check_ops(key: &[u8], ops: &[&Operation], options: &CheckOptions) -> KeyCheck {
    let mut check = KeyCheck {
        key: key.to_vec(),
        ops: ops.len(),
        steps: 0,
        verdict: Verdict::Linearizable,
    };
    let malformed: Vec<Malformed> = ops
        .iter()
        .filter_map(|op| {
            op.malformation().map(|reason| Malformed {
                op: (*op).clone(),
                reason,
            })
        })
        .collect();
    if !malformed.is_empty() {
        check.verdict = Verdict::Malformed(malformed);
        return check;
    }
    let kept: Vec<&Operation> = ops
        .iter()
        .copied()
        .filter(|op| match op.outcome {
            Outcome::Ok(_) => true,
            Outcome::Failed => false,
            Outcome::Unknown => op.kind != OpKind::Get,
        })
        .collect();
    let mut search = Search::new(&kept);
    let found = search.run(options.max_steps);
    check.steps = search.steps;
    check.verdict = match found {
        Found::Linearizable => Verdict::Linearizable,
        Found::Undecided => Verdict::Undecided,
        Found::Violation => Verdict::Violation(Box::new(search.explain(key))),
    };
    check
}
