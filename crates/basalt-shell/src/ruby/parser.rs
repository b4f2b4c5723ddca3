//! Statements and control flow: from tokens to [`Expr`] trees (expressions in `expr.rs`).
//!
//! ```text
//! program  := stmt ( (";" | newline) stmt )*
//! stmt     := expr_stmt ( ("if" | "unless" | "while" | "until") expr_stmt )*
//! compound := if … [elsif …]* [else …] end | unless … end | while/until cond [do] … end
//!           | for a[, b] in expr [do] … end | begin … [rescue [=> e] …] [ensure …] end
//! ```

use super::ast::{Block, Expr};
use super::lexer::{lex, Tok, Token};
use crate::parse::SyntaxError;
use std::collections::HashSet;

/// Parses a whole input.
pub fn parse(src: &str) -> Result<Vec<Expr>, SyntaxError> {
    let tokens = lex(src)?;
    let mut p = Parser {
        src,
        offset: 0,
        tokens,
        at: 0,
        locals: HashSet::new(),
        no_do: false,
    };
    p.program()
}

/// Parses the code of a `#{...}` at byte `offset` of `src`, knowing the outer locals.
pub(super) fn parse_nested(
    src: &str,
    code: &str,
    offset: usize,
    locals: &HashSet<String>,
) -> Result<Vec<Expr>, SyntaxError> {
    let tokens = lex(code).map_err(|e| SyntaxError::at(src, offset, e.message))?;
    let mut p = Parser {
        src: code,
        offset,
        tokens,
        at: 0,
        locals: locals.clone(),
        no_do: false,
    };
    p.program()
        .map_err(|e| SyntaxError::at(src, offset, e.message))
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    /// Where `src` starts in the whole input (for `#{...}` code).
    pub(super) offset: usize,
    pub(super) tokens: Vec<Token>,
    pub(super) at: usize,
    /// Names assigned so far: `x -1` subtracts from a local, passes `-1` to a method.
    pub(super) locals: HashSet<String>,
    /// Inside a `while`/`until`/`for` header, whose `do` is the loop's, not a block's.
    pub(super) no_do: bool,
}

