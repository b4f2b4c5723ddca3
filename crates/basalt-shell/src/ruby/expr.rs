//! Expressions, loosest to tightest:
//!
//! | level | operators |
//! |-------|-----------|
//! | assignment | `x = e`, `x += e`, `a[i] = e` (right to left) |
//! | ternary | `c ? a : b` |
//! | range | `a..b`, `a...b` |
//! | or, and | `\|\|`, `&&` |
//! | equality | `==`, `!=`, `=~` |
//! | comparison | `<`, `<=`, `>`, `>=` |
//! | shift | `<<` (push) |
//! | additive, multiplicative | `+ -`, `* / %` |
//! | unary, power | `-x`, `!x`, `a ** b` |
//! | postfix | `.m(args) {block}`, `::Name`, `[i]` |
//!
//! A call without parentheses takes the rest of the line as its arguments (`put 't', 'r',
//! 'f:q', 'v'`); trailing `key => value` pairs (and `key: value`) form one hash argument.

use super::ast::{Expr, StrPart};
use super::lexer::{Part, Tok};
use super::parser::{parse_nested, Parser};
use crate::parse::SyntaxError;

/// Constructs Basalt's shell rejects, each named in its error.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("def", "method definitions (def)"),
    ("class", "class definitions"),
    ("module", "module definitions"),
    ("case", "case/when"),
    ("yield", "yield"),
    ("lambda", "lambdas"),
    ("proc", "procs"),
    ("redo", "redo"),
    ("retry", "retry"),
    ("super", "super"),
    ("alias", "alias"),
    ("undef", "undef"),
    ("defined?", "defined?"),
    ("loop", "loop (use while … end)"),
];

