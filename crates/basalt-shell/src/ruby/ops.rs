//! Operators, truthiness, `to_s` and ranges.
//!
//! | expression | value |
//! |------------|-------|
//! | `7 / 2`, `-7 / 2`, `7 % -3` | `3`, `-4`, `-2` (Ruby floors) |
//! | `1 + 2.5`, `2 ** 10` | `3.5`, `1024` |
//! | `'a' + 'b'`, `'ab' * 2`, `[1] + [2]` | `"ab"`, `"abab"`, `[1, 2]` |
//! | `1 == 1.0`, `'a' < 'b'` | `true`, `true` |
//! | `nil`, `false` | false in conditions; everything else is true (`0` too) |

use super::RubyError;
use crate::parse::Value;
use std::cmp::Ordering;

/// Ruby's truthiness.
pub fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Nil | Value::Bool(false))
}

/// `to_s`: what `puts` and `"#{v}"` print.
pub fn to_s(v: &Value) -> Vec<u8> {
    match v {
        Value::Str(b) => b.clone(),
        Value::Nil => Vec::new(),
        Value::Symbol(s) | Value::Const(s) | Value::Ident(s) => s.as_bytes().to_vec(),
        Value::Range {
            from,
            to,
            exclusive,
        } => {
            let mut out = to_s(from);
            out.extend_from_slice(if *exclusive { b"..." } else { b".." });
            out.extend(to_s(to));
            out
        }
        other => other.inspect().into_bytes(),
    }
}

fn overflow() -> RubyError {
    RubyError::new(
        "RangeError",
        "integer overflow (Basalt's shell computes with 64-bit integers)",
    )
}

fn type_error(op: &str, a: &Value, b: &Value) -> RubyError {
    RubyError::new(
        "TypeError",
        format!("cannot apply {op} to {} and {}", a.inspect(), b.inspect()),
    )
}

/// A binary operator.
pub fn binary(op: &str, a: &Value, b: &Value) -> Result<Value, RubyError> {
    use Value::{Array, Float, Int, Str};
    Ok(match (op, a, b) {
        ("==", _, _) => Value::Bool(equal(a, b)),
        ("!=", _, _) => Value::Bool(!equal(a, b)),
        ("<" | "<=" | ">" | ">=" | "<=>", _, _) => {
            let ord = compare(a, b)?;
            match op {
                "<" => Value::Bool(ord == Ordering::Less),
                "<=" => Value::Bool(ord != Ordering::Greater),
                ">" => Value::Bool(ord == Ordering::Greater),
                ">=" => Value::Bool(ord != Ordering::Less),
                _ => Int(ord as i64),
            }
        }
        (_, Int(x), Int(y)) => Int(int_op(op, *x, *y)?),
        (_, Int(_) | Float(_), Int(_) | Float(_)) => {
            let (x, y) = (as_f64(a), as_f64(b));
            Float(match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" => x / y,
                "%" => x - y * (x / y).floor(),
                "**" => x.powf(y),
                _ => return Err(type_error(op, a, b)),
            })
        }
        ("+", Str(x), Str(y)) => Str([x.as_slice(), y.as_slice()].concat()),
        ("*", Str(x), Int(n)) => Str(x.repeat(
            usize::try_from(*n)
                .map_err(|_| RubyError::new("ArgumentError", "negative argument"))?,
        )),
        ("+", Array(x), Array(y)) => Array([x.as_slice(), y.as_slice()].concat()),
        ("-", Array(x), Array(y)) => Array(x.iter().filter(|v| !y.contains(v)).cloned().collect()),
        ("<<", Str(x), other) => Str([x.as_slice(), &to_s(other)].concat()),
        ("<<", Array(x), other) => Array([x.as_slice(), std::slice::from_ref(other)].concat()),
        ("+", Str(_), other) | ("+", other, Str(_)) => {
            return Err(RubyError::new(
                "TypeError",
                format!(
                    "no implicit conversion of {} into String",
                    class_name(other)
                ),
            ))
        }
        _ => return Err(type_error(op, a, b)),
    })
}

