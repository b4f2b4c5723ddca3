//! Tokens of the shell's Ruby.
//!
//! | input | token |
//! |-------|-------|
//! | `'a\'b'` | string, no interpolation (the escapes of [`crate::parse`]) |
//! | `"row#{i}\n"` | string of parts: bytes `row`, code `i`, bytes `\n` |
//! | `42`, `1_000`, `0x1F`, `1.5` | integer, float (a sign is an operator here) |
//! | `:name` | symbol |
//! | `%w[a b]` | array of words |
//! | `NAME: 1` | label (a hash key) |
//! | `puts`, `empty?`, `VERSIONS` | identifier, constant |
//! | `@x`, `$x` | variables of JRuby's own: rejected by the parser, by name |
//! | `..` `::` `=>` `==` `+=` `<<` ... | operators, longest first |
//!
//! Every token records whether whitespace came before it: `foo -1` passes `-1` to `foo`,
//! `foo - 1` subtracts, `a [1]` passes an array, `a[1]` indexes.

use crate::parse::lexer::{double_quoted, number, single_quoted, Tok as ArgTok};
use crate::parse::SyntaxError;

/// A piece of a double-quoted string.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Bytes(Vec<u8>),
    /// `#{...}`: the code and the byte offset where it starts.
    Code(String, usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Int(i64),
    Float(f64),
    Str(Vec<Part>),
    Sym(String),
    Words(Vec<Vec<u8>>),
    Ident(String),
    Const(String),
    Label(String),
    /// `@x` or `$x`, kept to be named in the error.
    Special(String),
    Op(&'static str),
    Newline,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
    pub space_before: bool,
}

const OPS: &[&str] = &[
    "**=", "...", "<=>", "===", "||=", "&&=", "==", "!=", ">=", "<=", "&&", "||", "..", "::", "=>",
    "+=", "-=", "*=", "/=", "<<", "**", "=~", "!~", "->", "+", "-", "*", "/", "%", "=", "<", ">",
    "!", ".", ",", ";", "(", ")", "[", "]", "{", "}", "|", "?", ":", "&", "^", "~",
];

/// Splits `src` into tokens. An unterminated string is an error flagged `incomplete`.
pub fn lex(src: &str) -> Result<Vec<Token>, SyntaxError> {
    let bytes = src.as_bytes();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut space = true;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let at_line_start = i == 0 || bytes[i - 1] == b'\n';
        let push = |out: &mut Vec<Token>, tok: Tok, space: bool| {
            out.push(Token {
                tok,
                pos: start,
                space_before: space,
            })
        };
        match c {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                space = true;
                continue;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                space = true;
                continue;
            }
            b'\n' => {
                push(&mut out, Tok::Newline, space);
                i += 1;
                space = true;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'=' if at_line_start && src[i..].starts_with("=begin") => {
                // A block comment; until its `=end` arrives the input is incomplete, so a
                // script fed line by line keeps reading instead of parsing the comment.
                i = match src[i..].find("\n=end") {
                    Some(end) => {
                        let after = i + end + 5;
                        src[after..].find('\n').map_or(src.len(), |n| after + n)
                    }
                    None => {
                        let mut e = SyntaxError::at(src, i, "=begin comment without =end");
                        e.incomplete = true;
                        return Err(e);
                    }
                };
                continue;
            }
            b'\'' => {
                let (s, next) = single_quoted(bytes, i)?;
                push(&mut out, Tok::Str(vec![Part::Bytes(s)]), space);
                i = next;
            }
            b'"' => {
                let (parts, next) = interpolated(src, i)?;
                push(&mut out, Tok::Str(parts), space);
                i = next;
            }
            b'0'..=b'9' => {
                let (tok, next) = number(src, i)?;
                let tok = match tok {
                    ArgTok::Int(v) => Tok::Int(v),
                    ArgTok::Float(v) => Tok::Float(v),
                    _ => return Err(SyntaxError::at(src, i, "invalid number")),
                };
                push(&mut out, tok, space);
                i = next;
            }
            b'%' if matches!(bytes.get(i + 1), Some(b'w') | Some(b'i'))
                && matches!(bytes.get(i + 2), Some(b'(') | Some(b'[') | Some(b'{')) =>
            {
                let close = match bytes[i + 2] {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                let Some(len) = bytes[i + 3..].iter().position(|b| *b == close) else {
                    let mut e = SyntaxError::at(src, i, "unterminated list meets end of file");
                    e.incomplete = true;
                    return Err(e);
                };
                let body = &src[i + 3..i + 3 + len];
                let words = body
                    .split_whitespace()
                    .map(|w| w.as_bytes().to_vec())
                    .collect();
                push(&mut out, Tok::Words(words), space);
                i += 4 + len;
            }
            b':' if bytes
                .get(i + 1)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                && (space || prev_opens(&out)) =>
            {
                i += 1;
                let end = ident_end(bytes, i);
                push(&mut out, Tok::Sym(src[i..end].to_string()), space);
                i = end;
            }
            b'@' | b'$' => {
                let end = ident_end(bytes, (i + 1).min(bytes.len()));
                let end = if bytes.get(i + 1) == Some(&b'@') {
                    ident_end(bytes, i + 2)
                } else {
                    end
                };
                push(&mut out, Tok::Special(src[i..end].to_string()), space);
                i = end.max(i + 1);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = ident_end(bytes, i);
                let word = src[i..end].to_string();
                let label = bytes.get(end) == Some(&b':') && bytes.get(end + 1) != Some(&b':');
                let tok = if label && !word.ends_with('?') {
                    i = end + 1;
                    Tok::Label(word)
                } else if c.is_ascii_uppercase() {
                    i = end;
                    Tok::Const(word)
                } else {
                    i = end;
                    Tok::Ident(word)
                };
                push(&mut out, tok, space);
            }
            b'`' => {
                return Err(SyntaxError::at(
                    src,
                    i,
                    "command execution (`...` backticks) is not supported by Basalt's shell",
                ))
            }
            _ => {
                let Some(op) = OPS.iter().find(|op| src[i..].starts_with(**op)) else {
                    let ch = src[i..].chars().next().unwrap_or('?');
                    return Err(SyntaxError::at(
                        src,
                        i,
                        format!("unexpected character '{ch}'"),
                    ));
                };
                push(&mut out, Tok::Op(op), space);
                i += op.len();
            }
        }
        space = false;
    }
    Ok(out)
}

/// Whether the last token leaves room for a symbol (`[:a`, `(:a`, `, :a`).
fn prev_opens(out: &[Token]) -> bool {
    matches!(
        out.last().map(|t| &t.tok),
        None | Some(Tok::Op("(")) | Some(Tok::Op("[")) | Some(Tok::Op(",")) | Some(Tok::Op("{"))
    )
}

/// The end of an identifier starting at `i` (a trailing `?` or `!` belongs to it).
fn ident_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    if i < bytes.len() && (bytes[i] == b'?' || bytes[i] == b'!') && bytes.get(i + 1) != Some(&b'=')
    {
        i += 1;
    }
    i
}

