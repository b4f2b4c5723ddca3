//! Methods on values: iteration with blocks, conversions, the table object.
//!
//! | receiver | methods |
//! |----------|---------|
//! | Integer | `times upto downto step to_s to_i to_f abs succ even? odd? zero?` |
//! | String | `length size upcase downcase reverse strip chomp to_i to_f to_s to_sym include? start_with? end_with? empty? split rjust ljust to_java_bytes bytes` |
//! | Array, Range, Hash | `each each_with_index map collect select filter reject find count length size first last include? empty? join sort reverse uniq sum min max to_a inject reduce each_slice keys values` |
//! | any | `nil? to_s inspect class == !=` |
//! | table (`get_table`) | every shell command taking a table first (`t.put 'r', 'f:q', 'v'`), `name`, `help` |
//! | Java | see [`super::java`] |

use super::ast::Block;
use super::eval::{Host, Interp};
use super::{java, ops, Flow, RubyError};
use crate::parse::Value;

type R = Result<Value, Flow>;

/// Items a collection holds, lazily for integer ranges.
pub fn items(v: &Value) -> Result<Box<dyn Iterator<Item = Value>>, Flow> {
    Ok(match v {
        Value::Array(items) => Box::new(items.clone().into_iter()),
        Value::Hash(pairs) => Box::new(
            pairs
                .clone()
                .into_iter()
                .map(|(k, v)| Value::Array(vec![k, v])),
        ),
        Value::Range {
            from,
            to,
            exclusive,
        } => match (from.as_ref(), to.as_ref()) {
            (Value::Int(a), Value::Int(b)) => {
                let end = if *exclusive { *b } else { b.saturating_add(1) };
                Box::new((*a..end).map(Value::Int))
            }
            (a, b) => Box::new(ops::range_items(a, b, *exclusive, 10_000_000)?.into_iter()),
        },
        other => {
            return Err(Flow::Raise(RubyError::no_method(format!(
                "undefined method `each' for {}",
                other.inspect()
            ))))
        }
    })
}

fn need_block<'a>(block: Option<&'a Block>, name: &str) -> Result<&'a Block, Flow> {
    block.ok_or_else(|| {
        Flow::Raise(RubyError::new(
            "ArgumentError",
            format!("{name} needs a block in Basalt's shell ({name} {{ |x| ... }})"),
        ))
    })
}

fn int_arg(args: &[Value], i: usize, name: &str) -> Result<i64, Flow> {
    match args.get(i) {
        Some(Value::Int(n)) => Ok(*n),
        other => Err(Flow::Raise(RubyError::new(
            "TypeError",
            format!(
                "{name}: expected an Integer, got {}",
                other.map_or("nothing".to_string(), Value::inspect)
            ),
        ))),
    }
}

fn no_method(name: &str, target: &Value) -> Flow {
    Flow::Raise(RubyError::no_method(format!(
        "undefined method `{name}' for {}:{}",
        target.inspect(),
        ops::class_name(target)
    )))
}

pub fn call(
    interp: &mut Interp,
    host: &mut dyn Host,
    target: Value,
    name: &str,
    args: Vec<Value>,
    block: Option<&Block>,
) -> R {
    // Methods every object has.
    match (name, args.as_slice()) {
        ("nil?", []) => return Ok(Value::Bool(target == Value::Nil)),
        ("to_s", []) if !matches!(target, Value::Int(_)) => {
            return Ok(Value::Str(ops::to_s(&target)))
        }
        ("inspect", []) => return Ok(Value::Str(target.inspect().into_bytes())),
        ("class", []) => return Ok(Value::Str(ops::class_name(&target).as_bytes().to_vec())),
        ("==", [other]) => return Ok(Value::Bool(ops::equal(&target, other))),
        ("!=", [other]) => return Ok(Value::Bool(!ops::equal(&target, other))),
        ("freeze" | "dup" | "clone" | "itself", []) => return Ok(target),
        _ => {}
    }
    match target {
        Value::Table(table) => table_method(host, table, name, args),
        Value::Java(obj) => java_method(obj, name, &args),
        Value::Int(i) => int_method(interp, host, i, name, &args, block),
        Value::Float(f) => float_method(f, name, &args),
        Value::Str(s) => super::strings::call(s, name, &args),
        Value::Array(_) | Value::Hash(_) | Value::Range { .. } => {
            super::collections::call(interp, host, target, name, args, block)
        }
        other => Err(no_method(name, &other)),
    }
}

