//! The subset of Ruby the HBase shell takes as input.
//!
//! ```text
//! program   := statement ( (";" | newline) statement )*
//! statement := [ ident "=" ] [ ident "." ] ident [ "(" args ")" | args ]
//!            | value                                 -- IRB echoes it
//! args      := arg ( "," arg )*                      -- trailing `k => v` pairs form one hash
//! arg       := value | value "=>" value
//! value     := 'string' | "string" | integer | float | true | false | nil
//!            | CONSTANT | variable | "[" values "]" | "{" k "=>" v, ... "}"
//! ```
//!
//! A statement continues on the next line while a string or bracket is open, or after a
//! trailing `,` or `=>` ([`is_incomplete`]). Errors name the line and column.

pub(crate) mod lexer;
mod parser;
mod value;

pub use parser::{parse_program, Statement};
pub use value::Value;

use std::fmt;

/// A syntax error and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
    /// The input ended inside a string or bracket: more lines may complete it.
    pub incomplete: bool,
}

impl SyntaxError {
    pub(crate) fn at(src: &str, pos: usize, message: impl Into<String>) -> Self {
        let pos = pos.min(src.len());
        let before = &src.as_bytes()[..pos];
        let line = 1 + before.iter().filter(|b| **b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1);
        Self {
            message: message.into(),
            line,
            column: pos - line_start + 1,
            incomplete: false,
        }
    }

    pub(crate) fn unterminated(bytes: &[u8], open: usize) -> Self {
        let src = String::from_utf8_lossy(bytes);
        let mut e = Self::at(&src, open, "unterminated string meets end of file");
        e.incomplete = true;
        e
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SyntaxError: (hbase):{}: {} (column {})",
            self.line, self.message, self.column
        )
    }
}

/// Whether `src` stops inside a string or bracket, or right after `,` / `=>`, so that the
/// next line continues it.
pub fn is_incomplete(src: &str) -> bool {
    let tokens = match lexer::lex(src) {
        Ok(t) => t,
        Err(e) => return e.incomplete,
    };
    let mut depth: i64 = 0;
    for t in &tokens {
        match t.tok {
            lexer::Tok::Open(_) => depth += 1,
            lexer::Tok::Close(_) => depth -= 1,
            _ => {}
        }
    }
    if depth > 0 {
        return true;
    }
    let last = tokens.iter().rev().find(|t| t.tok != lexer::Tok::Newline);
    matches!(
        last.map(|t| &t.tok),
        Some(lexer::Tok::Comma) | Some(lexer::Tok::Arrow)
    )
}

#[cfg(test)]
mod tests;