/// Words that end a statement list.
const CLOSERS: &[&str] = &["end", "else", "elsif", "rescue", "ensure", "when", "then"];

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    pub(super) fn token(&self, ahead: usize) -> Option<&Token> {
        self.tokens.get(self.at + ahead)
    }

    pub(super) fn pos(&self) -> usize {
        self.offset + self.tokens.get(self.at).map_or(self.src.len(), |t| t.pos)
    }

    pub(super) fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    pub(super) fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if w == word)
    }

    pub(super) fn eat_op(&mut self, op: &str) -> bool {
        let yes = self.is_op(op);
        if yes {
            self.at += 1;
        }
        yes
    }

    pub(super) fn eat_word(&mut self, word: &str) -> bool {
        let yes = self.is_word(word);
        if yes {
            self.at += 1;
        }
        yes
    }

    pub(super) fn expect_op(&mut self, op: &str) -> Result<(), SyntaxError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn expect_word(&mut self, word: &str) -> Result<(), SyntaxError> {
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError::at(self.full_src(), self.pos(), message)
    }

    fn full_src(&self) -> &str {
        // Positions in nested code are re-anchored by `parse_nested`.
        self.src
    }

    pub(super) fn unexpected(&self) -> SyntaxError {
        match self.peek() {
            None => {
                let mut e = SyntaxError::at(self.src, self.src.len(), "unexpected end-of-input");
                e.incomplete = true;
                e
            }
            Some(t) => {
                let pos = self.tokens[self.at].pos;
                SyntaxError::at(self.src, pos, format!("unexpected {}", describe(t)))
            }
        }
    }

    pub(super) fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline) | Some(Tok::Op(";"))) {
            self.at += 1;
        }
    }

    fn program(&mut self) -> Result<Vec<Expr>, SyntaxError> {
        let body = self.stmts()?;
        match self.peek() {
            None => Ok(body),
            Some(_) => Err(self.unexpected()),
        }
    }

    /// Statements up to a closing word, `}` or `)` (not consumed) or the end.
    pub(super) fn stmts(&mut self) -> Result<Vec<Expr>, SyntaxError> {
        let mut out = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                None => return Ok(out),
                Some(Tok::Ident(w)) if CLOSERS.contains(&w.as_str()) => return Ok(out),
                Some(Tok::Op("}")) | Some(Tok::Op(")")) => return Ok(out),
                _ => {}
            }
            out.push(self.stmt()?);
            match self.peek() {
                None | Some(Tok::Newline) | Some(Tok::Op(";")) | Some(Tok::Op("}"))
                | Some(Tok::Op(")")) => {}
                Some(Tok::Ident(w)) if CLOSERS.contains(&w.as_str()) => {}
                Some(_) => return Err(self.unexpected()),
            }
        }
    }

    fn stmt(&mut self) -> Result<Expr, SyntaxError> {
        let mut e = self.expr_stmt()?;
        loop {
            if self.eat_word("if") {
                let cond = self.expr_stmt()?;
                e = Expr::If {
                    cond: Box::new(cond),
                    then: vec![e],
                    otherwise: Vec::new(),
                };
            } else if self.eat_word("unless") {
                let cond = self.expr_stmt()?;
                e = Expr::If {
                    cond: Box::new(Expr::Not(Box::new(cond))),
                    then: vec![e],
                    otherwise: Vec::new(),
                };
            } else if self.is_word("while") || self.is_word("until") {
                let negate = self.is_word("until");
                self.at += 1;
                let cond = self.expr_stmt()?;
                e = Expr::While {
                    cond: Box::new(cond),
                    body: vec![e],
                    negate,
                };
            } else {
                return Ok(e);
            }
        }
    }

    /// `a and b`, `a or b`, `not a`: the loosest operators.
    pub(super) fn expr_stmt(&mut self) -> Result<Expr, SyntaxError> {
        let mut lhs = if self.eat_word("not") {
            Expr::Not(Box::new(self.expr_stmt()?))
        } else {
            self.expr()?
        };
        loop {
            if self.eat_word("and") {
                self.skip_newlines();
                lhs = Expr::And(Box::new(lhs), Box::new(self.expr()?));
            } else if self.eat_word("or") {
                self.skip_newlines();
                lhs = Expr::Or(Box::new(lhs), Box::new(self.expr()?));
            } else {
                return Ok(lhs);
            }
        }
    }

    /// A loop or `if` header's condition: `do` and `then` end it.
    fn header(&mut self) -> Result<Expr, SyntaxError> {
        let saved = std::mem::replace(&mut self.no_do, true);
        let cond = self.expr_stmt();
        self.no_do = saved;
        cond
    }

    fn body_until(&mut self, closers: &[&str]) -> Result<Vec<Expr>, SyntaxError> {
        let saved = std::mem::replace(&mut self.no_do, false);
        let body = self.stmts();
        self.no_do = saved;
        let body = body?;
        if !closers.iter().any(|c| self.is_word(c)) {
            return Err(self.unexpected());
        }
        Ok(body)
    }

    /// After `if` / `elsif` / `unless`: the rest up to and including `end`.
    pub(super) fn if_rest(&mut self, negate: bool) -> Result<Expr, SyntaxError> {
        let cond = self.header()?;
        self.eat_word("then");
        let then = self.body_until(&["elsif", "else", "end"])?;
        let otherwise = if self.eat_word("elsif") {
            vec![self.if_rest(false)?]
        } else if self.eat_word("else") {
            let body = self.body_until(&["end"])?;
            self.expect_word("end")?;
            body
        } else {
            self.expect_word("end")?;
            Vec::new()
        };
        let cond = if negate {
            Expr::Not(Box::new(cond))
        } else {
            cond
        };
        Ok(Expr::If {
            cond: Box::new(cond),
            then,
            otherwise,
        })
    }

    pub(super) fn while_rest(&mut self, negate: bool) -> Result<Expr, SyntaxError> {
        let cond = self.header()?;
        self.eat_word("do");
        let body = self.body_until(&["end"])?;
        self.expect_word("end")?;
        Ok(Expr::While {
            cond: Box::new(cond),
            body,
            negate,
        })
    }

    pub(super) fn for_rest(&mut self) -> Result<Expr, SyntaxError> {
        let mut vars = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Ident(name)) => {
                    vars.push(name.clone());
                    self.at += 1;
                }
                _ => return Err(self.unexpected()),
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_word("in")?;
        let iter = self.header()?;
        self.eat_word("do");
        self.locals.extend(vars.iter().cloned());
        let body = self.body_until(&["end"])?;
        self.expect_word("end")?;
        Ok(Expr::For {
            vars,
            iter: Box::new(iter),
            body,
        })
    }

    pub(super) fn begin_rest(&mut self) -> Result<Expr, SyntaxError> {
        let body = self.body_until(&["rescue", "ensure", "end"])?;
        let mut rescue = None;
        if self.eat_word("rescue") {
            while matches!(self.peek(), Some(Tok::Const(_))) || self.is_op("::") {
                self.at += 1;
            }
            let mut var = None;
            if self.eat_op("=>") {
                match self.peek() {
                    Some(Tok::Ident(name)) => {
                        var = Some(name.clone());
                        self.locals.insert(name.clone());
                        self.at += 1;
                    }
                    _ => return Err(self.unexpected()),
                }
            }
            rescue = Some((var, self.body_until(&["ensure", "end"])?));
        }
        let ensure = if self.eat_word("ensure") {
            self.body_until(&["end"])?
        } else {
            Vec::new()
        };
        self.expect_word("end")?;
        Ok(Expr::Begin {
            body,
            rescue,
            ensure,
        })
    }

    /// `{ |a| ... }` or `do |a| ... end`, when one follows.
    pub(super) fn block(&mut self) -> Result<Option<Block>, SyntaxError> {
        let close = if self.is_op("{") {
            "}"
        } else if self.is_word("do") && !self.no_do {
            "end"
        } else {
            return Ok(None);
        };
        self.at += 1;
        let saved_no_do = std::mem::replace(&mut self.no_do, false);
        let mut params = Vec::new();
        self.skip_newlines();
        if self.eat_op("||") {
        } else if self.eat_op("|") {
            loop {
                self.eat_op("(");
                match self.peek() {
                    Some(Tok::Ident(name)) => {
                        params.push(name.clone());
                        self.at += 1;
                    }
                    _ => return Err(self.unexpected()),
                }
                self.eat_op(")");
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op("|")?;
        }
        self.locals.extend(params.iter().cloned());
        let body = self.stmts()?;
        self.no_do = saved_no_do;
        if close == "}" {
            self.expect_op("}")?;
        } else {
            self.expect_word("end")?;
        }
        Ok(Some(Block { params, body }))
    }
}

pub(super) fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Str(_) => "string literal".to_string(),
        Tok::Int(i) => format!("integer literal {i}"),
        Tok::Float(f) => format!("float literal {f}"),
        Tok::Sym(s) => format!("symbol :{s}"),
        Tok::Words(_) => "word list".to_string(),
        Tok::Ident(i) | Tok::Const(i) | Tok::Special(i) => format!("'{i}'"),
        Tok::Label(l) => format!("label '{l}:'"),
        Tok::Op(o) => format!("'{o}'"),
        Tok::Newline => "end-of-line".to_string(),
    }
}
