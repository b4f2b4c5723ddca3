//! Methods of arrays, hashes and ranges, most with blocks.

use super::ast::Block;
use super::eval::{Host, Interp};
use super::methods::items;
use super::{ops, Flow, RubyError};
use crate::parse::Value;

type R = Result<Value, Flow>;

fn need<'a>(block: Option<&'a Block>, name: &str) -> Result<&'a Block, Flow> {
    block.ok_or_else(|| {
        Flow::Raise(RubyError::new(
            "ArgumentError",
            format!("{name} needs a block in Basalt's shell ({name} {{ |x| ... }})"),
        ))
    })
}

/// Materialises a collection (ranges up to ten million items).
fn list(target: &Value) -> Result<Vec<Value>, Flow> {
    Ok(items(target)?.take(10_000_001).collect::<Vec<_>>()).and_then(|v| {
        if v.len() > 10_000_000 {
            Err(Flow::Raise(RubyError::new(
                "RangeError",
                "collection has more than 10000000 items (Basalt's shell's limit)",
            )))
        } else {
            Ok(v)
        }
    })
}

pub fn call(
    interp: &mut Interp,
    host: &mut dyn Host,
    target: Value,
    name: &str,
    args: Vec<Value>,
    block: Option<&Block>,
) -> R {
    // Hash-only methods first.
    if let Value::Hash(pairs) = &target {
        match (name, args.as_slice()) {
            ("keys", []) => {
                return Ok(Value::Array(pairs.iter().map(|(k, _)| k.clone()).collect()))
            }
            ("values", []) => {
                return Ok(Value::Array(pairs.iter().map(|(_, v)| v.clone()).collect()))
            }
            ("key?" | "has_key?" | "include?" | "member?", [k]) => {
                return Ok(Value::Bool(pairs.iter().any(|(key, _)| ops::equal(key, k))))
            }
            ("fetch" | "[]", [k]) => {
                return Ok(super::methods::index(&target, std::slice::from_ref(k))?)
            }
            ("merge", [Value::Hash(more)]) => {
                let mut out = target.clone();
                for (k, v) in more {
                    out = super::methods::index_set(out, std::slice::from_ref(k), v.clone())?;
                }
                return Ok(out);
            }
            ("each_pair", []) => return call(interp, host, target, "each", args, block),
            _ => {}
        }
    }
    if let Value::Range {
        from,
        to,
        exclusive,
    } = &target
    {
        match (name, args.as_slice()) {
            ("include?" | "cover?" | "member?" | "===", [v]) => {
                let above = ops::compare(v, from)? != std::cmp::Ordering::Less;
                let below = match ops::compare(v, to)? {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Equal => !exclusive,
                    std::cmp::Ordering::Greater => false,
                };
                return Ok(Value::Bool(above && below));
            }
            ("step", [Value::Int(by)]) if *by > 0 => {
                let all = items(&target)?.step_by(*by as usize);
                let block = need(block, name)?;
                return Ok(interp
                    .each(host, Box::new(all), block, false, |_, _| Ok(()))?
                    .unwrap_or(target));
            }
            ("first" | "begin", []) => return Ok((**from).clone()),
            ("last" | "end", []) if !exclusive => return Ok((**to).clone()),
            _ => {}
        }
    }
    match (name, args.as_slice()) {
        ("each", []) => {
            let block = need(block, name)?;
            let it = items(&target)?;
            Ok(interp
                .each(host, it, block, false, |_, _| Ok(()))?
                .unwrap_or(target))
        }
        ("each_with_index", []) => {
            let block = need(block, name)?;
            let it = Box::new(
                items(&target)?
                    .enumerate()
                    .map(|(i, v)| Value::Array(vec![v, Value::Int(i as i64)])),
            );
            Ok(interp
                .each(host, it, block, false, |_, _| Ok(()))?
                .unwrap_or(target))
        }
        ("each_slice", [Value::Int(n)]) if *n > 0 => {
            let block = need(block, name)?;
            let all = list(&target)?;
            let chunks: Vec<Value> = all
                .chunks(*n as usize)
                .map(|c| Value::Array(c.to_vec()))
                .collect();
            Ok(interp
                .each(host, Box::new(chunks.into_iter()), block, false, |_, _| {
                    Ok(())
                })?
                .unwrap_or(Value::Nil))
        }
        ("map" | "collect" | "flat_map", []) => {
            let block = need(block, name)?;
            let mut out = Vec::new();
            let flat = name == "flat_map";
            if let Some(v) = interp.each(host, items(&target)?, block, false, |_, r| {
                match r {
                    Value::Array(inner) if flat => out.extend(inner),
                    other => out.push(other),
                }
                Ok(())
            })? {
                return Ok(v);
            }
            Ok(Value::Array(out))
        }
        (
            "select" | "filter" | "reject" | "find" | "detect" | "count" | "any?" | "all?"
            | "none?",
            [],
        ) if block.is_some() => {
            let block = need(block, name)?;
            let mut kept = Vec::new();
            let keep_if = name != "reject";
            if let Some(v) = interp.each(host, items(&target)?, block, false, |item, r| {
                if ops::truthy(&r) == keep_if {
                    kept.push(item.clone());
                }
                Ok(())
            })? {
                return Ok(v);
            }
            let total = list(&target)?.len();
            Ok(match name {
                "find" | "detect" => kept.into_iter().next().unwrap_or(Value::Nil),
                "count" => Value::Int(kept.len() as i64),
                "any?" => Value::Bool(!kept.is_empty()),
                "all?" => Value::Bool(kept.len() == total),
                "none?" => Value::Bool(kept.is_empty()),
                _ => {
                    if let Value::Hash(_) = target {
                        Value::Hash(kept.into_iter().filter_map(pair).collect())
                    } else {
                        Value::Array(kept)
                    }
                }
            })
        }
        ("inject" | "reduce" | "sum", _) => {
            let all = list(&target)?;
            let (mut acc, rest): (Value, &[Value]) = match (args.first(), name) {
                (Some(init), _) => (init.clone(), &all[..]),
                (None, "sum") => (Value::Int(0), &all[..]),
                (None, _) => match all.split_first() {
                    Some((first, rest)) => (first.clone(), rest),
                    None => return Ok(Value::Nil),
                },
            };
            for item in rest {
                acc = match block {
                    Some(b) if name != "sum" => interp.call_block(b, &[acc, item.clone()], host)?,
                    Some(b) => {
                        let v = interp.call_block(b, std::slice::from_ref(item), host)?;
                        ops::binary("+", &acc, &v)?
                    }
                    None => ops::binary("+", &acc, item)?,
                };
            }
            Ok(acc)
        }
        _ => plain(target, name, &args),
    }
}

