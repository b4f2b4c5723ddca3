//! Tokens of the shell's Ruby subset.
//!
//! | input | token |
//! |-------|-------|
//! | `'a\'b'` | string `a'b` (single quotes: only `\'` and `\\` are escapes) |
//! | `"\x00\n"` | string of bytes 0x00 0x0A (double quotes: Ruby escapes) |
//! | `42`, `-7`, `1_000`, `0x1F` | integer |
//! | `1.5`, `-2e3` | float |
//! | `NAME`, `scan`, `t` | identifier (constant when it starts upper case) |
//! | `=>` `,` `=` `.` `;` `(` `)` `[` `]` `{` `}` | punctuation |
//! | newline | statement end (unless inside brackets or after `,` / `=>`) |
//! | `# ...` | comment up to the end of the line |

use super::SyntaxError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    Ident(String),
    Arrow,
    Comma,
    Assign,
    Dot,
    Semi,
    Newline,
    Open(char),
    Close(char),
}

/// A token and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
}

/// Splits `src` into tokens. An unterminated string is an error flagged `incomplete`.
pub fn lex(src: &str) -> Result<Vec<Token>, SyntaxError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b'\n' => {
                out.push(Token {
                    tok: Tok::Newline,
                    pos: i,
                });
                i += 1;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'\'' => {
                let (s, next) = single_quoted(bytes, i)?;
                out.push(Token {
                    tok: Tok::Str(s),
                    pos: start,
                });
                i = next;
            }
            b'"' => {
                let (s, next) = double_quoted(src, i)?;
                out.push(Token {
                    tok: Tok::Str(s),
                    pos: start,
                });
                i = next;
            }
            b'=' if bytes.get(i + 1) == Some(&b'>') => {
                out.push(Token {
                    tok: Tok::Arrow,
                    pos: i,
                });
                i += 2;
            }
            b'=' => {
                out.push(Token {
                    tok: Tok::Assign,
                    pos: i,
                });
                i += 1;
            }
            b',' | b'.' | b';' => {
                let tok = match c {
                    b',' => Tok::Comma,
                    b'.' => Tok::Dot,
                    _ => Tok::Semi,
                };
                out.push(Token { tok, pos: i });
                i += 1;
            }
            b'(' | b'[' | b'{' => {
                out.push(Token {
                    tok: Tok::Open(c as char),
                    pos: i,
                });
                i += 1;
            }
            b')' | b']' | b'}' => {
                out.push(Token {
                    tok: Tok::Close(c as char),
                    pos: i,
                });
                i += 1;
            }
            b'-' | b'+' | b'0'..=b'9' => {
                let (tok, next) = number(src, i)?;
                out.push(Token { tok, pos: start });
                i = next;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if i < bytes.len() && (bytes[i] == b'?' || bytes[i] == b'!') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(src[start..i].to_string()),
                    pos: start,
                });
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(SyntaxError::at(
                    src,
                    i,
                    format!("unexpected character '{ch}'"),
                ));
            }
        }
    }
    Ok(out)
}

