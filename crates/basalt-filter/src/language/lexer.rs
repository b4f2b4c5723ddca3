//! Splits a filter string into tokens, each with its byte position.

use super::{Dialect, ParseError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    LParen,
    RParen,
    Comma,
    /// A quoted string, unescaped.
    Quoted(Vec<u8>),
    /// Anything else up to a delimiter: names, keywords, numbers, booleans, operators.
    Word(String),
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
}

fn is_delimiter(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'(' | b')' | b',' | b'\'')
}

/// Tokens of a filter string. The string is bytes, as HBase's `ParseFilter` reads it: quoted
/// strings keep any byte, while names, keywords and numbers must be UTF-8.
pub fn tokenize(bytes: &[u8], dialect: Dialect) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let pos = i;
        let tok = match bytes[i] {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b'\'' => {
                let (value, end) = quoted(bytes, i, dialect)?;
                out.push(Token {
                    tok: Tok::Quoted(value),
                    pos,
                });
                i = end;
                continue;
            }
            _ => {
                let end = (i..bytes.len())
                    .find(|&j| is_delimiter(bytes[j]))
                    .unwrap_or(bytes.len());
                let word = std::str::from_utf8(&bytes[i..end]).map_err(|e| {
                    let bad = i + e.valid_up_to();
                    ParseError::new(
                        bad,
                        format!(
                            "byte 0x{:02x} outside quotes: only quoted arguments may hold \
                             bytes that are not UTF-8",
                            bytes[bad]
                        ),
                    )
                })?;
                out.push(Token {
                    tok: Tok::Word(word.to_owned()),
                    pos,
                });
                i = end;
                continue;
            }
        };
        out.push(Token { tok, pos });
        i += 1;
    }
    Ok(out)
}

/// The string opening at `start`; returns it and the index after its closing quote.
fn quoted(bytes: &[u8], start: usize, dialect: Dialect) -> Result<(Vec<u8>, usize), ParseError> {
    let mut value = Vec::new();
    let mut i = start + 1;
    loop {
        match bytes.get(i) {
            None => return Err(ParseError::new(start, "unterminated quoted string")),
            Some(b'\'') if bytes.get(i + 1) == Some(&b'\'') => {
                value.push(b'\'');
                i += 2;
            }
            Some(b'\'') => return Ok((value, i + 1)),
            Some(b'\\') if dialect == Dialect::Extended => match hex_escape(bytes, i) {
                Some(b) => {
                    value.push(b);
                    i += 4;
                }
                None => {
                    value.push(b'\\');
                    i += 1;
                }
            },
            Some(&b) => {
                value.push(b);
                i += 1;
            }
        }
    }
}

/// `\xNN` at `i`.
fn hex_escape(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i + 1) != Some(&b'x') {
        return None;
    }
    let digits = bytes.get(i + 2..i + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u8::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}
