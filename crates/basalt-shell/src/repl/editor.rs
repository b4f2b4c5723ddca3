//! The terminal REPL with line editing and history (rustyline).
//!
//! Ctrl-C drops the statement being typed; Ctrl-D (or `exit`) ends the session. Each
//! complete statement enters the history as one entry; the history file is loaded at the
//! start and saved at the end when given.

use crate::ruby::is_incomplete;
use crate::shell::Shell;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use std::path::Path;

/// Runs the shell on the terminal until `exit` or end of input. Returns the exit status
/// (non-zero when `non_interactive` and a statement failed, or when the terminal cannot
/// be used).
pub fn run_editor(shell: &mut Shell, history: Option<&Path>) -> i32 {
    let Ok(mut editor) = DefaultEditor::new() else {
        return 1;
    };
    if let Some(path) = history {
        // A missing history file is normal on the first run.
        let _ = editor.load_history(path);
    }
    shell.set_confirm(Box::new(|_question| {
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer).is_ok()
            && answer.trim().to_ascii_lowercase().starts_with('y')
    }));
    let status = session(shell, &mut editor);
    if let Some(path) = history {
        let _ = editor.save_history(path);
    }
    status
}

fn session(shell: &mut Shell, editor: &mut DefaultEditor) -> i32 {
    let mut buffer = String::new();
    let mut stdout = std::io::stdout();
    loop {
        let prompt = shell.next_prompt(&buffer);
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                buffer.clear();
                continue;
            }
            Err(ReadlineError::Eof) => return 0,
            Err(_) => return 1,
        };
        if !buffer.is_empty() {
            buffer.push('\n');
        }
        buffer.push_str(&line);
        if is_incomplete(&buffer) {
            continue;
        }
        let statement = std::mem::take(&mut buffer);
        if !statement.trim().is_empty() {
            let _ = editor.add_history_entry(statement.as_str());
        }
        if let Some((columns, _rows)) = editor.dimensions() {
            shell.set_width(columns);
        }
        let (failed, exit) = match run_interruptible(shell, &statement, &mut stdout) {
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

/// Runs one statement with Ctrl-C (SIGINT) stopping it, as in HBase's shell, instead of
/// ending the process; the usual SIGINT behaviour returns once it is done.
fn run_interruptible(
    shell: &mut Shell,
    statement: &str,
    out: &mut dyn std::io::Write,
) -> Result<bool, crate::shell::ShellError> {
    let handler = signal_hook::flag::register(signal_hook::consts::SIGINT, shell.interrupt_flag());
    let outcome = shell.run_line_to(statement, out);
    if let Ok(id) = handler {
        signal_hook::low_level::unregister(id);
    }
    outcome
}
