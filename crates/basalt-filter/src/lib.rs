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

//! # Where Basalt departs from HBase (deliberately)
//! - `OR` lists never skip a cell a filter left waiting (for its seek hint or next column)
//!   would include, and reversed scans compare hints in scan order; HBase can lose such cells.
//! - `MultipleColumnPrefixFilter` includes a qualifier matching any prefix, also when a
//!   longer, non-matching prefix sorts between them (HBase tests only the largest one).
//! - `FuzzyRowFilter` hints never jump over a row shorter than the rule that matches it.
//! - `SKIP` / `WHILE` pass reversed-scan notice and seek hints to their filter.
//! - Comparators: an empty value counts as null; a long comparator on a value that is not
//!   8 bytes answers "not equal" instead of failing; regexes use the `regex` crate's syntax
//!   (no backreferences or look-around) matching bytes like HBase's ISO-8859-1 decoding; an
//!   invalid regex fails in [`build`], not in [`parse`].
//! - `PrefixFilter` lets rows before the prefix reach `filter_cell`, so that the seek hint
//!   can take effect.

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
