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
//! A filter string is bytes: quoted arguments may hold any byte (HBase's shell hands the
//! parser a Ruby string's raw bytes, so `"...'binary:\x82'..."` in double quotes is the byte
//! 0x82); names, keywords and numbers must be UTF-8. HBase's dialect reads no escapes inside
//! quotes (`'\x82'` is four bytes, as in `ParseFilter`); the extended dialect reads `\xNN`.
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

/// Parses HBase's filter language. The filter string is bytes (a `&str` is one too), as
/// `ParseFilter.parseFilterString(byte[])` reads it: a quoted argument keeps every byte,
/// UTF-8 or not, so `ValueFilter(=, 'binary:<0x82>')` compares with the single byte 0x82.
pub fn parse(text: impl AsRef<[u8]>) -> Result<FilterSpec, ParseError> {
    parser::parse(text.as_ref(), Dialect::HBase)
}

/// Parses the extended dialect (a superset of HBase's language), from bytes as [`parse`].
pub fn parse_extended(text: impl AsRef<[u8]>) -> Result<FilterSpec, ParseError> {
    parser::parse(text.as_ref(), Dialect::Extended)
}
