//! A recorded history as plain data: who did what to which key, when, and what came back.
//!
//! Times are whatever clock the harness records on (nanoseconds since the run's start,
//! say); only their order matters. Two operations are ordered in real time only when one
//! *completed strictly before* the other was invoked; equal times count as concurrent.

use std::fmt;

use crate::show::show_value;

/// A cell value. The register's state is `Option<Value>`: `None` is an absent row.
pub type Value = Vec<u8>;

/// What an operation asked the register to do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Write a value; answers [`Ret::Done`].
    Put(Value),
    /// Read the value; answers [`Ret::Read`].
    Get,
    /// Remove the value; answers [`Ret::Done`].
    Delete,
    /// Add a delta to the value read as a big-endian `i64` (absent = 0), as HBase does;
    /// answers [`Ret::Incremented`] with the value after the increment.
    Increment(i64),
    /// Write `new` if the value equals `expected` (`None`: if absent); answers
    /// [`Ret::Applied`].
    CheckAndPut { expected: Option<Value>, new: Value },
}

/// What an acknowledged operation answered.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ret {
    /// A put or a delete was applied.
    Done,
    /// A get read this value (`None`: absent).
    Read(Option<Value>),
    /// An increment left the value at this number.
    Incremented(i64),
    /// Whether a check-and-put applied.
    Applied(bool),
}

/// How an operation ended, as the client saw it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Acknowledged with this answer: it took effect once, between invocation and completion.
    Ok(Ret),
    /// Refused: it certainly had no effect (the server rejected it before applying it).
    Failed,
    /// Timed out or lost its connection: it took effect once at some moment after its
    /// invocation (possibly after the client gave up), or never.
    Unknown,
}

/// One operation by one client on one key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operation {
    /// The client (thread, connection) that issued it; only used in explanations.
    pub client: u32,
    /// The row the operation touched.
    pub key: Vec<u8>,
    pub kind: OpKind,
    /// When the client sent it.
    pub invoked: u64,
    /// When the client got its answer, or gave up (for [`Outcome::Unknown`] this is only
    /// informative: it bounds nothing).
    pub completed: u64,
    pub outcome: Outcome,
}

impl Operation {
    /// An operation from its parts.
    pub fn new(
        client: u32,
        key: impl Into<Vec<u8>>,
        kind: OpKind,
        invoked: u64,
        completed: u64,
        outcome: Outcome,
    ) -> Self {
        Operation {
            client,
            key: key.into(),
            kind,
            invoked,
            completed,
            outcome,
        }
    }

    /// Why this operation cannot be checked, if it cannot: an acknowledged operation that
    /// completed before it was invoked, or whose answer does not fit its kind.
    pub fn malformation(&self) -> Option<&'static str> {
        let Outcome::Ok(ret) = &self.outcome else {
            return None;
        };
        if self.completed < self.invoked {
            return Some("completed before it was invoked");
        }
        let fits = matches!(
            (&self.kind, ret),
            (OpKind::Put(_) | OpKind::Delete, Ret::Done)
                | (OpKind::Get, Ret::Read(_))
                | (OpKind::Increment(_), Ret::Incremented(_))
                | (OpKind::CheckAndPut { .. }, Ret::Applied(_))
        );
        (!fits).then_some("its answer does not fit its kind")
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpKind::Put(v) => write!(f, "put {}", show_value(Some(v))),
            OpKind::Get => f.write_str("get"),
            OpKind::Delete => f.write_str("delete"),
            OpKind::Increment(d) => write!(f, "increment {d:+}"),
            OpKind::CheckAndPut { expected, new } => write!(
                f,
                "check-and-put (expect {}) {}",
                show_value(expected.as_deref()),
                show_value(Some(new))
            ),
        }
    }
}

impl fmt::Display for Ret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ret::Done => f.write_str("ok"),
            Ret::Read(v) => f.write_str(&show_value(v.as_deref())),
            Ret::Incremented(n) => write!(f, "{n}"),
            Ret::Applied(b) => write!(f, "{b}"),
        }
    }
}

/// `client 3: get -> "b" [100, 150]`; an unknown outcome shows `[100, ...)`.
impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "client {}: {}", self.client, self.kind)?;
        match &self.outcome {
            Outcome::Ok(ret) => write!(f, " -> {ret} [{}, {}]", self.invoked, self.completed),
            Outcome::Failed => write!(f, " -> failed [{}, {}]", self.invoked, self.completed),
            Outcome::Unknown => write!(
                f,
                " -> unknown [{}, ...) (gave up at {})",
                self.invoked, self.completed
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_operations_are_named() {
        let get = |outcome, inv, comp| Operation::new(1, "k", OpKind::Get, inv, comp, outcome);
        assert_eq!(get(Outcome::Ok(Ret::Read(None)), 5, 9).malformation(), None);
        assert!(get(Outcome::Ok(Ret::Read(None)), 9, 5)
            .malformation()
            .is_some());
        assert!(get(Outcome::Ok(Ret::Done), 1, 2).malformation().is_some());
        assert_eq!(get(Outcome::Unknown, 9, 5).malformation(), None);
    }

    #[test]
    fn displays_read_like_a_log_line() {
        let op = Operation::new(
            3,
            "k",
            OpKind::Get,
            100,
            150,
            Outcome::Ok(Ret::Read(Some(b"b".to_vec()))),
        );
        assert_eq!(op.to_string(), "client 3: get -> \"b\" [100, 150]");
        let inc = Operation::new(2, "k", OpKind::Increment(1), 7, 9, Outcome::Unknown);
        assert_eq!(
            inc.to_string(),
            "client 2: increment +1 -> unknown [7, ...) (gave up at 9)"
        );
    }
}
