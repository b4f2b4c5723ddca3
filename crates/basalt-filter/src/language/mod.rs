//! HBase's filter language (`ParseFilter`): `PrefixFilter('r') AND (SKIP ValueFilter(!=,
//! 'binary:x') OR PageFilter(5))`.
//!
//! ```text
//! expr    := and ( "OR" and )*            -- a chain becomes one MUST_PASS_ONE list
//! and     := unary ( "AND" unary )*       -- a chain becomes one MUST_PASS_ALL list
//! unary   := ("SKIP" | "WHILE") unary | "(" expr ")" | Name "(" [ arg ("," arg)* ] ")"
//! arg     := 'quoted bytes, '' for a quote' | integer | true | false | < <= = != >= >
//! comparator := 'binary:v' | 'binaryprefix:v' | 'regexstring:v' | 'substring:v'
//! ```
//!
//! Keywords are upper case; only spaces and tabs separate tokens. A bare string where a
//! comparator is expected is an error (`ParseFilter` needs the `type:` prefix).
//!
//! The *extended* dialect ([`parse_extended`], [`to_extended_language`]) is a superset
//! that spells every [`FilterSpec`]: `FuzzyRowFilter('key', '0101', ...)`,
//! `MultiRowRangeFilter('a', true, 'c', false, ...)`, `RandomRowFilter(0.25, seed)`,
//! `FirstKeyValueMatchingQualifiersFilter('q', ...)`, `TimestampsFilter(5, 3, true)` (hinting),
//! `ColumnPaginationFilter(2, 'qualifier')`, comparators `long:-5`, `null:`,
//! `bitand:` / `bitor:` / `bitxor:`, `regexstring/ims:` (flags), and `\xNN` byte escapes
//! inside quotes.

mod args;
mod lexer;
mod parser;
mod printer;

use basalt_types::FilterSpec;

pub use printer::{to_extended_language, to_language};

/// The longest filter string accepted.
pub const FILTER_STRING_BYTES_MAX: usize = 1 << 20;

/// Which language: HBase's, or Basalt's superset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    HBase,
    Extended,
}

/// A filter string that is not valid: what went wrong and at which byte.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at position {position}")]
pub struct ParseError {
    /// Byte offset into the filter string.
    pub position: usize,
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(position: usize, message: impl Into<String>) -> Self {
        Self {
            position,
            message: message.into(),
        }
    }
}

/// Parses HBase's filter language.
pub fn parse(text: &str) -> Result<FilterSpec, ParseError> {
    parser::parse(text, Dialect::HBase)
}

/// Parses the extended dialect (a superset of HBase's language).
pub fn parse_extended(text: &str) -> Result<FilterSpec, ParseError> {
    parser::parse(text, Dialect::Extended)
}
