//! Client operations as plain data (reference §1.2–1.8).
//!
//! # Layout
//! - [`columns`]: which families and qualifiers a read selects.
//! - [`get`], [`scan`]: reads; a get is a one-row scan ([`Scan::from_get`]).
//! - [`mutation`]: Put, Delete, Increment, Append and the row mutations that group them.
//! - [`check_and_mutate`]: conditional mutations and HBase's compare operators.
//! - [`batch`]: mixed actions and their per-action results.
//! - [`durability`]: how hard a write is made durable before it is acknowledged.
//! - [`nonce`]: the name of one increment, append or check-and-mutate, so a retry is
//!   recognised.
//! - [`row_result`]: the cells of one row returned by a read.

pub mod batch;
pub mod check_and_mutate;
pub mod columns;
pub mod durability;
pub mod get;
pub mod mutation;
pub mod nonce;
pub mod row_result;
pub mod scan;

pub use batch::{Action, ActionResult};
pub use check_and_mutate::{CheckAndMutate, CompareOp, Condition};
pub use columns::ColumnSelection;
pub use durability::Durability;
pub use get::Get;
pub use mutation::{Append, Delete, DeleteSpec, Increment, Mutation, Put, RowMutations};
pub use nonce::Nonce;
pub use row_result::RowResult;
pub use scan::{Scan, ScanCancel};
