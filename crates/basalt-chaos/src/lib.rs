//! Checks what clients saw while servers were being killed.
//!
//! A chaos run drives a cluster with several clients while servers die and come back,
//! and records every operation each client issued: what it asked, when it asked, when the
//! answer came and what it was — or that it was refused, or that the client never learned
//! (a timeout, a lost connection). This crate decides afterwards whether that history is
//! one a correct HBase could have produced:
//!
//! - **Linearizability, per key.** Each row is a register holding `Option<bytes>`, read
//!   and written by gets, puts, deletes, increments (the value as a big-endian `i64`, as
//!   HBase stores counters) and check-and-puts. A key's history passes when one total order
//!   of its operations respects real time and explains every acknowledged answer; refused
//!   operations are dropped and unknown ones may land anywhere after their invocation, or
//!   nowhere. A failing key is explained: the first completion no order gets past, the
//!   longest order found and the operations that could not come next.
//! - **Durability.** A final scan must return every acknowledged row, with a value written
//!   to it, exactly once, and nothing nobody wrote.
//! - **A single owner.** Reads sent straight to each region server during the run: no two
//!   servers may answer for one region in overlapping windows.
//!
//! It is plain data in, plain data out, with no dependencies: the harness that records the
//! history lives elsewhere.
//!
//! # Layout
//! - [`history`]: operations, their kinds, answers and outcomes.
//! - [`model`]: the register's sequential specification.
//! - [`linearizable`]: the per-key check, [`check_key`], and its verdicts.
//! - `search`: the Wing & Gong search behind it; `memo`: the configurations it explored.
//! - [`violation`]: what a failed key says, and malformed operations.
//! - [`durability`]: lost, duplicated and phantom rows after a final scan.
//! - [`ownership`]: regions answered by two servers at once, [`check_single_owner`].
//! - [`report`]: a whole history, [`check_history`], and its report.
//! - [`show`]: keys and values as the shell prints them.

pub mod durability;
pub mod history;
pub mod linearizable;
mod memo;
pub mod model;
pub mod ownership;
pub mod report;
mod search;
pub mod show;
pub mod violation;

pub use durability::{check_durability, DuplicatedRow, DurabilityReport, LostRow, PhantomRow};
pub use history::{OpKind, Operation, Outcome, Ret, Value};
pub use linearizable::{check_key, CheckOptions, KeyCheck, Verdict};
pub use model::State;
pub use ownership::{check_single_owner, DoubleOwner, OwnershipReport, ServedRead};
pub use report::{check_history, HistoryReport};
pub use violation::{Malformed, Violation};
