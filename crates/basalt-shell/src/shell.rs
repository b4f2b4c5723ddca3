//! The driver: statements in, HBase's printed output out.

use crate::command::{Answer, CmdError, Ctx, Group};
use crate::commands;
use crate::format::TimestampFormat;
use crate::output::{render_error, render_interrupted, render_success, Clock, Style, SystemClock};
use crate::parse::{SyntaxError, Value};
use crate::ruby::{self, is_incomplete, Flow, Host, Interp, RubyError};
use basalt_api::Connection;
use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How the shell behaves and prints.
#[derive(Clone)]
pub struct ShellOptions {
    pub style: Style,
    /// `hbase shell -n`: a script stops at the first error with a non-zero status.
    pub non_interactive: bool,
    /// Print each input line after its prompt, as a terminal shows it (transcripts).
    pub echo: bool,
    /// Terminal width for two-column tables; 0 (not a terminal) pads nothing.
    pub width: usize,
    /// The user `whoami` reports.
    pub user: String,
    /// ISO local date-times (default, as HBase 2.4+), UTC ones, or epoch milliseconds
    /// (`hbase.shell.timestamp.format.epoch = true`). [`Style::Hbase1`] always prints epoch
    /// milliseconds, as every 1.x shell did.
    pub timestamps: TimestampFormat,
    pub clock: Arc<dyn Clock>,
}

impl Default for ShellOptions {
    fn default() -> Self {
        Self {
            style: Style::default(),
            non_interactive: false,
            echo: false,
            width: 0,
            user: std::env::var("USER").unwrap_or_else(|_| "basalt".to_string()),
            timestamps: TimestampFormat::default(),
            clock: Arc::new(SystemClock::default()),
        }
    }
}

/// What a statement printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub text: String,
    /// `exit` / `quit` was run.
    pub exit: bool,
}

/// Why a statement failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellError {
    Syntax(SyntaxError),
    /// An undefined name (`NameError` / `NoMethodError`).
    Name(String),
    /// A command failed: its name and the message after `ERROR: `.
    Command {
        command: String,
        message: String,
    },
    /// A Ruby exception other than a name error (`ZeroDivisionError`, `TypeError`, …).
    Script {
        kind: String,
        message: String,
    },
    /// The output could not be written.
    Output(String),
}

fn write_out(out: &mut dyn Write, text: &str) -> Result<(), ShellError> {
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| ShellError::Output(e.to_string()))
}

/// A failed statement: what it printed (the error included) and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub text: String,
    pub error: ShellError,
}

/// How a script ended: 0 on success, 1 when a non-interactive script failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus {
    pub code: i32,
}

impl ExitStatus {
    pub fn success(self) -> bool {
        self.code == 0
    }
}

type ConfirmHook = Box<dyn FnMut(&str) -> bool + Send>;

/// An HBase shell over a connection.
pub struct Shell {
    conn: Arc<dyn Connection>,
    options: ShellOptions,
    /// The Ruby interpreter: variables live across inputs, as in IRB.
    interp: Interp,
    /// Input lines of the script being run, read by `(y/n)?` questions.
    pending: VecDeque<String>,
    confirm_hook: Option<ConfirmHook>,
    /// The prompt's line counter.
    line_no: usize,
    /// Set (by a Ctrl-C handler) to stop the running command; cleared before each one.
    interrupt: Arc<AtomicBool>,
    /// How many DDL or namespace commands ran: tab completion refetches table names when
    /// it moves.
    ddl_generation: u64,
}

impl Shell {
    pub fn new(conn: Arc<dyn Connection>, options: ShellOptions) -> Self {
        Self {
            conn,
            options,
            interp: Interp::default(),
            pending: VecDeque::new(),
            confirm_hook: None,
            line_no: 0,
            interrupt: Arc::new(AtomicBool::new(false)),
            ddl_generation: 0,
        }
    }

    /// The connection the shell runs commands on.
    pub fn connection(&self) -> &Arc<dyn Connection> {
        &self.conn
    }

    /// Moves each time a DDL or namespace command runs (failed ones included: a failure
    /// may follow a partial change), so cached table names can be refreshed.
    pub fn ddl_generation(&self) -> u64 {
        self.ddl_generation
    }

    /// The flag that stops a running scan or count when set, as Ctrl-C does in the
    /// interactive shell; each command starts with it cleared.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Sets the width two-column tables wrap to (the terminal's, which may change).
    pub fn set_width(&mut self, width: usize) {
        self.options.width = width;
    }

    pub fn options(&self) -> &ShellOptions {
        &self.options
    }

