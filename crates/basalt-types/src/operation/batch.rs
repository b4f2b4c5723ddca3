//! Batches of mixed actions with per-action results (HBase's `Table.batch`).

use super::{Append, CheckAndMutate, Delete, Get, Increment, Put, RowMutations, RowResult};

/// One action of a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Get(Get),
    Put(Put),
    Delete(Delete),
    Increment(Increment),
    Append(Append),
    RowMutations(RowMutations),
    CheckAndMutate(CheckAndMutate),
}

impl Action {
    /// The row the action reads or writes.
    pub fn row(&self) -> &bytes::Bytes {
        match self {
            Action::Get(a) => &a.row,
            Action::Put(a) => &a.row,
            Action::Delete(a) => &a.row,
            Action::Increment(a) => &a.row,
            Action::Append(a) => &a.row,
            Action::RowMutations(a) => &a.row,
            Action::CheckAndMutate(a) => &a.row,
        }
    }
}

/// The outcome of one successful action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionResult {
    /// A read, or an increment/append that returns its new values.
    Row(RowResult),
    /// A put, delete or row mutation applied.
    Done,
    /// Whether the condition held, and the mutation's result if it returned one.
    CheckAndMutate {
        succeeded: bool,
        result: Option<RowResult>,
    },
}