pub(crate) fn single_quoted(bytes: &[u8], open: usize) -> Result<(Vec<u8>, usize), SyntaxError> {
    let mut out = Vec::new();
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' => return Ok((out, i + 1)),
            b'\\' if matches!(bytes.get(i + 1), Some(b'\'') | Some(b'\\')) => {
                out.push(bytes[i + 1]);
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Err(SyntaxError::unterminated(bytes, open))
}

pub(crate) fn double_quoted(src: &str, open: usize) -> Result<(Vec<u8>, usize), SyntaxError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok((out, i + 1)),
            b'\\' => {
                let Some(&e) = bytes.get(i + 1) else { break };
                i += 2;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b's' => out.push(b' '),
                    b'e' => out.push(0x1b),
                    b'a' => out.push(0x07),
                    b'b' => out.push(0x08),
                    b'f' => out.push(0x0c),
                    b'v' => out.push(0x0b),
                    b'\n' => {}
                    b'x' => {
                        let n = digits(bytes, i, 2, |b| b.is_ascii_hexdigit());
                        if n == 0 {
                            return Err(SyntaxError::at(src, i - 2, "invalid hex escape"));
                        }
                        out.push(radix(&bytes[i..i + n], 16));
                        i += n;
                    }
                    b'0'..=b'7' => {
                        let n = 1 + digits(bytes, i, 2, |b| (b'0'..=b'7').contains(&b));
                        out.push(radix(&bytes[i - 1..i - 1 + n], 8));
                        i += n - 1;
                    }
                    b'u' => {
                        let (ch, next) = unicode_escape(src, i)?;
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        i = next;
                    }
                    other => out.push(other),
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Err(SyntaxError::unterminated(bytes, open))
}

/// How many bytes from `at` (at most `max`) satisfy `ok`.
fn digits(bytes: &[u8], at: usize, max: usize, ok: impl Fn(u8) -> bool) -> usize {
    bytes[at.min(bytes.len())..]
        .iter()
        .take(max)
        .take_while(|b| ok(**b))
        .count()
}

fn radix(text: &[u8], radix: u32) -> u8 {
    text.iter().fold(0u32, |acc, b| {
        acc * radix + char::from(*b).to_digit(radix).unwrap_or(0)
    }) as u8
}

/// `\uHHHH` or `\u{H...}` starting just after the `u`.
fn unicode_escape(src: &str, at: usize) -> Result<(char, usize), SyntaxError> {
    let bytes = src.as_bytes();
    let (hex, next) = if bytes.get(at) == Some(&b'{') {
        let close = src[at..]
            .find('}')
            .ok_or_else(|| SyntaxError::at(src, at, "unterminated Unicode escape"))?;
        (&src[at + 1..at + close], at + close + 1)
    } else {
        let n = digits(bytes, at, 4, |b| b.is_ascii_hexdigit());
        if n != 4 {
            return Err(SyntaxError::at(src, at, "invalid Unicode escape"));
        }
        (&src[at..at + 4], at + 4)
    };
    u32::from_str_radix(hex, 16)
        .ok()
        .and_then(char::from_u32)
        .map(|c| (c, next))
        .ok_or_else(|| SyntaxError::at(src, at, "invalid Unicode escape"))
}

pub(crate) fn number(src: &str, start: usize) -> Result<(Tok, usize), SyntaxError> {
    let bytes = src.as_bytes();
    let mut i = start;
    let negative = bytes[i] == b'-';
    if bytes[i] == b'-' || bytes[i] == b'+' {
        i += 1;
    }
    if !bytes.get(i).is_some_and(|b| b.is_ascii_digit()) {
        return Err(SyntaxError::at(src, start, "unexpected operator"));
    }
    if bytes[i] == b'0' && matches!(bytes.get(i + 1), Some(b'x') | Some(b'X')) {
        let n = digits(bytes, i + 2, usize::MAX, |b| {
            b.is_ascii_hexdigit() || b == b'_'
        });
        let text: String = src[i + 2..i + 2 + n]
            .chars()
            .filter(|c| *c != '_')
            .collect();
        let v = i64::from_str_radix(&text, 16)
            .map_err(|_| SyntaxError::at(src, start, "invalid hexadecimal number"))?;
        return Ok((Tok::Int(if negative { -v } else { v }), i + 2 + n));
    }
    let int_end = i + digits(bytes, i, usize::MAX, |b| b.is_ascii_digit() || b == b'_');
    let mut end = int_end;
    let mut float = false;
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(|b| b.is_ascii_digit()) {
        float = true;
        end += 1 + digits(bytes, end + 1, usize::MAX, |b| {
            b.is_ascii_digit() || b == b'_'
        });
    }
    if matches!(bytes.get(end), Some(b'e') | Some(b'E')) {
        let mut j = end + 1;
        if matches!(bytes.get(j), Some(b'-') | Some(b'+')) {
            j += 1;
        }
        let n = digits(bytes, j, usize::MAX, |b| b.is_ascii_digit());
        if n > 0 {
            float = true;
            end = j + n;
        }
    }
    let text: String = src[start..end].chars().filter(|c| *c != '_').collect();
    let tok = if float {
        Tok::Float(
            text.parse()
                .map_err(|_| SyntaxError::at(src, start, "invalid number"))?,
        )
    } else {
        Tok::Int(
            text.parse()
                .map_err(|_| SyntaxError::at(src, start, "integer out of range"))?,
        )
    };
    Ok((tok, end))
}
