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
//! It is not a Ruby interpreter: it reads the subset of Ruby the HBase shell's commands use
//! (strings, numbers, constants, arrays, hashes, variables holding table references).
//! Output follows HBase 2.x by default or 1.x ([`Style`]); elapsed times come from an
//! injectable [`Clock`] so tests can pin them.
//!
//! # Layout
//! - [`parse`]: lexer and parser of the input language; multi-line detection.
//! - [`shell`]: [`Shell`], the driver (`run_line`, `run_script`).
//! - [`repl`]: the interactive loop.
//! - [`output`]: [`Outcome`], the 1.x / 2.x frames, console tables, clocks.
//! - [`format`]: cells, timestamps and descriptors as HBase prints them.
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
pub mod shell;

pub use format::TimestampFormat;
pub use output::{Clock, FixedClock, Outcome, Style, SystemClock};
pub use shell::{ExitStatus, Failure, Output, Shell, ShellError, ShellOptions};