/// A double-quoted string with `#{...}` interpolation, from its opening quote.
fn interpolated(src: &str, open: usize) -> Result<(Vec<Part>, usize), SyntaxError> {
    let bytes = src.as_bytes();
    let mut parts = Vec::new();
    let mut seg_start = open + 1;
    let mut i = open + 1;
    let flush = |parts: &mut Vec<Part>, from: usize, to: usize| -> Result<(), SyntaxError> {
        if to > from {
            let quoted = format!("\"{}\"", &src[from..to]);
            let (b, _) = double_quoted(&quoted, 0).map_err(|mut e| {
                e.column += from.saturating_sub(1);
                e
            })?;
            parts.push(Part::Bytes(b));
        }
        Ok(())
    };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                flush(&mut parts, seg_start, i)?;
                if parts.is_empty() {
                    parts.push(Part::Bytes(Vec::new()));
                }
                return Ok((parts, i + 1));
            }
            b'#' if bytes.get(i + 1) == Some(&b'{') => {
                flush(&mut parts, seg_start, i)?;
                let code_start = i + 2;
                let mut depth = 1;
                let mut j = code_start;
                let mut quote: Option<u8> = None;
                while j < bytes.len() && depth > 0 {
                    match (quote, bytes[j]) {
                        (Some(_), b'\\') => j += 1,
                        (Some(q), b) if b == q => quote = None,
                        (Some(_), _) => {}
                        (None, b'\'' | b'"') => quote = Some(bytes[j]),
                        (None, b'{') => depth += 1,
                        (None, b'}') => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                if depth > 0 {
                    break;
                }
                parts.push(Part::Code(src[code_start..j - 1].to_string(), code_start));
                i = j;
                seg_start = j;
            }
            _ => i += 1,
        }
    }
    Err(SyntaxError::unterminated(bytes, open))
}
