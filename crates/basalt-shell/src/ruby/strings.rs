//! String methods (strings are bytes, as in the HBase shell).

use super::{ops, Flow, RubyError};
use crate::parse::Value;

fn text(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

fn bytes_arg(args: &[Value], i: usize, name: &str) -> Result<Vec<u8>, Flow> {
    match args.get(i) {
        Some(Value::Str(b)) => Ok(b.clone()),
        other => Err(Flow::Raise(RubyError::new(
            "TypeError",
            format!(
                "String#{name}: expected a String, got {}",
                other.map_or("nothing".to_string(), Value::inspect)
            ),
        ))),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

pub fn call(s: Vec<u8>, name: &str, args: &[Value]) -> Result<Value, Flow> {
    let str_val = |b: Vec<u8>| Value::Str(b);
    Ok(match (name, args) {
        ("length" | "size" | "bytesize", []) => Value::Int(text(&s).chars().count() as i64),
        ("upcase", []) => str_val(s.to_ascii_uppercase()),
        ("downcase", []) => str_val(s.to_ascii_lowercase()),
        ("capitalize", []) => {
            let mut out = s.to_ascii_lowercase();
            if let Some(first) = out.first_mut() {
                first.make_ascii_uppercase();
            }
            str_val(out)
        }
        ("reverse", []) => str_val(s.iter().rev().copied().collect()),
        ("strip", []) => str_val(s.trim_ascii().to_vec()),
        ("lstrip", []) => str_val(s.trim_ascii_start().to_vec()),
        ("rstrip", []) => str_val(s.trim_ascii_end().to_vec()),
        ("chomp", []) => {
            let mut out = s;
            if out.ends_with(b"\n") {
                out.pop();
                if out.ends_with(b"\r") {
                    out.pop();
                }
            }
            str_val(out)
        }
        ("to_s" | "to_str" | "to_java_bytes" | "to_java", _) => str_val(s),
        ("to_sym" | "intern", []) => Value::Symbol(text(&s)),
        ("to_i", []) => {
            let t = text(&s);
            let t = t.trim_start();
            let end = t
                .char_indices()
                .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+'))))
                .map_or(t.len(), |(i, _)| i);
            Value::Int(t[..end].parse().unwrap_or(0))
        }
        ("to_f", []) => Value::Float(text(&s).trim().parse().unwrap_or(0.0)),
        ("empty?", []) => Value::Bool(s.is_empty()),
        ("include?", [_]) => Value::Bool(find(&s, &bytes_arg(args, 0, name)?).is_some()),
        ("start_with?", [_]) => Value::Bool(s.starts_with(&bytes_arg(args, 0, name)?)),
        ("end_with?", [_]) => Value::Bool(s.ends_with(&bytes_arg(args, 0, name)?)),
        ("index", [_]) => {
            find(&s, &bytes_arg(args, 0, name)?).map_or(Value::Nil, |i| Value::Int(i as i64))
        }
        ("split", []) => Value::Array(
            text(&s)
                .split_whitespace()
                .map(|w| Value::Str(w.as_bytes().to_vec()))
                .collect(),
        ),
        ("split", [_]) => {
            let sep = bytes_arg(args, 0, name)?;
            let t = text(&s);
            let sep = text(&sep);
            let mut parts: Vec<Value> = if sep.is_empty() {
                t.chars()
                    .map(|c| Value::Str(c.to_string().into_bytes()))
                    .collect()
            } else {
                t.split(sep.as_str())
                    .map(|p| Value::Str(p.as_bytes().to_vec()))
                    .collect()
            };
            while matches!(parts.last(), Some(Value::Str(p)) if p.is_empty()) {
                parts.pop();
            }
            Value::Array(parts)
        }
        ("sub" | "gsub", [Value::Str(from), Value::Str(to)]) => {
            let (t, from, to) = (text(&s), text(from), text(to));
            str_val(
                if name == "sub" {
                    t.replacen(&from, &to, 1)
                } else {
                    t.replace(&from, &to)
                }
                .into_bytes(),
            )
        }
        ("rjust" | "ljust", [Value::Int(width)] | [Value::Int(width), Value::Str(_)]) => {
            let pad = match args.get(1) {
                Some(Value::Str(p)) if !p.is_empty() => p.clone(),
                _ => b" ".to_vec(),
            };
            let len = text(&s).chars().count();
            let missing = usize::try_from(*width).unwrap_or(0).saturating_sub(len);
            let fill: Vec<u8> = pad.iter().cycle().take(missing).copied().collect();
            str_val(if name == "rjust" {
                [fill, s].concat()
            } else {
                [s, fill].concat()
            })
        }
        ("bytes", []) => Value::Array(s.iter().map(|b| Value::Int((*b).into())).collect()),
        ("chars", []) => Value::Array(
            text(&s)
                .chars()
                .map(|c| Value::Str(c.to_string().into_bytes()))
                .collect(),
        ),
        ("ord", []) => s.first().map_or(Value::Nil, |b| Value::Int((*b).into())),
        ("hex", []) => Value::Int(
            i64::from_str_radix(text(&s).trim().trim_start_matches("0x"), 16).unwrap_or(0),
        ),
        ("succ" | "next", []) => str_val(succ(&s)),
        (op @ ("+" | "*" | "<" | ">" | "<=" | ">=" | "%"), [b]) => {
            if op == "%" {
                return Err(Flow::Raise(RubyError::new(
                    "NotImplementedError",
                    "format strings (String#%) are not supported by Basalt's shell; use \"#{...}\"",
                )));
            }
            ops::binary(op, &Value::Str(s), b)?
        }
        _ => {
            return Err(Flow::Raise(RubyError::no_method(format!(
                "undefined method `{name}' for {}:String",
                Value::Str(s).inspect()
            ))))
        }
    })
}

/// `String#succ` for the common cases: the last alphanumeric run counts up with carry.
fn succ(s: &[u8]) -> Vec<u8> {
    let mut out = s.to_vec();
    let mut i = out.len();
    while i > 0 {
        i -= 1;
        match out[i] {
            b'9' => out[i] = b'0',
            b'z' => out[i] = b'a',
            b'Z' => out[i] = b'A',
            c if c.is_ascii_alphanumeric() => {
                out[i] = c + 1;
                return out;
            }
            _ => continue,
        }
    }
    let first = match out.first() {
        Some(b'0') => b'1',
        Some(b'a') => b'a',
        Some(b'A') => b'A',
        _ => return out,
    };
    out.insert(0, first);
    out
}
