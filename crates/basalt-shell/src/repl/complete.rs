//! Tab completion, as a pure decision: given the line being typed and the cursor, what
//! the word under the cursor is and what it may become.
//!
//! - A bare word where a statement starts (line start, after `;`, `{`, `|x|`, `(`, `=`,
//!   `do`, `then`, `else`, `begin`) completes to shell command names (and `exit`, `quit`).
//! - The text after an opening quote that follows a command (`scan 'us`, `disable("us`)
//!   completes to table names, closed with the same quote. Namespace commands take
//!   namespaces, not tables, and get no table names.
//! - Anything else (a method after `.`, a constant, a number, a string that is not a
//!   command's first argument) completes to nothing.
//!
//! Table names come from the connection through [`TableCache`], fetched at the first Tab
//! and again after any DDL command ran ([`crate::Shell::ddl_generation`]).

use crate::command::Group;
use crate::commands;

/// What the word under the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A command name starting at byte `start`.
    Command { start: usize, prefix: String },
    /// A table name starting at byte `start`, inside a string opened with `quote`.
    Table {
        start: usize,
        prefix: String,
        quote: char,
    },
}

/// A completion: the byte where the replaced word starts, and what may replace it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub start: usize,
    pub candidates: Vec<String>,
}

/// What may replace the word under the cursor at byte `pos` of `line`; `tables` is asked
/// only when the word is a table name.
pub fn complete(line: &str, pos: usize, tables: impl FnOnce() -> Vec<String>) -> Completion {
    match target(line, pos) {
        None => Completion {
            start: pos.min(line.len()),
            candidates: Vec::new(),
        },
        Some(Target::Command { start, prefix }) => {
            let mut names: Vec<String> = commands::ALL
                .iter()
                .map(|c| c.name)
                .chain(["exit", "quit"])
                .filter(|n| n.starts_with(&prefix))
                .map(str::to_string)
                .collect();
            names.sort();
            names.dedup();
            Completion {
                start,
                candidates: names,
            }
        }
        Some(Target::Table {
            start,
            prefix,
            quote,
        }) => {
            let closed = line[pos..].starts_with(quote);
            let mut names: Vec<String> = tables()
                .into_iter()
                .filter(|n| n.starts_with(&prefix))
                .map(|n| if closed { n } else { format!("{n}{quote}") })
                .collect();
            names.sort();
            names.dedup();
            Completion {
                start,
                candidates: names,
            }
        }
    }
}

/// The word under the cursor, when it is one completion knows.
pub fn target(line: &str, pos: usize) -> Option<Target> {
    let before = line.get(..pos)?;
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_table_char(*c))
        .last()
        .map_or(pos, |(i, _)| i);
    let word = &before[start..];
    let head = &before[..start];
    if let Some(quote) = head.chars().next_back().filter(|c| *c == '\'' || *c == '"') {
        let command = command_before(&head[..head.len() - 1])?;
        if commands::find(command).is_some_and(|c| c.group == Group::Namespace) {
            return None;
        }
        return Some(Target::Table {
            start,
            prefix: word.to_string(),
            quote,
        });
    }
    // A command name: lower-case letters, digits and `_`, not starting with a digit.
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
        .last()
        .map_or(pos, |(i, _)| i);
    let word = &before[start..];
    if word.starts_with(|c: char| c.is_ascii_digit()) || !statement_starts(&before[..start]) {
        return None;
    }
    Some(Target::Command {
        start,
        prefix: word.to_string(),
    })
}

/// The command whose first argument opens at the end of `head`: `scan `, `scan(`,
/// `t = get_table `. `None` when what precedes is not a known command at a statement start.
fn command_before(head: &str) -> Option<&str> {
    let head = head.trim_end();
    let head = head.strip_suffix('(').unwrap_or(head).trim_end();
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
        .last()
        .map(|(i, _)| i)?;
    let name = &head[start..];
    let known = commands::find(name).is_some();
    (known && statement_starts(&head[..start])).then_some(name)
}

/// Whether a statement may start after `head` (what precedes a word).
fn statement_starts(head: &str) -> bool {
    let head = head.trim_end();
    if head.is_empty() || head.ends_with([';', '{', '|', '(', '=']) {
        return true;
    }
    let last = head
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    matches!(last, "do" | "then" | "else" | "begin")
}

/// Characters of a table name (`ns:table-1.x`).
fn is_table_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-.:".contains(c)
}

/// The table names completion offers, fetched once and again after DDL.
#[derive(Debug, Default)]
pub struct TableCache {
    /// The names, and the DDL generation they were fetched at.
    names: Option<(u64, Vec<String>)>,
}

impl TableCache {
    /// The names as of DDL generation `generation`: the cached ones when no DDL ran since
    /// they were fetched, otherwise `fetch`'s (kept only when it succeeded, so a failed
    /// fetch is retried at the next Tab).
    pub fn names<E>(
        &mut self,
        generation: u64,
        fetch: impl FnOnce() -> Result<Vec<String>, E>,
    ) -> Vec<String> {
        if let Some((at, names)) = &self.names {
            if *at == generation {
                return names.clone();
            }
        }
        match fetch() {
            Ok(names) => {
                self.names = Some((generation, names.clone()));
                names
            }
            Err(_) => Vec::new(),
        }
    }
}