fn table_method(host: &mut dyn Host, table: String, name: &str, args: Vec<Value>) -> R {
    match name {
        "name" => return Ok(Value::Str(table.into_bytes())),
        "help" => {
            return Ok(host
                .command("table_help", Vec::new())?
                .unwrap_or(Value::Nil))
        }
        // HBase's Hbase::Table keeps the Java client objects (`attr_reader :table`);
        // runbooks reach through them (`t.table.get_all_region_locations`). There is no
        // Java object here: say so rather than a bare "undefined method".
        "table" => {
            return Err(Flow::Raise(RubyError::no_method(format!(
                "Hbase::Table#{name} (the Java client object inside the table reference) is \
                 not supported by Basalt's shell; use the table's shell commands (t.scan, \
                 t.get, ...) or get_splits / list_regions"
            ))))
        }
        _ => {}
    }
    let mut argv = vec![Value::Table(table.clone())];
    argv.extend(args);
    match host.command(name, argv)? {
        Some(v) => Ok(v),
        None => Err(Flow::Raise(RubyError::no_method(format!(
            "undefined method `{name}' for Hbase::Table - {table}"
        )))),
    }
}

fn java_method(obj: java::JavaObject, name: &str, args: &[Value]) -> R {
    use java::JavaObject as J;
    Ok(match &obj {
        J::Package(p) if args.is_empty() => {
            if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                java::class_in(p, name)?
            } else {
                Value::Java(J::Package(format!("{p}.{name}")))
            }
        }
        J::Class(c) => java::call_static(c, name, args)?,
        _ if name == "toString" && args.is_empty() => Value::Str(
            obj.filter_bytes()
                .unwrap_or_else(|| obj.inspect().into_bytes()),
        ),
        _ => match java::call_on_filter(&obj, name, args) {
            Some(result) => Value::Java(result?),
            None => return Err(no_method(name, &Value::Java(obj))),
        },
    })
}

fn int_method(
    interp: &mut Interp,
    host: &mut dyn Host,
    i: i64,
    name: &str,
    args: &[Value],
    block: Option<&Block>,
) -> R {
    let iterate =
        |interp: &mut Interp, host: &mut dyn Host, it: Box<dyn Iterator<Item = Value>>| -> R {
            let block = need_block(block, name)?;
            Ok(interp
                .each(host, it, block, false, |_, _| Ok(()))?
                .unwrap_or(Value::Int(i)))
        };
    match (name, args) {
        ("times", []) => iterate(interp, host, Box::new((0..i.max(0)).map(Value::Int))),
        ("upto", [_]) => {
            let to = int_arg(args, 0, name)?;
            iterate(interp, host, Box::new((i..=to).map(Value::Int)))
        }
        ("downto", [_]) => {
            let to = int_arg(args, 0, name)?;
            iterate(interp, host, Box::new((to..=i).rev().map(Value::Int)))
        }
        ("step", [_, _]) => {
            let (to, by) = (int_arg(args, 0, name)?, int_arg(args, 1, name)?);
            if by == 0 {
                return Err(Flow::Raise(RubyError::new(
                    "ArgumentError",
                    "step can't be 0",
                )));
            }
            let it: Box<dyn Iterator<Item = Value>> = if by > 0 {
                Box::new((i..=to).step_by(by as usize).map(Value::Int))
            } else {
                Box::new(
                    (to..=i)
                        .rev()
                        .step_by(by.unsigned_abs() as usize)
                        .map(Value::Int),
                )
            };
            iterate(interp, host, it)
        }
        ("to_s", []) => Ok(Value::Str(i.to_string().into_bytes())),
        ("to_s", [Value::Int(radix)]) if (2..=36).contains(radix) => {
            Ok(Value::Str(radix_text(i, *radix as u32).into_bytes()))
        }
        ("to_i" | "to_int" | "floor" | "ceil" | "round", []) => Ok(Value::Int(i)),
        ("to_f", []) => Ok(Value::Float(i as f64)),
        ("abs", []) => Ok(Value::Int(i.checked_abs().unwrap_or(i64::MAX))),
        ("succ" | "next", []) => Ok(Value::Int(i.saturating_add(1))),
        ("pred", []) => Ok(Value::Int(i.saturating_sub(1))),
        ("even?", []) => Ok(Value::Bool(i % 2 == 0)),
        ("odd?", []) => Ok(Value::Bool(i % 2 != 0)),
        ("zero?", []) => Ok(Value::Bool(i == 0)),
        ("between?", [a, b]) => Ok(Value::Bool(
            ops::compare(&Value::Int(i), a)? != std::cmp::Ordering::Less
                && ops::compare(&Value::Int(i), b)? != std::cmp::Ordering::Greater,
        )),
        (op @ ("+" | "-" | "*" | "/" | "%" | "**" | "<" | ">" | "<=" | ">="), [b]) => {
            Ok(ops::binary(op, &Value::Int(i), b)?)
        }
        _ => Err(no_method(name, &Value::Int(i))),
    }
}