fn int_op(op: &str, x: i64, y: i64) -> Result<i64, RubyError> {
    let zero = || RubyError::new("ZeroDivisionError", "divided by 0");
    match op {
        "+" => x.checked_add(y).ok_or_else(overflow),
        "-" => x.checked_sub(y).ok_or_else(overflow),
        "*" => x.checked_mul(y).ok_or_else(overflow),
        "/" => {
            if y == 0 {
                return Err(zero());
            }
            let q = x.checked_div(y).ok_or_else(overflow)?;
            Ok(if x % y != 0 && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        }
        "%" => {
            if y == 0 {
                return Err(zero());
            }
            let r = x.checked_rem(y).ok_or_else(overflow)?;
            Ok(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }
        "**" => u32::try_from(y)
            .ok()
            .and_then(|e| x.checked_pow(e))
            .ok_or_else(overflow),
        _ => Err(RubyError::no_method(format!(
            "undefined method `{op}' for {x}:Integer"
        ))),
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

/// Ruby's `==` (an integer equals the same float).
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            as_f64(a) == as_f64(b)
        }
        (Value::Str(x), Value::Const(y)) | (Value::Const(y), Value::Str(x)) => x == y.as_bytes(),
        _ => a == b,
    }
}

/// `<=>` for numbers and strings; other pairs cannot be compared.
pub fn compare(a: &Value, b: &Value) -> Result<Ordering, RubyError> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => as_f64(a)
            .partial_cmp(&as_f64(b))
            .ok_or_else(|| RubyError::new("ArgumentError", "comparison with NaN failed")),
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        _ => Err(RubyError::new(
            "ArgumentError",
            format!(
                "comparison of {} with {} failed",
                class_name(a),
                class_name(b)
            ),
        )),
    }
}

/// The Ruby class name of a value, for messages and `.class`.
pub fn class_name(v: &Value) -> &'static str {
    match v {
        Value::Str(_) | Value::Const(_) => "String",
        Value::Int(_) => "Integer",
        Value::Float(_) => "Float",
        Value::Bool(true) => "TrueClass",
        Value::Bool(false) => "FalseClass",
        Value::Nil => "NilClass",
        Value::Ident(_) => "Object",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
        Value::Table(_) => "Hbase::Table",
        Value::Symbol(_) => "Symbol",
        Value::Range { .. } => "Range",
        Value::Java(_) => "JavaProxy",
    }
}

/// The items of a range: integers, or strings stepped as `String#succ` does for digits and
/// single letters. At most `max` items.
pub fn range_items(
    from: &Value,
    to: &Value,
    exclusive: bool,
    max: usize,
) -> Result<Vec<Value>, RubyError> {
    let too_long = || {
        RubyError::new(
            "RangeError",
            format!("range has more than {max} items (Basalt's shell's limit per loop)"),
        )
    };
    match (from, to) {
        (Value::Int(a), Value::Int(b)) => {
            let end = if exclusive { *b } else { b.saturating_add(1) };
            if end > *a && (end - a) as u128 > max as u128 {
                return Err(too_long());
            }
            Ok((*a..end).map(Value::Int).collect())
        }
        (Value::Str(a), Value::Str(b)) => {
            let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
            if digits(a) && digits(b) {
                let (x, y): (u64, u64) =
                    (text(a).parse().unwrap_or(0), text(b).parse().unwrap_or(0));
                let end = if exclusive { y } else { y.saturating_add(1) };
                if end > x && end - x > max as u64 {
                    return Err(too_long());
                }
                let width = a.len();
                return Ok((x..end)
                    .map(|n| Value::Str(format!("{n:0width$}").into_bytes()))
                    .filter(|v| matches!(v, Value::Str(s) if s.len() <= b.len()))
                    .collect());
            }
            if a.len() == 1
                && b.len() == 1
                && a[0].is_ascii_alphabetic()
                && b[0].is_ascii_alphabetic()
            {
                let end = if exclusive {
                    b[0]
                } else {
                    b[0].saturating_add(1)
                };
                return Ok((a[0]..end).map(|c| Value::Str(vec![c])).collect());
            }
            Err(RubyError::new(
                "TypeError",
                "Basalt's shell iterates string ranges of digits ('1'..'10') or single letters ('a'..'z') only",
            ))
        }
        _ => Err(RubyError::new(
            "TypeError",
            format!("can't iterate from {}", class_name(from)),
        )),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
