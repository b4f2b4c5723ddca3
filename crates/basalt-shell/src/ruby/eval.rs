//! The tree-walking evaluator. It does no I/O of its own: shell commands, printing and
//! sleeping go through a [`Host`], so the same code runs over a real connection or a test
//! double.

use super::ast::{Block, Expr, StrPart};
use super::{java, ops, Flow, RubyError};
use crate::parse::Value;
use std::collections::HashMap;

/// Iterations one loop may run (a runaway `while true` ends with an error, not a hang).
pub const ITERATIONS_MAX: u64 = 100_000_000;

/// What the evaluator needs from the shell around it.
pub trait Host {
    /// Runs shell command `name` (printing its output); `Ok(None)` when there is none.
    fn command(&mut self, name: &str, args: Vec<Value>) -> Result<Option<Value>, Flow>;
    fn write(&mut self, text: &[u8]) -> Result<(), Flow>;
    fn sleep(&mut self, seconds: f64) -> Result<(), Flow>;
    /// The user pressed Ctrl-C: loops stop.
    fn interrupted(&self) -> bool;
}

/// The interpreter's state: variables, kept across inputs as IRB keeps them.
#[derive(Debug, Default)]
pub struct Interp {
    pub vars: HashMap<String, Value>,
    /// The status `exit [code]` asked for.
    pub exit_code: i32,
}

type R = Result<Value, Flow>;

/// Java package roots: `org.apache...`, `java.util...`.
const PACKAGE_ROOTS: &[&str] = &["org", "java", "javax", "com"];

impl Interp {
    /// Runs statements; the value of the last.
    pub fn run(&mut self, program: &[Expr], host: &mut dyn Host) -> R {
        let mut last = Value::Nil;
        for e in program {
            last = self.eval(e, host)?;
        }
        Ok(last)
    }

