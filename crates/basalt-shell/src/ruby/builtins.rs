//! Functions without a receiver: `puts`, `print`, `p`, `sleep`, `exit`, `import`, `require`.
//!
//! | call | prints | returns |
//! |------|--------|---------|
//! | `puts 1, [2, 3], nil` | `1`, `2`, `3`, an empty line | `nil` |
//! | `print 'a', 1` | `a1` (no newline) | `nil` |
//! | `p 'a'` | `"a"` (inspect) | its argument |
//! | `sleep 0.5` | — (waits; Ctrl-C stops it) | seconds, rounded |
//! | `import org.apache...SingleColumnValueFilter` | — | the class (every class Basalt knows is always available) |

use super::eval::{Host, Interp};
use super::{ops, Flow, RubyError};
use crate::parse::Value;

/// Runs builtin `name`; `Ok(None)` when `name` is not one.
pub fn call(
    interp: &mut Interp,
    name: &str,
    args: &[Value],
    host: &mut dyn Host,
) -> Result<Option<Value>, Flow> {
    Ok(Some(match name {
        "puts" => {
            let mut out = Vec::new();
            if args.is_empty() {
                out.push(b'\n');
            }
            for a in args {
                puts_value(a, &mut out);
            }
            host.write(&out)?;
            Value::Nil
        }
        "print" => {
            let out: Vec<u8> = args.iter().flat_map(ops::to_s).collect();
            host.write(&out)?;
            Value::Nil
        }
        "p" | "pp" => {
            let mut out = String::new();
            for a in args {
                out.push_str(&a.inspect());
                out.push('\n');
            }
            host.write(out.as_bytes())?;
            match args {
                [] => Value::Nil,
                [one] => one.clone(),
                many => Value::Array(many.to_vec()),
            }
        }
        "sleep" => {
            let secs = match args {
                [Value::Int(i)] if *i >= 0 => *i as f64,
                [Value::Float(f)] if *f >= 0.0 && f.is_finite() => *f,
                _ => {
                    return Err(Flow::Raise(RubyError::new(
                        "ArgumentError",
                        "sleep takes a non-negative number of seconds",
                    )))
                }
            };
            host.sleep(secs)?;
            Value::Int(secs.round() as i64)
        }
        "exit" | "quit" => {
            interp.exit_code = match args.first() {
                Some(Value::Int(code)) => i32::try_from(*code).unwrap_or(1),
                Some(Value::Bool(false)) => 1,
                _ => 0,
            };
            return Err(Flow::Exit);
        }
        "import" | "java_import" => match args {
            [v @ Value::Java(super::java::JavaObject::Class(_))] => v.clone(),
            [other] => {
                return Err(Flow::Raise(RubyError::new(
                    "TypeError",
                    format!("import takes a Java class, got {}", other.inspect()),
                )))
            }
            _ => {
                return Err(Flow::Raise(RubyError::new(
                    "ArgumentError",
                    "import takes one class",
                )))
            }
        },
        // `require 'java'` and friends: JRuby's Java integration is always on.
        "require" | "require_relative" | "load" => match args {
            [Value::Str(lib)] if lib.as_slice() == b"java" => Value::Bool(false),
            [other] => {
                return Err(Flow::Raise(RubyError::new(
                    "LoadError",
                    format!(
                        "Basalt's shell loads no Ruby files or gems (asked for {})",
                        other.inspect()
                    ),
                )))
            }
            _ => {
                return Err(Flow::Raise(RubyError::new(
                    "ArgumentError",
                    "require takes one name",
                )))
            }
        },
        "raise" => {
            let message = args
                .first()
                .map(|v| String::from_utf8_lossy(&ops::to_s(v)).into_owned());
            return Err(Flow::Raise(RubyError::new(
                "RuntimeError",
                message.unwrap_or_else(|| "unhandled exception".to_string()),
            )));
        }
        _ => return Ok(None),
    }))
}

fn puts_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Array(items) if items.is_empty() => out.push(b'\n'),
        Value::Array(items) => items.iter().for_each(|i| puts_value(i, out)),
        other => {
            let text = ops::to_s(other);
            let ends = text.ends_with(b"\n");
            out.extend(text);
            if !ends {
                out.push(b'\n');
            }
        }
    }
}
