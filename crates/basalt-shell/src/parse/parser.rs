//! From tokens to statements (grammar in the module above).

use super::lexer::{lex, Tok, Token};
use super::{SyntaxError, Value};

/// One statement of input.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// `[var =] [receiver.]name args`.
    Call {
        assign: Option<String>,
        receiver: Option<String>,
        name: String,
        args: Vec<Value>,
    },
    /// A bare value; IRB echoes it.
    Expr(Value),
}

/// Parses every statement of `src`.
pub fn parse_program(src: &str) -> Result<Vec<Statement>, SyntaxError> {
    let tokens = lex(src)?;
    let mut p = Parser { src, tokens, at: 0 };
    let mut out = Vec::new();
    loop {
        while matches!(p.peek(), Some(Tok::Newline) | Some(Tok::Semi)) {
            p.at += 1;
        }
        if p.peek().is_none() {
            return Ok(out);
        }
        out.push(p.statement()?);
        match p.peek() {
            None | Some(Tok::Newline) | Some(Tok::Semi) => {}
            Some(_) => return Err(p.unexpected()),
        }
    }
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Tok> {
        self.tokens.get(self.at + ahead).map(|t| &t.tok)
    }

    fn pos(&self) -> usize {
        self.tokens.get(self.at).map_or(self.src.len(), |t| t.pos)
    }

    fn unexpected(&self) -> SyntaxError {
        match self.peek() {
            None => {
                let mut e = SyntaxError::at(self.src, self.src.len(), "unexpected end-of-input");
                e.incomplete = true;
                e
            }
            Some(t) => SyntaxError::at(self.src, self.pos(), format!("unexpected {}", describe(t))),
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek() == Some(&Tok::Newline) {
            self.at += 1;
        }
    }

    fn ident(&mut self) -> Option<String> {
        match self.peek() {
            Some(Tok::Ident(name)) => {
                let name = name.clone();
                self.at += 1;
                Some(name)
            }
            _ => None,
        }
    }

    fn statement(&mut self) -> Result<Statement, SyntaxError> {
        let is_call = matches!(self.peek(), Some(Tok::Ident(n)) if !is_literal_word(n));
        if !is_call {
            let value = self.value()?;
            return Ok(Statement::Expr(value));
        }
        let mut assign = None;
        if self.peek_at(1) == Some(&Tok::Assign) {
            assign = self.ident();
            self.at += 1;
        }
        let mut name = self.ident().ok_or_else(|| self.unexpected())?;
        let mut receiver = None;
        if self.peek() == Some(&Tok::Dot) {
            self.at += 1;
            receiver = Some(name);
            name = self.ident().ok_or_else(|| self.unexpected())?;
        }
        let args = if self.peek() == Some(&Tok::Open('(')) {
            self.at += 1;
            self.skip_newlines();
            let args = if self.peek() == Some(&Tok::Close(')')) {
                Vec::new()
            } else {
                self.args()?
            };
            self.skip_newlines();
            self.expect(Tok::Close(')'))?;
            args
        } else if matches!(self.peek(), None | Some(Tok::Newline) | Some(Tok::Semi)) {
            Vec::new()
        } else {
            self.args()?
        };
        Ok(Statement::Call {
            assign,
            receiver,
            name,
            args,
        })
    }

    fn expect(&mut self, tok: Tok) -> Result<(), SyntaxError> {
        if self.peek() == Some(&tok) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    /// Arguments; consecutive `k => v` pairs become one hash.
    fn args(&mut self) -> Result<Vec<Value>, SyntaxError> {
        let mut args = Vec::new();
        let mut pairs: Option<Vec<(Value, Value)>> = None;
        loop {
            let v = self.value()?;
            if self.peek() == Some(&Tok::Arrow) {
                self.at += 1;
                self.skip_newlines();
                let val = self.value()?;
                pairs.get_or_insert_with(Vec::new).push((v, val));
            } else {
                if let Some(p) = pairs.take() {
                    args.push(Value::Hash(p));
                }
                args.push(v);
            }
            if self.peek() != Some(&Tok::Comma) {
                break;
            }
            self.at += 1;
            self.skip_newlines();
        }
        if let Some(p) = pairs {
            args.push(Value::Hash(p));
        }
        Ok(args)
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        let Some(tok) = self.peek().cloned() else {
            return Err(self.unexpected());
        };
        let value = match tok {
            Tok::Str(s) => {
                self.at += 1;
                let mut s = s;
                // Ruby joins adjacent literals: 'a' 'b' is "ab".
                while let Some(Tok::Str(more)) = self.peek() {
                    s.extend_from_slice(more);
                    self.at += 1;
                }
                Value::Str(s)
            }
            Tok::Int(i) => {
                self.at += 1;
                Value::Int(i)
            }
            Tok::Float(f) => {
                self.at += 1;
                Value::Float(f)
            }
            Tok::Ident(name) => {
                self.at += 1;
                word_value(name)
            }
            Tok::Open('[') => {
                self.at += 1;
                Value::Array(self.list(']', |p| p.value())?)
            }
            Tok::Open('{') => {
                self.at += 1;
                let pairs = self.list('}', |p| {
                    let k = p.value()?;
                    p.skip_newlines();
                    p.expect(Tok::Arrow)?;
                    p.skip_newlines();
                    Ok((k, p.value()?))
                })?;
                Value::Hash(pairs)
            }
            Tok::Open('(') => {
                self.at += 1;
                self.skip_newlines();
                let v = self.value()?;
                self.skip_newlines();
                self.expect(Tok::Close(')'))?;
                v
            }
            _ => return Err(self.unexpected()),
        };
        Ok(value)
    }

    /// Comma-separated items up to `close`; newlines and a trailing comma are allowed.
    fn list<T>(
        &mut self,
        close: char,
        mut item: impl FnMut(&mut Self) -> Result<T, SyntaxError>,
    ) -> Result<Vec<T>, SyntaxError> {
        let mut out = Vec::new();
        loop {
            self.skip_newlines();
            if self.peek() == Some(&Tok::Close(close)) {
                self.at += 1;
                return Ok(out);
            }
            out.push(item(self)?);
            self.skip_newlines();
            match self.peek() {
                Some(Tok::Comma) => self.at += 1,
                Some(Tok::Close(c)) if *c == close => {}
                _ => return Err(self.unexpected()),
            }
        }
    }
}

fn is_literal_word(word: &str) -> bool {
    matches!(word, "true" | "false" | "nil") || word.starts_with(|c: char| c.is_ascii_uppercase())
}

fn word_value(word: String) -> Value {
    match word.as_str() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "nil" => Value::Nil,
        _ if word.starts_with(|c: char| c.is_ascii_uppercase()) => Value::Const(word),
        _ => Value::Ident(word),
    }
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Str(_) => "string literal".to_string(),
        Tok::Int(i) => format!("integer literal {i}"),
        Tok::Float(f) => format!("float literal {f}"),
        Tok::Ident(i) => format!("'{i}'"),
        Tok::Arrow => "'=>'".to_string(),
        Tok::Comma => "','".to_string(),
        Tok::Assign => "'='".to_string(),
        Tok::Dot => "'.'".to_string(),
        Tok::Semi => "';'".to_string(),
        Tok::Newline => "end-of-line".to_string(),
        Tok::Open(c) | Tok::Close(c) => format!("'{c}'"),
    }
}
