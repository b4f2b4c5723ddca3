//! The HBase shell, as a library: HBase's input syntax, its commands, and its output, over
//! any [`basalt_api::Connection`] (the embedded database today, the network client later).
//!
//! ```no_run
//! # use std::sync::Arc;
//! # fn demo(conn: Arc<dyn basalt_api::Connection>) {
//! use basalt_shell::{Shell, ShellOptions};
//! let mut shell = Shell::new(conn, ShellOptions { non_interactive: true, ..Default::default() });
//! let status = shell.run_script("create 't', 'f'\nput 't', 'r', 'f:q', 'v'\n", &mut std::io::stdout());
//! std::process::exit(status.code);
//! # }
//! ```
//!
//! A binary (`basalt shell [-n] [script]`) would: read a script file, or stdin when it is
//! not a terminal, and pass it to [`Shell::run_script`]; on a terminal call
//! [`repl::run_editor`] (line editing and history) or [`repl::run`]. `-n` is
//! [`ShellOptions::non_interactive`]: the first error ends the run with status 1.
//!
//! Input is the Ruby subset of [`ruby`]: shell commands are method calls whose arguments it
//! evaluates, so loops, variables, blocks, the table object and Java filter objects work
//! in scripts and at the prompt, and plain commands print exactly as before.
//!
//! # Output conventions
//! - [`Style::Hbase2`] (default) prints as HBase 2.5: `N row(s)` then `Took 0.0123 seconds`,
//!   `Created table t`, errors as `ERROR: ...` + `For usage try 'help "cmd"'`.
//!   [`Style::Hbase1`] prints as the 1.x shell of the seed transcripts: `N row(s) in 0.0123
//!   seconds` and an empty line after every command, errors followed by the command's help.
//! - Elapsed times come from an injectable [`Clock`]; [`FixedClock`] prints `0.0000`.
//! - Two-column tables (`get`, `scan`) are not padded unless [`ShellOptions::width`] is set
//!   (HBase pads to the terminal's width; a pipe gets no padding).
//! - Timestamps print as HBase 2.4+ prints them: `LocalDateTime` text in this machine's
//!   time zone ([`TimestampFormat::Local`], the default: `timestamp=2026-11-26T01:02:03.456`),
//!   in UTC ([`TimestampFormat::Iso`], the golden transcripts), or as epoch milliseconds
//!   ([`TimestampFormat::Epoch`], `hbase.shell.timestamp.format.epoch = true`, and always
//!   in [`Style::Hbase1`]). `MAXLENGTH => n` cuts the whole `timestamp=…, value=…` text to
//!   its first n characters.
//! - `get` counts one row however many cells it prints (`1 row(s)`), as 2.x does.
//! - A command stopped by Ctrl-C prints how far it got (`Interrupted after 1234 row(s)`)
//!   without the usage hint an error gets: HBase's `command_safe` rescues errors, not
//!   JRuby's `Interrupt`.
//! - Bytes print with `Bytes.toStringBinary`; `describe` lists family options in the key
//!   order of the chosen version.
//! - `delete` writes a DeleteColumn marker (every version at or below the timestamp), as the
//!   1.x shell of the seed transcripts does; HBase 2's shell deletes one version.
//!
//! # Layout
//! - [`ruby`]: the input language: lexer, parser, evaluator, Java names; multi-line
//!   detection.
//! - [`parse`]: values, syntax errors and string/number escapes shared with [`ruby`] (its
//!   older command-only parser stays for its unit tests).
//! - [`shell`]: [`Shell`], the driver (`run_line`, `run_line_to`, `run_script`).
//! - [`repl`]: the interactive loops, and what Tab completes ([`repl::complete`]: command
//!   names, and table names fetched from the connection and refetched after DDL).
//! - [`output`]: [`Outcome`], the 1.x / 2.x frames, console tables, clocks.
//! - [`format`](mod@format): cells, timestamps and descriptors as HBase prints them.
//! - [`command`], [`args`]: what a command is and how it reads its arguments.
//! - [`constants`]: the upper-case constants (`VERSIONS`, `SPLITS`, ...) the shell knows.
//! - [`commands`]: one file per command (parse, run, render and help together).

pub mod args;
pub mod command;
pub mod commands;
pub mod constants;
pub mod format;
pub mod output;
pub mod parse;
pub mod repl;
pub mod ruby;
pub mod shell;

pub use format::TimestampFormat;
pub use output::{Clock, FixedClock, Outcome, Style, SystemClock};
pub use shell::{ExitStatus, Failure, Output, Shell, ShellError, ShellOptions};