    pub(super) fn eval(&mut self, e: &Expr, host: &mut dyn Host) -> R {
        Ok(match e {
            Expr::Nil => Value::Nil,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Int(*i),
            Expr::Float(f) => Value::Float(*f),
            Expr::Sym(s) => Value::Symbol(s.clone()),
            Expr::Str(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    match p {
                        StrPart::Bytes(b) => out.extend_from_slice(b),
                        StrPart::Code(code) => out.extend(ops::to_s(&self.run(code, host)?)),
                    }
                }
                Value::Str(out)
            }
            Expr::Array(items) => Value::Array(self.values(items, host)?),
            Expr::Hash(pairs) => {
                let mut out = Vec::new();
                for (k, v) in pairs {
                    out.push((self.eval(k, host)?, self.eval(v, host)?));
                }
                Value::Hash(out)
            }
            Expr::Range {
                from,
                to,
                exclusive,
            } => Value::Range {
                from: Box::new(self.eval(from, host)?),
                to: Box::new(self.eval(to, host)?),
                exclusive: *exclusive,
            },
            Expr::Var(name) => match self.vars.get(name) {
                Some(v) => v.clone(),
                None => Value::Nil,
            },
            Expr::Const(name) => match self.vars.get(name) {
                Some(v) => v.clone(),
                None => constant(name)?,
            },
            Expr::Scope(scope, name) => match self.eval(scope, host)? {
                Value::Java(java::JavaObject::Class(c)) => java::scope(&c, name)?,
                other => {
                    return Err(raise(RubyError::new(
                        "TypeError",
                        format!("{} is not a class/module", other.inspect()),
                    )))
                }
            },
            Expr::Call {
                recv,
                name,
                args,
                block,
                ..
            } => self.call(recv.as_deref(), name, args, block.as_ref(), host)?,
            Expr::Index { recv, args, .. } => {
                let target = self.eval(recv, host)?;
                let args = self.values(args, host)?;
                super::methods::index(&target, &args)?
            }
            Expr::Assign(name, value) => {
                let v = self.eval(value, host)?;
                self.vars.insert(name.clone(), v.clone());
                v
            }
            Expr::IndexAssign {
                recv, args, value, ..
            } => {
                let name = var_name(recv).ok_or_else(|| {
                    raise(RubyError::new(
                        "NotImplementedError",
                        "Basalt's shell assigns a[i] = v only on a variable",
                    ))
                })?;
                let args = self.values(args, host)?;
                let v = self.eval(value, host)?;
                let target = self.lookup(&name)?;
                let updated = super::methods::index_set(target, &args, v.clone())?;
                self.vars.insert(name, updated);
                v
            }
            Expr::Binary { op, lhs, rhs, .. } => {
                if *op == "<<" {
                    if let Some(name) = var_name(lhs).filter(|n| self.vars.contains_key(n)) {
                        let rhs = self.eval(rhs, host)?;
                        let current = self.lookup(&name)?;
                        let updated = ops::binary("<<", &current, &rhs)?;
                        self.vars.insert(name, updated.clone());
                        return Ok(updated);
                    }
                }
                let a = self.eval(lhs, host)?;
                let b = self.eval(rhs, host)?;
                ops::binary(op, &a, &b)?
            }
            Expr::And(a, b) => {
                let a = self.eval(a, host)?;
                if ops::truthy(&a) {
                    self.eval(b, host)?
                } else {
                    a
                }
            }
            Expr::Or(a, b) => {
                let a = self.eval(a, host)?;
                if ops::truthy(&a) {
                    a
                } else {
                    self.eval(b, host)?
                }
            }
            Expr::Not(a) => Value::Bool(!ops::truthy(&self.eval(a, host)?)),
            Expr::Neg(a, _) => match self.eval(a, host)? {
                Value::Int(i) => Value::Int(
                    i.checked_neg()
                        .ok_or_else(|| raise(RubyError::new("RangeError", "integer overflow")))?,
                ),
                Value::Float(f) => Value::Float(-f),
                other => {
                    return Err(raise(RubyError::no_method(format!(
                        "undefined method `-@' for {}",
                        other.inspect()
                    ))))
                }
            },
            Expr::If {
                cond,
                then,
                otherwise,
            } => {
                if ops::truthy(&self.eval(cond, host)?) {
                    self.run(then, host)?
                } else {
                    self.run(otherwise, host)?
                }
            }
            Expr::While { cond, body, negate } => {
                let mut n: u64 = 0;
                loop {
                    check_loop(host, &mut n)?;
                    if ops::truthy(&self.eval(cond, host)?) == *negate {
                        break;
                    }
                    match self.run(body, host) {
                        Ok(_) | Err(Flow::Next(_)) => {}
                        Err(Flow::Break(_)) => break,
                        Err(other) => return Err(other),
                    }
                }
                Value::Nil
            }
            Expr::For { vars, iter, body } => {
                let iterable = self.eval(iter, host)?;
                let block = Block {
                    params: vars.clone(),
                    body: body.clone(),
                };
                let items = super::methods::items(&iterable)?;
                // `for` variables outlive the loop, unlike block parameters.
                match self.each(host, items, &block, true, |_, _| Ok(()))? {
                    Some(v) => v,
                    None => iterable,
                }
            }
            Expr::Begin {
                body,
                rescue,
                ensure,
            } => {
                let result = match (self.run(body, host), rescue) {
                    (Err(Flow::Raise(e)), Some((var, handler))) => {
                        if let Some(var) = var {
                            self.vars
                                .insert(var.clone(), Value::Str(e.message.into_bytes()));
                        }
                        self.run(handler, host)
                    }
                    (Err(Flow::Failed { error, .. }), Some((var, handler))) => {
                        if let Some(var) = var {
                            let text = format!("{error:?}");
                            self.vars.insert(var.clone(), Value::Str(text.into_bytes()));
                        }
                        self.run(handler, host)
                    }
                    (other, _) => other,
                };
                self.run(ensure, host)?;
                result?
            }
            Expr::Seq(body) => self.run(body, host)?,
            Expr::Break(v) => {
                let v = match v {
                    Some(e) => self.eval(e, host)?,
                    None => Value::Nil,
                };
                return Err(Flow::Break(v));
            }
            Expr::Next(v) => {
                let v = match v {
                    Some(e) => self.eval(e, host)?,
                    None => Value::Nil,
                };
                return Err(Flow::Next(v));
            }
        })
    }

    pub(super) fn values(
        &mut self,
        exprs: &[Expr],
        host: &mut dyn Host,
    ) -> Result<Vec<Value>, Flow> {
        exprs.iter().map(|e| self.eval(e, host)).collect()
    }

    fn lookup(&self, name: &str) -> R {
        self.vars.get(name).cloned().ok_or_else(|| {
            raise(RubyError::name(format!(
                "undefined local variable or method `{name}' for main:Object"
            )))
        })
    }

    fn call(
        &mut self,
        recv: Option<&Expr>,
        name: &str,
        args: &[Expr],
        block: Option<&Block>,
        host: &mut dyn Host,
    ) -> R {
        let Some(recv) = recv else {
            return self.call_function(name, args, block, host);
        };
        // Methods that change the object held in a variable: `rows << r`, `list.add(f)`.
        if let Some(var) = var_name(recv).filter(|n| self.vars.contains_key(n)) {
            let current = self.lookup(&var)?;
            let argv = self.values(args, host)?;
            if let Some(result) = super::methods::mutate(&current, name, &argv) {
                let (updated, returned) = result?;
                self.vars.insert(var, updated);
                return Ok(returned);
            }
            return self.call_method(current, name, argv, block, host);
        }
        let target = self.eval(recv, host)?;
        let argv = self.values(args, host)?;
        self.call_method(target, name, argv, block, host)
    }

    fn call_function(
        &mut self,
        name: &str,
        args: &[Expr],
        block: Option<&Block>,
        host: &mut dyn Host,
    ) -> R {
        if args.is_empty() && block.is_none() {
            if let Some(v) = self.vars.get(name) {
                return Ok(v.clone());
            }
            if PACKAGE_ROOTS.contains(&name) {
                return Ok(Value::Java(java::JavaObject::Package(name.to_string())));
            }
        }
        if name == "include" {
            // `include Java`: JRuby's Java integration, always on here.
            return Ok(Value::Nil);
        }
        let argv = self.values(args, host)?;
        if let Some(v) = super::builtins::call(self, name, &argv, host)? {
            return Ok(v);
        }
        match host.command(name, argv)? {
            Some(v) => Ok(v),
            None if args.is_empty() => Err(raise(RubyError::name(format!(
                "undefined local variable or method `{name}' for main:Object"
            )))),
            None => Err(raise(RubyError::no_method(format!(
                "undefined method `{name}' for main:Object"
            )))),
        }
    }

    fn call_method(
        &mut self,
        target: Value,
        name: &str,
        args: Vec<Value>,
        block: Option<&Block>,
        host: &mut dyn Host,
    ) -> R {
        super::methods::call(self, host, target, name, args, block)
    }

    /// Runs `block` over `items`; `f` sees each item and the block's value. Returns the
    /// value of a `break`, if one ran. With `keep_vars` the parameters stay set afterwards.
    pub(super) fn each(
        &mut self,
        host: &mut dyn Host,
        items: Box<dyn Iterator<Item = Value>>,
        block: &Block,
        keep_vars: bool,
        mut f: impl FnMut(&Value, Value) -> Result<(), Flow>,
    ) -> Result<Option<Value>, Flow> {
        let saved: Vec<(String, Option<Value>)> = block
            .params
            .iter()
            .map(|p| (p.clone(), self.vars.get(p).cloned()))
            .collect();
        let mut n: u64 = 0;
        let mut outcome = Ok(None);
        for item in items {
            if let Err(e) = check_loop(host, &mut n) {
                outcome = Err(e);
                break;
            }
            match self.call_block(block, std::slice::from_ref(&item), host) {
                Ok(v) => {
                    if let Err(e) = f(&item, v) {
                        outcome = Err(e);
                        break;
                    }
                }
                Err(Flow::Break(v)) => {
                    outcome = Ok(Some(v));
                    break;
                }
                Err(other) => {
                    outcome = Err(other);
                    break;
                }
            }
        }
        if !keep_vars {
            for (name, old) in saved {
                match old {
                    Some(v) => self.vars.insert(name, v),
                    None => self.vars.remove(&name),
                };
            }
        }
        outcome
    }

    /// Runs a block once with `args` bound to its parameters (an array is spread over
    /// several parameters, as Ruby does for `|k, v|`).
    pub(super) fn call_block(&mut self, block: &Block, args: &[Value], host: &mut dyn Host) -> R {
        let spread: Vec<Value> = match args {
            [Value::Array(items)] if block.params.len() > 1 => items.clone(),
            other => other.to_vec(),
        };
        for (i, p) in block.params.iter().enumerate() {
            self.vars
                .insert(p.clone(), spread.get(i).cloned().unwrap_or(Value::Nil));
        }
        match self.run(&block.body, host) {
            Err(Flow::Next(v)) => Ok(v),
            other => other,
        }
    }
}