type PResult = Result<Expr, SyntaxError>;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> PResult {
        // `x = e` and `x op= e` on a local name.
        if let (Some(Tok::Ident(name)), Some(next)) = (self.peek().cloned(), self.token(1)) {
            if let Tok::Op(op @ ("=" | "+=" | "-=" | "*=" | "/=" | "||=" | "&&=" | "**=")) =
                next.tok
            {
                if !is_keyword(&name) {
                    let pos = self.pos();
                    self.at += 2;
                    self.skip_newlines();
                    self.locals.insert(name.clone());
                    let rhs = self.expr()?;
                    return Ok(Expr::Assign(
                        name.clone(),
                        Box::new(compound(op, &name, rhs, pos)),
                    ));
                }
            }
        }
        let lhs = self.ternary()?;
        if self.is_op("=") {
            if let Expr::Index { recv, args, pos } = lhs {
                self.at += 1;
                self.skip_newlines();
                let value = self.expr()?;
                return Ok(Expr::IndexAssign {
                    recv,
                    args,
                    value: Box::new(value),
                    pos,
                });
            }
            // `T = create 't', 'f'`: runbooks keep table references in constants; they
            // live with the local variables (Ruby only warns when one is reassigned).
            if let Expr::Const(name) = lhs {
                self.at += 1;
                self.skip_newlines();
                let value = self.expr()?;
                return Ok(Expr::Assign(name, Box::new(value)));
            }
            return Err(self.error("only local variables, constants and a[i] can be assigned to"));
        }
        Ok(lhs)
    }

    fn ternary(&mut self) -> PResult {
        let cond = self.range()?;
        if !self.eat_op("?") {
            return Ok(cond);
        }
        self.skip_newlines();
        let then = self.ternary()?;
        self.skip_newlines();
        self.expect_op(":")?;
        self.skip_newlines();
        let otherwise = self.ternary()?;
        Ok(Expr::If {
            cond: Box::new(cond),
            then: vec![then],
            otherwise: vec![otherwise],
        })
    }

    fn range(&mut self) -> PResult {
        let from = self.or()?;
        for (op, exclusive) in [("..", false), ("...", true)] {
            if self.eat_op(op) {
                let to = self.or()?;
                return Ok(Expr::Range {
                    from: Box::new(from),
                    to: Box::new(to),
                    exclusive,
                });
            }
        }
        Ok(from)
    }

    fn or(&mut self) -> PResult {
        let mut lhs = self.and()?;
        while self.eat_op("||") {
            self.skip_newlines();
            lhs = Expr::Or(Box::new(lhs), Box::new(self.and()?));
        }
        Ok(lhs)
    }

    fn and(&mut self) -> PResult {
        let mut lhs = self.not()?;
        while self.eat_op("&&") {
            self.skip_newlines();
            lhs = Expr::And(Box::new(lhs), Box::new(self.not()?));
        }
        Ok(lhs)
    }

    fn not(&mut self) -> PResult {
        if self.is_op("!") {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.binary(0)
    }

    /// Left-associative binary levels, loosest first.
    fn binary(&mut self, level: usize) -> PResult {
        const LEVELS: &[&[&str]] = &[
            &["==", "!=", "=~", "!~", "===", "<=>"],
            &["<", "<=", ">", ">="],
            &["<<"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut lhs = self.binary(level + 1)?;
        loop {
            let Some(Tok::Op(op)) = self.peek() else {
                return Ok(lhs);
            };
            let Some(op) = ops.iter().find(|o| **o == *op).copied() else {
                return Ok(lhs);
            };
            if op == "=~" || op == "!~" {
                return Err(
                    self.error("regular expressions (=~) are not supported by Basalt's shell")
                );
            }
            let pos = self.pos();
            self.at += 1;
            self.skip_newlines();
            let rhs = self.binary(level + 1)?;
            lhs = Expr::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                pos,
            };
        }
    }

    fn unary(&mut self) -> PResult {
        if self.is_op("-") {
            let pos = self.pos();
            self.at += 1;
            return match self.peek() {
                Some(Tok::Int(i)) if !self.tokens[self.at].space_before => {
                    let v = -*i;
                    self.at += 1;
                    self.power(Expr::Int(v))
                }
                Some(Tok::Float(f)) if !self.tokens[self.at].space_before => {
                    let v = -*f;
                    self.at += 1;
                    self.power(Expr::Float(v))
                }
                _ => Ok(Expr::Neg(Box::new(self.unary()?), pos)),
            };
        }
        if self.eat_op("+") {
            return self.unary();
        }
        if self.is_op("!") {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        let base = self.postfix()?;
        self.power(base)
    }

    fn power(&mut self, base: Expr) -> PResult {
        if self.is_op("**") {
            let pos = self.pos();
            self.at += 1;
            let rhs = self.unary()?;
            return Ok(Expr::Binary {
                op: "**",
                lhs: Box::new(base),
                rhs: Box::new(rhs),
                pos,
            });
        }
        Ok(base)
    }

    fn postfix(&mut self) -> PResult {
        let mut e = self.primary()?;
        loop {
            // A method chain may continue on the next line: `list\n  .each { … }`.
            let mut look = self.at;
            while matches!(self.tokens.get(look).map(|t| &t.tok), Some(Tok::Newline)) {
                look += 1;
            }
            if look > self.at && matches!(self.tokens.get(look).map(|t| &t.tok), Some(Tok::Op(".")))
            {
                self.at = look;
            }
            if self.eat_op(".") {
                self.skip_newlines();
                let pos = self.pos();
                let name = match self.peek() {
                    Some(Tok::Ident(n)) | Some(Tok::Const(n)) => n.clone(),
                    Some(Tok::Label(n)) => {
                        return Err(self.error(format!("unexpected label '{n}:'")));
                    }
                    _ => return Err(self.unexpected()),
                };
                self.at += 1;
                e = self.call_rest(Some(e), name, pos)?;
            } else if self.is_op("::") {
                self.at += 1;
                match self.peek() {
                    Some(Tok::Const(n)) => {
                        let n = n.clone();
                        self.at += 1;
                        e = Expr::Scope(Box::new(e), n);
                    }
                    Some(Tok::Ident(n)) => {
                        let (n, pos) = (n.clone(), self.pos());
                        self.at += 1;
                        e = self.call_rest(Some(e), n, pos)?;
                    }
                    _ => return Err(self.unexpected()),
                }
            } else if self.is_op("[") && !self.tokens[self.at].space_before {
                let pos = self.pos();
                self.at += 1;
                let args = self.list("]")?;
                e = Expr::Index {
                    recv: Box::new(e),
                    args,
                    pos,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult {
        let pos = self.pos();
        let Some(tok) = self.peek().cloned() else {
            return Err(self.unexpected());
        };
        self.at += 1;
        Ok(match tok {
            Tok::Int(i) => Expr::Int(i),
            Tok::Float(f) => Expr::Float(f),
            Tok::Sym(s) => Expr::Sym(s),
            Tok::Str(parts) => {
                let mut out = self.string(parts)?;
                // Ruby joins adjacent literals: 'a' 'b' is "ab".
                while let Some(Tok::Str(more)) = self.peek().cloned() {
                    self.at += 1;
                    out.extend(self.string(more)?);
                }
                Expr::Str(out)
            }
            Tok::Words(words) => Expr::Array(
                words
                    .into_iter()
                    .map(|w| Expr::Str(vec![StrPart::Bytes(w)]))
                    .collect(),
            ),
            Tok::Const(name) => {
                if self.is_op("(") && !self.tokens[self.at].space_before {
                    return Err(self.error(format!(
                        "{name}(...) calls are not supported by Basalt's shell"
                    )));
                }
                Expr::Const(name)
            }
            Tok::Special(name) => {
                self.at -= 1;
                return Err(self.error(format!(
                    "{name}: JRuby's global and instance variables (the shell's internals) are not supported by Basalt's shell"
                )));
            }
            Tok::Label(name) => {
                self.at -= 1;
                return Err(self.error(format!("unexpected label '{name}:'")));
            }
            Tok::Op("(") => {
                let saved = std::mem::replace(&mut self.no_do, false);
                let body = self.stmts();
                self.no_do = saved;
                let mut body = body?;
                self.skip_newlines();
                self.expect_op(")")?;
                if body.len() == 1 {
                    body.remove(0)
                } else {
                    Expr::Seq(body)
                }
            }
            Tok::Op("[") => Expr::Array(self.list("]")?),
            Tok::Op("{") => self.hash()?,
            Tok::Op("->") => {
                self.at -= 1;
                return Err(self.error("lambdas (->) are not supported by Basalt's shell"));
            }
            Tok::Op("<<") => {
                self.at -= 1;
                return Err(self.error("heredocs (<<EOF) are not supported by Basalt's shell"));
            }
            Tok::Op("/") => {
                self.at -= 1;
                return Err(
                    self.error("regular expression literals are not supported by Basalt's shell")
                );
            }
            Tok::Ident(word) => return self.word(word, pos),
            other => {
                self.at -= 1;
                let _ = other;
                return Err(self.unexpected());
            }
        })
    }

    fn word(&mut self, word: String, pos: usize) -> PResult {
        if let Some((_, what)) = UNSUPPORTED.iter().find(|(w, _)| *w == word) {
            self.at -= 1;
            return Err(self.error(format!("{what} is not supported by Basalt's shell")));
        }
        Ok(match word.as_str() {
            "nil" => Expr::Nil,
            "true" => Expr::Bool(true),
            "false" => Expr::Bool(false),
            "self" => {
                self.at -= 1;
                return Err(self.error("self is not supported by Basalt's shell"));
            }
            "if" => self.if_rest(false)?,
            "unless" => self.if_rest(true)?,
            "while" => self.while_rest(false)?,
            "until" => self.while_rest(true)?,
            "for" => self.for_rest()?,
            "begin" => self.begin_rest()?,
            "break" | "next" => {
                let value = if self.starts_value() {
                    Some(Box::new(self.expr()?))
                } else {
                    None
                };
                if word == "break" {
                    Expr::Break(value)
                } else {
                    Expr::Next(value)
                }
            }
            _ if is_keyword(&word) => {
                self.at -= 1;
                return Err(self.unexpected());
            }
            _ if self.locals.contains(&word) && !self.is_call_paren() => Expr::Var(word),
            _ => self.call_rest(None, word, pos)?,
        })
    }

    fn is_call_paren(&self) -> bool {
        self.is_op("(") && !self.tokens[self.at].space_before
    }

    /// Whether the next token can start a value on this line.
    fn starts_value(&self) -> bool {
        !matches!(
            self.peek(),
            None | Some(Tok::Newline)
                | Some(Tok::Op(";"))
                | Some(Tok::Op("}"))
                | Some(Tok::Op(")"))
        ) && !matches!(self.peek(), Some(Tok::Ident(w)) if matches!(w.as_str(), "if" | "unless" | "end" | "while" | "until"))
    }

    /// After a method name: `(args)`, or command arguments to the end of the line, then a
    /// block.
    pub(super) fn call_rest(&mut self, recv: Option<Expr>, name: String, pos: usize) -> PResult {
        let mut args = Vec::new();
        if self.is_call_paren() {
            self.at += 1;
            args = self.args(")")?;
        } else if self.starts_command_arg() {
            args = self.args("")?;
        }
        let block = self.block()?;
        Ok(Expr::Call {
            recv: recv.map(Box::new),
            name,
            args,
            block,
            pos,
        })
    }

    /// Whether the token after a method name starts an argument (Ruby's command call).
    fn starts_command_arg(&self) -> bool {
        let Some(t) = self.token(0) else { return false };
        if !t.space_before {
            return false;
        }
        let tight_next = self.token(1).is_some_and(|n| !n.space_before);
        match &t.tok {
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::Sym(_) | Tok::Words(_) => true,
            Tok::Const(_) | Tok::Label(_) | Tok::Special(_) => true,
            Tok::Ident(w) => {
                !is_keyword(w) || matches!(w.as_str(), "nil" | "true" | "false" | "not")
            }
            Tok::Op("[") | Tok::Op("(") | Tok::Op("!") | Tok::Op("->") => true,
            Tok::Op("-") | Tok::Op("*") | Tok::Op("&") | Tok::Op("::") | Tok::Op("/") => tight_next,
            _ => false,
        }
    }

    /// Arguments up to `close` (`""`: to the end of the line); `k => v` pairs and `k: v`
    /// labels form one hash.
    fn args(&mut self, close: &str) -> Result<Vec<Expr>, SyntaxError> {
        let mut args = Vec::new();
        let mut pairs: Option<Vec<(Expr, Expr)>> = None;
        let in_parens = !close.is_empty();
        loop {
            if in_parens {
                self.skip_newlines();
                if self.eat_op(close) {
                    break;
                }
            }
            if let Some(Tok::Label(key)) = self.peek().cloned() {
                self.at += 1;
                self.skip_newlines();
                let value = self.expr_no_stmt()?;
                pairs
                    .get_or_insert_with(Vec::new)
                    .push((Expr::Sym(key), value));
            } else {
                let value = self.expr_no_stmt()?;
                if self.eat_op("=>") {
                    self.skip_newlines();
                    let v = self.expr_no_stmt()?;
                    pairs.get_or_insert_with(Vec::new).push((value, v));
                } else {
                    if let Some(p) = pairs.take() {
                        args.push(Expr::Hash(p));
                    }
                    args.push(value);
                }
            }
            if in_parens {
                self.skip_newlines();
            }
            if self.eat_op(",") {
                self.skip_newlines();
                continue;
            }
            if in_parens {
                self.expect_op(close)?;
            }
            break;
        }
        if let Some(p) = pairs {
            args.push(Expr::Hash(p));
        }
        Ok(args)
    }

    /// An argument: an expression, without `and`/`or` or statement modifiers.
    fn expr_no_stmt(&mut self) -> PResult {
        if self.eat_word("not") {
            return Ok(Expr::Not(Box::new(self.expr()?)));
        }
        self.expr()
    }

    /// Comma-separated expressions up to `close`; newlines and a trailing comma allowed.
    fn list(&mut self, close: &str) -> Result<Vec<Expr>, SyntaxError> {
        let mut out = Vec::new();
        loop {
            self.skip_newlines();
            if self.eat_op(close) {
                return Ok(out);
            }
            out.push(self.expr_no_stmt()?);
            self.skip_newlines();
            if !self.eat_op(",") {
                self.skip_newlines();
                self.expect_op(close)?;
                return Ok(out);
            }
        }
    }

    fn hash(&mut self) -> PResult {
        let mut pairs = Vec::new();
        loop {
            self.skip_newlines();
            if self.eat_op("}") {
                return Ok(Expr::Hash(pairs));
            }
            if let Some(Tok::Label(key)) = self.peek().cloned() {
                self.at += 1;
                self.skip_newlines();
                pairs.push((Expr::Sym(key), self.expr_no_stmt()?));
            } else {
                let k = self.expr_no_stmt()?;
                self.skip_newlines();
                self.expect_op("=>")?;
                self.skip_newlines();
                pairs.push((k, self.expr_no_stmt()?));
            }
            self.skip_newlines();
            if !self.eat_op(",") {
                self.skip_newlines();
                self.expect_op("}")?;
                return Ok(Expr::Hash(pairs));
            }
        }
    }

    fn string(&mut self, parts: Vec<Part>) -> Result<Vec<StrPart>, SyntaxError> {
        parts
            .into_iter()
            .map(|p| match p {
                Part::Bytes(b) => Ok(StrPart::Bytes(b)),
                Part::Code(code, at) => Ok(StrPart::Code(parse_nested(
                    self.src,
                    &code,
                    self.offset + at,
                    &self.locals,
                )?)),
            })
            .collect()
    }
}

fn compound(op: &'static str, name: &str, rhs: Expr, pos: usize) -> Expr {
    let var = || {
        Box::new(Expr::Call {
            recv: None,
            name: name.to_string(),
            args: Vec::new(),
            block: None,
            pos,
        })
    };
    match op {
        "=" => rhs,
        "||=" => Expr::Or(var(), Box::new(rhs)),
        "&&=" => Expr::And(var(), Box::new(rhs)),
        _ => Expr::Binary {
            op: match op {
                "+=" => "+",
                "-=" => "-",
                "*=" => "*",
                "/=" => "/",
                _ => "**",
            },
            lhs: var(),
            rhs: Box::new(rhs),
            pos,
        },
    }
}

/// Ruby's reserved words.
pub(super) fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "unless"
            | "while"
            | "until"
            | "for"
            | "in"
            | "do"
            | "end"
            | "then"
            | "else"
            | "elsif"
            | "begin"
            | "rescue"
            | "ensure"
            | "and"
            | "or"
            | "not"
            | "nil"
            | "true"
            | "false"
            | "self"
            | "break"
            | "next"
            | "def"
            | "class"
            | "module"
            | "case"
            | "when"
            | "return"
            | "yield"
            | "redo"
            | "retry"
            | "super"
            | "alias"
            | "undef"
    )
}
