//! The syntax tree of the shell's Ruby.

/// A piece of an interpolated string: bytes, or code whose value's `to_s` goes in.
#[derive(Debug, Clone, PartialEq)]
pub enum StrPart {
    Bytes(Vec<u8>),
    Code(Vec<Expr>),
}

/// A block: `do |a, b| ... end` or `{ |a, b| ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub params: Vec<String>,
    pub body: Vec<Expr>,
}

/// An expression (in Ruby every statement is one). `pos` is a byte offset into the input,
/// for error messages.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Vec<StrPart>),
    Sym(String),
    Array(Vec<Expr>),
    Hash(Vec<(Expr, Expr)>),
    Range {
        from: Box<Expr>,
        to: Box<Expr>,
        exclusive: bool,
    },
    /// A name the parser knows to be a local variable.
    Var(String),
    /// A constant (`VERSIONS`, `Bytes`).
    Const(String),
    /// `scope::Name`.
    Scope(Box<Expr>, String),
    /// `[recv.]name[(args)] [block]`; with no receiver and no arguments it may also be a
    /// variable assigned at run time.
    Call {
        recv: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
        block: Option<Block>,
        pos: usize,
    },
    Index {
        recv: Box<Expr>,
        args: Vec<Expr>,
        pos: usize,
    },
    Assign(String, Box<Expr>),
    IndexAssign {
        recv: Box<Expr>,
        args: Vec<Expr>,
        value: Box<Expr>,
        pos: usize,
    },
    /// A binary operator other than `&&` and `||`.
    Binary {
        op: &'static str,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        pos: usize,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>, usize),
    If {
        cond: Box<Expr>,
        then: Vec<Expr>,
        otherwise: Vec<Expr>,
    },
    /// `while` (or `until`, with `negate`).
    While {
        cond: Box<Expr>,
        body: Vec<Expr>,
        negate: bool,
    },
    For {
        vars: Vec<String>,
        iter: Box<Expr>,
        body: Vec<Expr>,
    },
    /// `begin ... rescue [=> e] ... ensure ... end`.
    Begin {
        body: Vec<Expr>,
        rescue: Option<(Option<String>, Vec<Expr>)>,
        ensure: Vec<Expr>,
    },
    /// `( a; b )`.
    Seq(Vec<Expr>),
    Break(Option<Box<Expr>>),
    Next(Option<Box<Expr>>),
}
