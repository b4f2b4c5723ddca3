//! The expression grammar: `OR` of `AND` of unary (`SKIP`, `WHILE`, parentheses, calls).

use super::args::{filter_from_args, Arg};
use super::lexer::{tokenize, Tok, Token};
use super::{Dialect, ParseError, FILTER_STRING_BYTES_MAX};
use crate::DEPTH_MAX;
use basalt_types::FilterSpec;

pub fn parse(text: &[u8], dialect: Dialect) -> Result<FilterSpec, ParseError> {
    if text.len() > FILTER_STRING_BYTES_MAX {
        return Err(ParseError::new(
            FILTER_STRING_BYTES_MAX,
            format!("filter string longer than {FILTER_STRING_BYTES_MAX} bytes"),
        ));
    }
    let tokens = tokenize(text, dialect)?;
    let mut p = Parser {
        tokens,
        next: 0,
        end: text.len(),
        dialect,
        depth: 0,
    };
    if p.tokens.is_empty() {
        return Err(ParseError::new(0, "expected a filter"));
    }
    let spec = p.or_expr()?;
    match p.peek() {
        None => Ok(spec),
        Some(t) if t.tok == Tok::RParen => Err(ParseError::new(t.pos, "mismatched parenthesis")),
        Some(t) => Err(ParseError::new(t.pos, "expected AND, OR or the end")),
    }
}

struct Parser {
    tokens: Vec<Token>,
    next: usize,
    end: usize,
    dialect: Dialect,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    fn pos(&self) -> usize {
        self.peek().map_or(self.end, |t| t.pos)
    }

    fn peek_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Word(w), .. }) if w == word)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.next).cloned();
        self.next += 1;
        t
    }

    fn or_expr(&mut self) -> Result<FilterSpec, ParseError> {
        self.chain("OR", false)
    }

    fn and_expr(&mut self) -> Result<FilterSpec, ParseError> {
        self.chain("AND", true)
    }

    fn chain(&mut self, keyword: &str, must_pass_all: bool) -> Result<FilterSpec, ParseError> {
        let first = self.operand(must_pass_all)?;
        if !self.peek_word(keyword) {
            return Ok(first);
        }
        let mut filters = vec![first];
        while self.peek_word(keyword) {
            self.bump();
            if self.peek().is_none() {
                let msg = format!("an {keyword} needs two filters: expected a filter");
                return Err(ParseError::new(self.end, msg));
            }
            filters.push(self.operand(must_pass_all)?);
        }
        Ok(FilterSpec::List {
            must_pass_all,
            filters,
        })
    }

    fn operand(&mut self, in_and: bool) -> Result<FilterSpec, ParseError> {
        if in_and {
            self.unary()
        } else {
            self.and_expr()
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > DEPTH_MAX {
            return Err(ParseError::new(
                self.pos(),
                format!("filters nested deeper than {DEPTH_MAX}"),
            ));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<FilterSpec, ParseError> {
        let Some(token) = self.peek().cloned() else {
            return Err(ParseError::new(self.end, "expected a filter"));
        };
        match &token.tok {
            Tok::Word(w) if w == "SKIP" || w == "WHILE" => {
                self.bump();
                if self.peek().is_none() {
                    let msg = format!("{w} needs a filter: expected a filter");
                    return Err(ParseError::new(self.end, msg));
                }
                self.enter()?;
                let inner = Box::new(self.unary()?);
                self.depth -= 1;
                Ok(if w == "SKIP" {
                    FilterSpec::Skip(inner)
                } else {
                    FilterSpec::WhileMatch(inner)
                })
            }
            Tok::LParen => {
                self.bump();
                self.enter()?;
                let inner = self.or_expr()?;
                self.depth -= 1;
                match self.bump() {
                    Some(Token {
                        tok: Tok::RParen, ..
                    }) => Ok(inner),
                    Some(t) => Err(ParseError::new(t.pos, "expected AND, OR or ')'")),
                    None => Err(ParseError::new(
                        self.end,
                        "mismatched parenthesis: expected ')'",
                    )),
                }
            }
            Tok::Word(w) if w == "AND" || w == "OR" => Err(ParseError::new(
                token.pos,
                format!("an {w} needs two filters: expected a filter"),
            )),
            Tok::Word(name) => {
                self.bump();
                self.call(name, token.pos)
            }
            Tok::RParen => Err(ParseError::new(token.pos, "mismatched parenthesis")),
            Tok::Quoted(_) | Tok::Comma => Err(ParseError::new(token.pos, "expected a filter")),
        }
    }

    /// `Name ( args )`, the name already read.
    fn call(&mut self, name: &str, name_pos: usize) -> Result<FilterSpec, ParseError> {
        if super::args::is_operator_filter(name) {
            // Refused by name before its arguments (a filter call inside is no argument).
            return Err(super::args::unsupported(name, name_pos));
        }
        match self.bump() {
            Some(Token {
                tok: Tok::LParen, ..
            }) => {}
            other => {
                let pos = other.map_or(self.end, |t| t.pos);
                return Err(ParseError::new(pos, format!("expected '(' after {name}")));
            }
        }
        let mut args = Vec::new();
        if matches!(self.peek(), Some(t) if t.tok == Tok::RParen) {
            self.bump();
            return filter_from_args(name, name_pos, &args, self.dialect);
        }
        loop {
            match self.bump() {
                Some(Token {
                    tok: Tok::Quoted(b),
                    pos,
                }) => args.push(Arg::quoted(b, pos)),
                Some(Token {
                    tok: Tok::Word(w),
                    pos,
                }) => args.push(Arg::word(w, pos)),
                other => {
                    let pos = other.map_or(self.end, |t| t.pos);
                    return Err(ParseError::new(pos, "expected an argument"));
                }
            }
            match self.bump() {
                Some(Token {
                    tok: Tok::Comma, ..
                }) => continue,
                Some(Token {
                    tok: Tok::RParen, ..
                }) => break,
                other => {
                    let pos = other.map_or(self.end, |t| t.pos);
                    return Err(ParseError::new(pos, "expected ',' or ')'"));
                }
            }
        }
        filter_from_args(name, name_pos, &args, self.dialect)
    }
}
