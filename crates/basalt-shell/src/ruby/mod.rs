//! The Ruby HBase users script the shell with: a lexer, a parser to an [`ast`], and a
//! tree-walking evaluator. Every input goes through it; shell commands are method calls
//! whose arguments it evaluates (`put 't', "row#{i}", 'f:q', i`), so there is one path.
//!
//! ```text
//! for i in 1..3 do put 't', "r#{i}", 'f:q', i.to_s end     # loads in loops
//! list('tmp_.*').each { |t| disable t; drop t }             # cleanup loops
//! t = get_table 't'; t.put 'r', 'f:q', 'v'; t.count         # the table object
//! scan 't', FILTER => SingleColumnValueFilter.new(Bytes.toBytes('f'), Bytes.toBytes('q'),
//!   CompareFilter::CompareOp.valueOf('EQUAL'), BinaryComparator.new(Bytes.toBytes('v')))
//! ```
//!
//! What it is not: a whole Ruby. No `def`, classes, `case`, regexes, lambdas, heredocs or
//! JRuby internals (`@shell`); each is a syntax error naming the construct. Java classes
//! outside the filter language (`HTable`, `HBaseConfiguration`, `java.text.*`) and the
//! Java client object inside a table reference (`t.table`) are errors naming them too.
//! Constants are assignable like variables (`T = create 't', 'f'`), and `=begin … =end`
//! comments are skipped, as scripts run with `hbase shell script.rb` use both. Values are
//! copied, not shared: methods that change an object (`a << x`, `list.add(f)`,
//! `h[k] = v`) do so on a variable. Variables set inside a block stay set after it (Ruby
//! would drop them); block parameters do not.
//!
//! Why not an interpreter crate: the Rust Ruby implementations (Artichoke, mruby or MRI
//! bindings) build a C interpreter, are not production-ready by their own word, and would
//! need sandboxing from files and the network; the shell needs a few hundred lines of
//! Ruby's grammar.
//!
//! # Layout
//! - `lexer`: tokens, with the whitespace rules of command calls.
//! - [`ast`], `parser` (statements, control flow), `expr` (operators, calls, literals).
//! - [`eval`]: the [`Interp`]reter and the [`Host`] it calls for commands and output.
//! - `builtins` (`puts`, `sleep`, `import`…), `methods` (dispatch, the table object),
//!   `strings`, `collections` (blocks over arrays, hashes, ranges), `ops` (operators).
//! - [`java`] and `bytes`: the Java names of runbooks (filters, comparators, `Bytes`).

pub mod ast;
mod builtins;
mod bytes;
mod collections;
pub mod eval;
mod expr;
pub mod java;
mod lexer;
mod methods;
mod ops;
mod parser;
mod strings;

pub use eval::{Host, Interp};
pub use parser::parse;

use crate::parse::Value;
use crate::shell::ShellError;

/// A Ruby exception: its class and message (`NameError (uninitialized constant FOO)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RubyError {
    pub kind: String,
    pub message: String,
}

impl RubyError {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Self {
            kind: kind.to_string(),
            message: message.into(),
        }
    }

    pub fn name(message: impl Into<String>) -> Self {
        Self::new("NameError", message)
    }

    pub fn no_method(message: impl Into<String>) -> Self {
        Self::new("NoMethodError", message)
    }
}

/// How evaluation leaves the normal path.
#[derive(Debug, Clone, PartialEq)]
pub enum Flow {
    Raise(RubyError),
    /// A shell command failed: what it printed (its error included) and why.
    Failed {
        text: String,
        error: ShellError,
    },
    Break(Value),
    Next(Value),
    /// `exit` / `quit`.
    Exit,
}

impl From<RubyError> for Flow {
    fn from(e: RubyError) -> Self {
        Flow::Raise(e)
    }
}

/// Whether `src` stops inside a string, bracket or block (`do … end`, `if … end`), or
/// right after `,`, `=>`, `\` or an operator, so that the next line continues it.
pub fn is_incomplete(src: &str) -> bool {
    if src.trim_end_matches([' ', '\t']).ends_with('\\') {
        return true;
    }
    let tokens = match lexer::lex(src) {
        Ok(t) => t,
        Err(e) => return e.incomplete,
    };
    let mut brackets: i64 = 0;
    let mut blocks: i64 = 0;
    let mut loop_header = false;
    let mut statement_start = true;
    for t in &tokens {
        match &t.tok {
            lexer::Tok::Op("(" | "[" | "{") => brackets += 1,
            lexer::Tok::Op(")" | "]" | "}") => brackets -= 1,
            lexer::Tok::Ident(w) => match w.as_str() {
                "if" | "unless" | "while" | "until" if statement_start => {
                    blocks += 1;
                    loop_header = matches!(w.as_str(), "while" | "until");
                }
                "for" => {
                    blocks += 1;
                    loop_header = true;
                }
                "begin" | "def" | "class" | "module" | "case" => blocks += 1,
                "do" if loop_header => loop_header = false,
                "do" => blocks += 1,
                "end" => blocks -= 1,
                _ => {}
            },
            lexer::Tok::Newline | lexer::Tok::Op(";") => loop_header = false,
            _ => {}
        }
        statement_start = matches!(
            t.tok,
            lexer::Tok::Newline | lexer::Tok::Op(";" | "(" | "=" | "||" | "&&")
        ) || matches!(&t.tok, lexer::Tok::Ident(w) if matches!(w.as_str(), "then" | "else" | "do" | "begin" | "and" | "or" | "not"));
    }
    if brackets > 0 || blocks > 0 {
        return true;
    }
    let last = tokens.iter().rev().find(|t| t.tok != lexer::Tok::Newline);
    matches!(
        last.map(|t| &t.tok),
        Some(lexer::Tok::Op(
            "," | "=>" | "+" | "-" | "*" | "/" | "&&" | "||" | "=" | "." | "|" | "<<" | "=="
        ))
    )
}

#[cfg(test)]
mod tests;
