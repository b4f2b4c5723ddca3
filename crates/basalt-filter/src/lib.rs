//! HBase's server-side filters, comparators and filter language, for Basalt's scanners.
//!
//! A scan carries its filter as plain data ([`basalt_types::FilterSpec`]). This crate:
//! - [`build`]s a spec into a [`Filter`], the stateful evaluator the region scanner consults
//!   for every row and cell (HBase's return codes, row hooks and seek hints);
//! - [`parse`]s HBase's filter language (`ParseFilter`) into a spec and prints one back with
//!   [`to_language`]; [`parse_extended`] / [`to_extended_language`] add the filters and
//!   comparators HBase's language cannot spell (fuzzy rows, row ranges, long/bit/null
//!   comparators, regex flags);
//! - [`encode`]s / [`decode`]s a spec as bytes, for every filter, with limits.
//!
//! It is not the scanner: the scan loop that drives a filter lives in the storage engine
//! (and, for the golden tests, in `tests/support/`).
//!
//! # Layout
//! - [`filter`]: the [`Filter`] trait and HBase's [`ReturnCode`]s.
//! - [`comparator`]: comparators and the `cell OP operand` rule.
//! - `build`: from spec to evaluator; `filters/`: one module per filter.
//! - [`language`]: lexer, parser and printer of the filter language.
//! - [`wire`]: the binary form.

mod build;
pub mod comparator;
mod error;
pub mod filter;
mod filters;
pub mod language;
pub mod wire;

pub use build::build;
pub use error::FilterError;
pub use filter::{Filter, ReturnCode};
pub use language::{parse, parse_extended, to_extended_language, to_language, ParseError};
pub use wire::{decode, encode, DecodeError};

/// How deeply filters may nest (lists, `SKIP`, `WHILE`), in the language, the wire form and
/// when building.
pub const DEPTH_MAX: usize = 64;