fn check_loop(host: &mut dyn Host, n: &mut u64) -> Result<(), Flow> {
    *n += 1;
    if *n > ITERATIONS_MAX {
        return Err(raise(RubyError::new(
            "RangeError",
            format!("loop ran more than {ITERATIONS_MAX} times (Basalt's shell's limit)"),
        )));
    }
    if host.interrupted() {
        return Err(raise(RubyError::new(
            "Interrupt",
            format!("interrupted after {} iteration(s)", *n - 1),
        )));
    }
    Ok(())
}

pub(super) fn raise(e: RubyError) -> Flow {
    Flow::Raise(e)
}

/// The variable an expression names, if it is a bare name.
fn var_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Var(n) => Some(n.clone()),
        Expr::Call {
            recv: None,
            name,
            args,
            block: None,
            ..
        } if args.is_empty() => Some(name.clone()),
        _ => None,
    }
}

/// A bare constant: the shell's (`VERSIONS` stands for its name), or a Java class.
fn constant(name: &str) -> Result<Value, RubyError> {
    if crate::constants::is_known(name) {
        return Ok(Value::Const(name.to_string()));
    }
    if let Some(pkg) = java::package_of(name) {
        return Ok(Value::Java(java::JavaObject::Class(format!(
            "{pkg}.{name}"
        ))));
    }
    Err(RubyError::name(format!("uninitialized constant {name}")))
}
