//! The interactive loop: prompt, read lines until a statement is complete, run it, print.
//!
//! - [`run`] reads plain lines from any `BufRead` (tests, dumb terminals).
//! - [`run_editor`] (feature `line-editor`, on by default) reads a terminal with line
//!   editing, history and Tab completion (rustyline), like HBase's IRB.
//! - [`complete`]: what Tab completes (command names, table names), as a pure decision.
//!
//! Scripts and piped input are better served by [`Shell::run_script`], which also lets
//! `disable_all`-style questions read their answer from the next line.

use crate::ruby::is_incomplete;
use crate::shell::Shell;
use std::io::{BufRead, Write};

pub mod complete;
#[cfg(test)]
mod complete_tests;
#[cfg(feature = "line-editor")]
mod editor;
#[cfg(feature = "line-editor")]
pub use editor::run_editor;

/// Runs statements typed on `input` until end of input or `exit`; returns the status
/// (non-zero when `non_interactive` and a statement failed).
pub fn run(shell: &mut Shell, input: &mut dyn BufRead, out: &mut dyn Write) -> i32 {
    let mut buffer = String::new();
    loop {
        let prompt = shell.next_prompt(&buffer);
        if write!(out, "{prompt}").and_then(|_| out.flush()).is_err() {
            return 1;
        }
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                let _ = writeln!(out);
                return 0;
            }
            Ok(_) => {}
        }
        let line = line.trim_end_matches(['\n', '\r']);
        if !buffer.is_empty() {
            buffer.push('\n');
        }
        buffer.push_str(line);
        if is_incomplete(&buffer) {
            continue;
        }
        let statement = std::mem::take(&mut buffer);
        let (failed, exit) = match shell.run_line_to(&statement, out) {
            Ok(exit) => (false, exit),
            Err(crate::shell::ShellError::Output(_)) => return 1,
            Err(_) => (true, false),
        };
        if exit {
            return shell.exit_code();
        }
        if failed && shell.options().non_interactive {
            return 1;
        }
    }
}