    /// The status the last `exit [code]` asked for (0 for a bare `exit`).
    pub fn exit_code(&self) -> i32 {
        self.interp.exit_code
    }

    /// Who answers `(y/n)?` questions outside scripts (the REPL reads the terminal).
    pub fn set_confirm(&mut self, hook: ConfirmHook) {
        self.confirm_hook = Some(hook);
    }

    /// The prompt for the next input line; `continuation` for a statement's later lines.
    pub fn next_prompt(&mut self, buffer_so_far: &str) -> String {
        self.line_no += 1;
        let depth = if buffer_so_far.is_empty() { 0 } else { 1 };
        self.options.style.prompt(self.line_no, depth)
    }

    /// Runs one complete input (one or more statements) and returns what it printed.
    pub fn run_line(&mut self, input: &str) -> Result<Output, Failure> {
        let mut buf = Vec::new();
        let result = self.run_line_to(input, &mut buf);
        let text = String::from_utf8_lossy(&buf).into_owned();
        match result {
            Ok(exit) => Ok(Output { text, exit }),
            Err(error) => Err(Failure { text, error }),
        }
    }

    /// Runs one complete input, writing what it prints to `out` as it goes (a long scan
    /// streams its rows). Returns whether `exit` ran. As IRB, it echoes `=> value` after
    /// the input unless its value is `nil`.
    pub fn run_line_to(&mut self, input: &str, out: &mut dyn Write) -> Result<bool, ShellError> {
        self.interrupt.store(false, Ordering::Relaxed);
        let program = match ruby::parse(input) {
            Ok(p) => p,
            Err(e) => {
                let text = format!("{}\n", self.syntax_text(&e));
                write_out(out, &text)?;
                return Err(ShellError::Syntax(e));
            }
        };
        let mut interp = std::mem::take(&mut self.interp);
        let result = interp.run(&program, &mut ShellHost { shell: self, out });
        self.interp = interp;
        match result {
            Ok(Value::Nil) => Ok(false),
            Ok(value) => {
                write_out(out, &format!("=> {}\n", value.inspect()))?;
                Ok(false)
            }
            Err(Flow::Exit) => Ok(true),
            Err(Flow::Failed {
                error: ShellError::Output(e),
                ..
            }) => Err(ShellError::Output(e)),
            Err(Flow::Failed { text, error }) => {
                write_out(out, &text)?;
                Err(error)
            }
            Err(Flow::Raise(e)) => {
                let failure = self.ruby_error(e);
                write_out(out, &failure.text)?;
                Err(failure.error)
            }
            Err(Flow::Break(_) | Flow::Next(_)) => {
                let failure = self.ruby_error(RubyError::new(
                    "LocalJumpError",
                    "break or next outside of a loop or block",
                ));
                write_out(out, &failure.text)?;
                Err(failure.error)
            }
        }
    }

    /// Runs a script, writing what it prints to `out`. Statements may span lines. With
    /// `non_interactive` the first error stops the script with status 1.
    pub fn run_script(&mut self, input: &str, out: &mut dyn Write) -> ExitStatus {
        self.pending = input.lines().map(str::to_string).collect();
        let mut buffer = String::new();
        let mut status = ExitStatus { code: 0 };
        while let Some(line) = self.pending.pop_front() {
            if self.options.echo {
                let prompt = self.next_prompt(&buffer);
                if writeln!(out, "{prompt}{line}").is_err() {
                    return ExitStatus { code: 1 };
                }
            }
            if !buffer.is_empty() {
                buffer.push('\n');
            }
            buffer.push_str(&line);
            if is_incomplete(&buffer) && !self.pending.is_empty() {
                continue;
            }
            let input = std::mem::take(&mut buffer);
            let (failed, exit) = match self.run_line_to(&input, out) {
                Ok(exit) => (false, exit),
                Err(ShellError::Output(_)) => return ExitStatus { code: 1 },
                Err(_) => (true, false),
            };
            if failed && self.options.non_interactive {
                status.code = 1;
                break;
            }
            if exit {
                status.code = self.interp.exit_code;
                break;
            }
        }
        self.pending.clear();
        let _ = out.flush();
        status
    }

    fn syntax_text(&self, e: &SyntaxError) -> String {
        match self.options.style {
            Style::Hbase1 => e.to_string(),
            Style::Hbase2 => format!(
                "SyntaxError ((hbase):{}: {} (column {}))",
                e.line, e.message, e.column
            ),
        }
    }

