//! What a failed check says: which completion no order explains, and why.

use std::fmt;

use crate::history::Operation;
use crate::model::State;
use crate::show::{show_key, show_value};

/// A key whose history is not linearizable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub key: Vec<u8>,
    /// The acknowledged operation whose completion no order could reach with it placed.
    pub culprit: Option<Operation>,
    /// The smallest prefix that cannot be linearized: every (non-failed) operation invoked
    /// before the culprit completed, by invocation time.
    pub prefix: Vec<Operation>,
    /// The longest valid order the search found within the prefix (one of them).
    pub linearized: Vec<Operation>,
    /// The register's value after `linearized`.
    pub state: State,
    /// The prefix's operations outside `linearized`, the culprit among them: none of them
    /// could be placed next.
    pub pending: Vec<Operation>,
    /// When the culprit read a value: the operations of the prefix that wrote it (a put
    /// or a check-and-put, whatever it answered), so a stale read shows how old it is.
    pub writers: Vec<Operation>,
}

impl Violation {
    /// The operations among `prefix` that may have written what `culprit` read.
    pub fn writers_of(culprit: Option<&Operation>, prefix: &[Operation]) -> Vec<Operation> {
        use crate::history::{OpKind, Outcome, Ret};
        // Values are unique per operation, so this is one operation at most; a
        // check-and-put that answered "not applied" is shown too (it may have been).
        let Some(Operation {
            outcome: Outcome::Ok(Ret::Read(Some(read))),
            ..
        }) = culprit
        else {
            return Vec::new();
        };
        prefix
            .iter()
            .filter(|op| match &op.kind {
                OpKind::Put(v) => v == read,
                OpKind::CheckAndPut { new, .. } => new == read,
                _ => false,
            })
            .cloned()
            .collect()
    }
}

/// An operation that cannot be checked as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub op: Operation,
    pub reason: &'static str,
}

/// How many operations of each list a one-line explanation shows.
const SHOWN: usize = 4;
/// And a multi-line one (`{:#}`).
const SHOWN_ALTERNATE: usize = 32;

/// Writes the last `shown` of `ops` (the first `shown` when `from_start`).
fn write_ops(
    f: &mut fmt::Formatter<'_>,
    ops: &[Operation],
    shown: usize,
    from_start: bool,
    sep: &str,
) -> fmt::Result {
    let hidden = ops.len().saturating_sub(shown);
    let visible = if from_start {
        &ops[..ops.len() - hidden]
    } else {
        &ops[hidden..]
    };
    if hidden > 0 && !from_start {
        write!(f, "{sep}({hidden} earlier)")?;
    }
    for op in visible {
        write!(f, "{sep}{op}")?;
    }
    if hidden > 0 && from_start {
        write!(f, "{sep}({hidden} more)")?;
    }
    Ok(())
}

/// One line; `{:#}` spreads the explanation over several and shows more operations.
impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (shown, sep) = if f.alternate() {
            (SHOWN_ALTERNATE, "\n    ")
        } else {
            (SHOWN, " ")
        };
        write!(f, "key \"{}\": not linearizable", show_key(&self.key))?;
        if let Some(culprit) = &self.culprit {
            write!(f, ": {culprit}")?;
        }
        write!(
            f,
            "; no order of the {} operations invoked before it completed explains it",
            self.prefix.len()
        )?;
        write!(
            f,
            ";{}longest valid order ({} ops):",
            if f.alternate() { "\n  " } else { " " },
            self.linearized.len()
        )?;
        write_ops(f, &self.linearized, shown, false, sep)?;
        write!(
            f,
            ";{}register then holds {}; none of these fits next ({} ops):",
            if f.alternate() { "\n  " } else { " " },
            show_value(self.state.as_deref()),
            self.pending.len()
        )?;
        write_ops(f, &self.pending, shown, true, sep)?;
        if !self.writers.is_empty() {
            write!(
                f,
                ";{}the value read was written by:",
                if f.alternate() { "\n  " } else { " " }
            )?;
            write_ops(f, &self.writers, shown, false, sep)?;
        }
        Ok(())
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key \"{}\": cannot check {}: {}",
            show_key(&self.op.key),
            self.op,
            self.reason
        )
    }
}