fn pair(v: Value) -> Option<(Value, Value)> {
    match v {
        Value::Array(mut kv) if kv.len() == 2 => {
            let v = kv.pop()?;
            Some((kv.pop()?, v))
        }
        _ => None,
    }
}

/// Methods without blocks.
fn plain(target: Value, name: &str, args: &[Value]) -> R {
    let all = list(&target)?;
    let n_arg = |i: usize| match args.get(i) {
        Some(Value::Int(n)) if *n >= 0 => Ok(*n as usize),
        _ => Err(Flow::Raise(RubyError::new(
            "ArgumentError",
            format!("{name} takes a count"),
        ))),
    };
    Ok(match (name, args) {
        ("length" | "size" | "count", []) => Value::Int(all.len() as i64),
        ("count", [v]) => Value::Int(all.iter().filter(|x| ops::equal(x, v)).count() as i64),
        ("empty?", []) => Value::Bool(all.is_empty()),
        ("any?", []) => Value::Bool(all.iter().any(ops::truthy)),
        ("first", []) => all.first().cloned().unwrap_or(Value::Nil),
        ("last", []) => all.last().cloned().unwrap_or(Value::Nil),
        ("first" | "take", [_]) => Value::Array(all.iter().take(n_arg(0)?).cloned().collect()),
        ("last", [_]) => {
            let n = n_arg(0)?;
            Value::Array(all[all.len().saturating_sub(n)..].to_vec())
        }
        ("drop", [_]) => Value::Array(all.iter().skip(n_arg(0)?).cloned().collect()),
        ("include?" | "member?", [v]) => Value::Bool(all.iter().any(|x| ops::equal(x, v))),
        ("index", [v]) => all
            .iter()
            .position(|x| ops::equal(x, v))
            .map_or(Value::Nil, |i| Value::Int(i as i64)),
        ("join", []) | ("join", [Value::Str(_)]) => {
            let sep = match args.first() {
                Some(Value::Str(s)) => s.clone(),
                _ => Vec::new(),
            };
            let parts: Vec<Vec<u8>> = all.iter().map(ops::to_s).collect();
            Value::Str(parts.join(sep.as_slice()))
        }
        ("to_a" | "entries", []) => Value::Array(all),
        ("reverse", []) => Value::Array(all.into_iter().rev().collect()),
        ("uniq", []) => {
            let mut out: Vec<Value> = Vec::new();
            for v in all {
                if !out.iter().any(|o| ops::equal(o, &v)) {
                    out.push(v);
                }
            }
            Value::Array(out)
        }
        ("compact", []) => Value::Array(all.into_iter().filter(|v| *v != Value::Nil).collect()),
        ("flatten", []) => {
            let mut out = Vec::new();
            flatten(all, &mut out);
            Value::Array(out)
        }
        ("sort" | "min" | "max", []) => {
            let mut sorted = all;
            let mut failure = None;
            sorted.sort_by(|a, b| {
                ops::compare(a, b).unwrap_or_else(|e| {
                    failure.get_or_insert(e);
                    std::cmp::Ordering::Equal
                })
            });
            if let Some(e) = failure {
                return Err(Flow::Raise(e));
            }
            match name {
                "min" => sorted.first().cloned().unwrap_or(Value::Nil),
                "max" => sorted.last().cloned().unwrap_or(Value::Nil),
                _ => Value::Array(sorted),
            }
        }
        ("zip", [Value::Array(other)]) => Value::Array(
            all.iter()
                .enumerate()
                .map(|(i, v)| {
                    Value::Array(vec![v.clone(), other.get(i).cloned().unwrap_or(Value::Nil)])
                })
                .collect(),
        ),
        (op @ ("+" | "-"), [b]) => ops::binary(op, &Value::Array(all), b)?,
        ("to_h", []) => Value::Hash(all.into_iter().filter_map(pair).collect()),
        _ => {
            return Err(Flow::Raise(RubyError::no_method(format!(
                "undefined method `{name}' for {}:{}",
                target.inspect(),
                ops::class_name(&target)
            ))))
        }
    })
}

fn flatten(items: Vec<Value>, out: &mut Vec<Value>) {
    for v in items {
        match v {
            Value::Array(inner) => flatten(inner, out),
            other => out.push(other),
        }
    }
}