    fn ruby_error(&self, e: RubyError) -> Failure {
        let text = match self.options.style {
            Style::Hbase1 => format!("{}: {}\n", e.kind, e.message),
            Style::Hbase2 => format!("{} ({})\n", e.kind, e.message),
        };
        let error = if e.kind == "NameError" || e.kind == "NoMethodError" {
            ShellError::Name(e.message)
        } else {
            ShellError::Script {
                kind: e.kind,
                message: e.message,
            }
        };
        Failure { text, error }
    }

    /// Runs shell command `name` with evaluated arguments, printing its output (not its
    /// value: IRB echoes that). `Ok(None)` when there is no such command.
    fn command(
        &mut self,
        name: &str,
        args: &[Value],
        out: &mut dyn Write,
    ) -> Result<Option<Value>, Flow> {
        if commands::unsupported::is_unsupported(name) {
            let message = format!("{name} is not supported by Basalt");
            return Err(Flow::Failed {
                text: render_error(
                    self.options.style,
                    name,
                    "",
                    &[],
                    &message,
                    std::time::Duration::ZERO,
                ),
                error: ShellError::Command {
                    command: name.to_string(),
                    message,
                },
            });
        }
        let Some(command) = commands::find(name) else {
            return Ok(None);
        };
        if matches!(command.group, Group::Ddl | Group::Namespace) {
            self.ddl_generation += 1;
        }
        let start = self.options.clock.now();
        let result = self.run_command(command, args, out);
        let elapsed = self.options.clock.now().saturating_sub(start);
        match result {
            Ok(mut outcome) => {
                let value = outcome.value.take();
                let text = render_success(self.options.style, &outcome, elapsed);
                write_out(out, &text).map_err(|error| Flow::Failed {
                    text: String::new(),
                    error,
                })?;
                Ok(Some(value.unwrap_or(Value::Nil)))
            }
            Err(e) if e.interrupted => Err(Flow::Failed {
                text: render_interrupted(self.options.style, &e.partial, &e.message, elapsed),
                error: ShellError::Command {
                    command: command.name.to_string(),
                    message: e.message,
                },
            }),
            Err(e) => Err(Flow::Failed {
                text: render_error(
                    self.options.style,
                    command.name,
                    command.help,
                    &e.partial,
                    &e.message,
                    elapsed,
                ),
                error: ShellError::Command {
                    command: command.name.to_string(),
                    message: e.message,
                },
            }),
        }
    }

    fn run_command(
        &mut self,
        command: &crate::command::Command,
        args: &[Value],
        out: &mut dyn Write,
    ) -> Result<crate::output::Outcome, CmdError> {
        let echo = self.options.echo;
        let pending = &mut self.pending;
        let hook = &mut self.confirm_hook;
        let mut confirm = |question: &str| -> Answer {
            if let Some(line) = pending.pop_front() {
                let yes = line.trim().eq_ignore_ascii_case("y");
                return Answer {
                    yes,
                    echo: echo.then_some(line),
                };
            }
            let yes = match hook {
                Some(h) => h(question),
                None => false,
            };
            Answer { yes, echo: None }
        };
        let mut ctx = Ctx {
            interrupt: &self.interrupt,
            conn: &self.conn,
            style: self.options.style,
            width: self.options.width,
            timestamps: match self.options.style {
                Style::Hbase1 => TimestampFormat::Epoch,
                Style::Hbase2 => self.options.timestamps,
            },
            user: &self.options.user,
            confirm: &mut confirm,
            out,
        };
        (command.run)(&mut ctx, args)
    }
}

/// The shell as the evaluator's [`Host`].
struct ShellHost<'a> {
    shell: &'a mut Shell,
    out: &'a mut dyn Write,
}

impl Host for ShellHost<'_> {
    fn command(&mut self, name: &str, args: Vec<Value>) -> Result<Option<Value>, Flow> {
        self.shell.command(name, &args, self.out)
    }

    fn write(&mut self, text: &[u8]) -> Result<(), Flow> {
        self.out
            .write_all(text)
            .and_then(|_| self.out.flush())
            .map_err(|e| Flow::Failed {
                text: String::new(),
                error: ShellError::Output(e.to_string()),
            })
    }

    fn sleep(&mut self, seconds: f64) -> Result<(), Flow> {
        let duration = std::time::Duration::try_from_secs_f64(seconds).map_err(|_| {
            Flow::Raise(RubyError::new(
                "ArgumentError",
                format!("cannot sleep {seconds} seconds"),
            ))
        })?;
        self.shell
            .options
            .clock
            .sleep(duration, &self.shell.interrupt);
        if self.interrupted() {
            return Err(Flow::Raise(RubyError::new(
                "Interrupt",
                "sleep interrupted",
            )));
        }
        Ok(())
    }

    fn interrupted(&self) -> bool {
        self.shell.interrupt.load(Ordering::Relaxed)
    }
}