fn radix_text(mut i: i64, radix: u32) -> String {
    let negative = i < 0;
    let mut digits = Vec::new();
    loop {
        let d = (i % radix as i64).unsigned_abs() as u32;
        digits.push(std::char::from_digit(d, radix).unwrap_or('?'));
        i /= radix as i64;
        if i == 0 {
            break;
        }
    }
    if negative {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

fn float_method(f: f64, name: &str, args: &[Value]) -> R {
    Ok(match (name, args) {
        ("to_i" | "to_int" | "truncate", []) => Value::Int(f as i64),
        ("floor", []) => Value::Int(f.floor() as i64),
        ("ceil", []) => Value::Int(f.ceil() as i64),
        ("round", []) => Value::Int(f.round() as i64),
        ("round", [Value::Int(n)]) => {
            let scale = 10f64.powi(*n as i32);
            Value::Float((f * scale).round() / scale)
        }
        ("to_f", []) => Value::Float(f),
        ("abs", []) => Value::Float(f.abs()),
        ("nan?", []) => Value::Bool(f.is_nan()),
        (op @ ("+" | "-" | "*" | "/" | "%" | "**"), [b]) => ops::binary(op, &Value::Float(f), b)?,
        _ => return Err(no_method(name, &Value::Float(f))),
    })
}

/// `target[args]`.
pub fn index(target: &Value, args: &[Value]) -> Result<Value, RubyError> {
    match (target, args) {
        (Value::Array(items), [Value::Int(i)]) => Ok(at(items, *i).cloned().unwrap_or(Value::Nil)),
        (Value::Array(items), [Value::Int(start), Value::Int(len)]) => {
            let n = items.len() as i64;
            let s = if *start < 0 { start + n } else { *start };
            if s < 0 || s > n || *len < 0 {
                return Ok(Value::Nil);
            }
            let end = (s + len).min(n);
            Ok(Value::Array(items[s as usize..end as usize].to_vec()))
        }
        (Value::Hash(pairs), [key]) => Ok(pairs
            .iter()
            .rev()
            .find(|(k, _)| ops::equal(k, key))
            .map_or(Value::Nil, |(_, v)| v.clone())),
        (Value::Str(s), [Value::Int(i)]) => {
            let n = s.len() as i64;
            let i = if *i < 0 { i + n } else { *i };
            Ok(if (0..n).contains(&i) {
                Value::Str(vec![s[i as usize]])
            } else {
                Value::Nil
            })
        }
        (Value::Str(s), [Value::Int(start), Value::Int(len)]) => {
            let n = s.len() as i64;
            let st = if *start < 0 { start + n } else { *start };
            if st < 0 || st > n || *len < 0 {
                return Ok(Value::Nil);
            }
            let end = (st + len).min(n);
            Ok(Value::Str(s[st as usize..end as usize].to_vec()))
        }
        _ => Err(RubyError::no_method(format!(
            "Basalt's shell cannot index {} with {}",
            target.inspect(),
            Value::Array(args.to_vec()).inspect()
        ))),
    }
}

fn at(items: &[Value], i: i64) -> Option<&Value> {
    let n = items.len() as i64;
    let i = if i < 0 { i + n } else { i };
    usize::try_from(i).ok().and_then(|i| items.get(i))
}

/// `target[args] = v`: the updated value.
pub fn index_set(target: Value, args: &[Value], v: Value) -> Result<Value, Flow> {
    match (target, args) {
        (Value::Array(mut items), [Value::Int(i)]) => {
            let n = items.len() as i64;
            let idx = if *i < 0 { i + n } else { *i };
            let idx = usize::try_from(idx).map_err(|_| {
                Flow::Raise(RubyError::new(
                    "IndexError",
                    format!("index {i} too small for array"),
                ))
            })?;
            if idx >= items.len() {
                items.resize(idx + 1, Value::Nil);
            }
            items[idx] = v;
            Ok(Value::Array(items))
        }
        (Value::Hash(mut pairs), [key]) => {
            match pairs.iter_mut().find(|(k, _)| ops::equal(k, key)) {
                Some(slot) => slot.1 = v,
                None => pairs.push((key.clone(), v)),
            }
            Ok(Value::Hash(pairs))
        }
        (other, _) => Err(Flow::Raise(RubyError::no_method(format!(
            "undefined method `[]=' for {}",
            other.inspect()
        )))),
    }
}

/// Methods that change the receiver, applied to a variable's value: `(new value, result)`,
/// or `None` when `name` does not change `current`.
pub fn mutate(current: &Value, name: &str, args: &[Value]) -> Option<Result<(Value, Value), Flow>> {
    match (current, name) {
        (Value::Array(items), "push" | "<<" | "add" | "append") => {
            let mut items = items.clone();
            items.extend(args.iter().cloned());
            let v = Value::Array(items);
            // Java's `ArrayList#add` answers true; Ruby's `push` the array.
            let result = if name == "add" {
                Value::Bool(true)
            } else {
                v.clone()
            };
            Some(Ok((v, result)))
        }
        (Value::Array(items), "pop") if args.is_empty() => {
            let mut items = items.clone();
            let last = items.pop().unwrap_or(Value::Nil);
            Some(Ok((Value::Array(items), last)))
        }
        (Value::Array(items), "shift") if args.is_empty() => {
            let mut items = items.clone();
            let first = if items.is_empty() {
                Value::Nil
            } else {
                items.remove(0)
            };
            Some(Ok((Value::Array(items), first)))
        }
        (Value::Array(_) | Value::Hash(_), "clear") => {
            let empty = if matches!(current, Value::Array(_)) {
                Value::Array(Vec::new())
            } else {
                Value::Hash(Vec::new())
            };
            Some(Ok((empty.clone(), empty)))
        }
        (Value::Hash(_), "store") if args.len() == 2 => Some(
            index_set(current.clone(), &args[..1], args[1].clone()).map(|h| (h, args[1].clone())),
        ),
        (Value::Str(s), "concat" | "<<") => {
            let mut s = s.clone();
            for a in args {
                s.extend(ops::to_s(a));
            }
            let v = Value::Str(s);
            Some(Ok((v.clone(), v)))
        }
        (Value::Java(obj), _) => java::call_on_filter(obj, name, args)
            .map(|r| r.map(|o| (Value::Java(o), Value::Nil)).map_err(Flow::Raise)),
        _ => None,
    }
}
