//! The terminal REPL with line editing and history (rustyline).
//!
//! Ctrl-C drops the statement being typed; Ctrl-D (or `exit`) ends the session. Each
//! complete statement enters the history as one entry; the history file is loaded at the
//! start and saved at the end when given. Tab completes command and table names
//! ([`super::complete`]), bash-style: the longest common part, then the list.

use super::complete::{complete, TableCache};
use crate::ruby::is_incomplete;
use crate::shell::Shell;
use basalt_api::Connection;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Editor, Helper};
use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

type ShellEditor = Editor<ShellHelper, DefaultHistory>;

/// The editor's helper: completion over the shell's connection.
struct ShellHelper {
    conn: Arc<dyn Connection>,
    /// The shell's DDL generation as of the last prompt.
    generation: u64,
    tables: RefCell<TableCache>,
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let tables = || {
            self.tables.borrow_mut().names(self.generation, || {
                self.conn
                    .admin()
                    .list_tables(None)
                    .map(|names| names.iter().map(ToString::to_string).collect())
            })
        };
        let completion = complete(line, pos, tables);
        let pairs = completion
            .candidates
            .into_iter()
            .map(|c| Pair {
                display: c.trim_end_matches(['\'', '"']).to_string(),
                replacement: c,
            })
            .collect();
        Ok((completion.start, pairs))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}
impl Helper for ShellHelper {}

/// Runs the shell on the terminal until `exit` or end of input. Returns the exit status
/// (non-zero when `non_interactive` and a statement failed, or when the terminal cannot
/// be used).
pub fn run_editor(shell: &mut Shell, history: Option<&Path>) -> i32 {
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .build();
    let Ok(mut editor) = ShellEditor::with_config(config) else {
        return 1;
    };
    editor.set_helper(Some(ShellHelper {
        conn: shell.connection().clone(),
        generation: shell.ddl_generation(),
        tables: RefCell::new(TableCache::default()),
    }));
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

fn session(shell: &mut Shell, editor: &mut ShellEditor) -> i32 {
    let mut buffer = String::new();
    let mut stdout = std::io::stdout();
    loop {
        if let Some(helper) = editor.helper_mut() {
            helper.generation = shell.ddl_generation();
        }
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
