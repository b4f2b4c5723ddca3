//! What every command file provides, and what a command gets to run with.

use crate::output::{Outcome, Style, Table as ConsoleTable};
use crate::parse::Value;
use basalt_api::{Admin, ApiError, Connection, Table};
use basalt_types::TableName;
use std::sync::Arc;

/// HBase's command groups, in `help` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    General,
    Ddl,
    Namespace,
    Dml,
    Tools,
    Snapshots,
    Security,
}

impl Group {
    pub const ALL: [Group; 7] = [
        Group::General,
        Group::Ddl,
        Group::Namespace,
        Group::Dml,
        Group::Tools,
        Group::Snapshots,
        Group::Security,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Group::General => "general",
            Group::Ddl => "ddl",
            Group::Namespace => "namespace",
            Group::Dml => "dml",
            Group::Tools => "tools",
            Group::Snapshots => "snapshots",
            Group::Security => "security",
        }
    }

    /// The banner `help` prints above a group's commands.
    pub fn title(self) -> &'static str {
        match self {
            Group::General => "GENERAL HBASE SHELL COMMANDS",
            Group::Ddl => "TABLES MANAGEMENT COMMANDS",
            Group::Namespace => "NAMESPACE MANAGEMENT COMMANDS",
            Group::Dml => "DATA MANIPULATION COMMANDS",
            Group::Tools => "HBASE SURGERY TOOLS",
            Group::Snapshots => "CLUSTER SNAPSHOT TOOLS",
            Group::Security => "SECURITY TOOLS",
        }
    }
}

/// One shell command: its name, group, help text and how to run it.
pub struct Command {
    pub name: &'static str,
    pub group: Group,
    /// The text `help 'name'` prints.
    pub help: &'static str,
    pub run: fn(&mut Ctx, &[Value]) -> Result<Outcome, CmdError>,
}

/// A command's failure: the message after `ERROR: `, and what it printed before failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdError {
    pub message: String,
    pub partial: Vec<String>,
    /// Stopped by Ctrl-C rather than failed: printed without `ERROR:` and without the
    /// usage hint (HBase's `command_safe` rescues errors, not JRuby's `Interrupt`).
    pub interrupted: bool,
}

impl CmdError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            partial: Vec::new(),
            interrupted: false,
        }
    }

    /// The user pressed Ctrl-C; `message` says how far the command got.
    pub fn interrupted(message: impl Into<String>) -> Self {
        Self {
            interrupted: true,
            ..Self::new(message)
        }
    }

    pub fn after(mut self, partial: Vec<String>) -> Self {
        self.partial = partial;
        self
    }
}

/// How the shell words an API error: HBase's translations of the common exceptions, the
/// exception name and message otherwise.
impl From<ApiError> for CmdError {
    fn from(e: ApiError) -> Self {
        let message = match e.short_name() {
            "TableNotFoundException" => format!("Unknown table {}!", e.message),
            "TableExistsException" => format!("Table already exists: {}!", e.message),
            "NamespaceNotFoundException" => format!("Unknown namespace {}!", e.message),
            "NoSuchColumnFamilyException" => e.message.clone(),
            "IllegalArgumentException" => e.message.clone(),
            _ => e.to_string(),
        };
        CmdError::new(message)
    }
}

/// The answer to a yes/no question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub yes: bool,
    /// The answer as typed, when the transcript should show it.
    pub echo: Option<String>,
}

/// What a command runs with.
pub struct Ctx<'a> {
    pub conn: &'a Arc<dyn Connection>,
    pub style: Style,
    /// Terminal width for two-column tables (0: not a terminal, no padding).
    pub width: usize,
    /// How cell timestamps print.
    pub timestamps: crate::format::TimestampFormat,
    /// The user `whoami` reports.
    pub user: &'a str,
    /// Asks the user a yes/no question (`disable_all`); no when there is no one to ask.
    pub confirm: &'a mut dyn FnMut(&str) -> Answer,
    /// Where lines go as soon as they are known ([`Ctx::emit`]); the outcome's lines follow.
    pub out: &'a mut dyn std::io::Write,
    /// Set when the user pressed Ctrl-C: long commands (scan, count) stop.
    pub interrupt: &'a std::sync::atomic::AtomicBool,
}

impl Ctx<'_> {
    pub fn admin(&self) -> Arc<dyn Admin> {
        self.conn.admin()
    }

    /// A table for data commands; a missing table is `Unknown table t!`.
    pub fn table(&self, name: &TableName) -> Result<Arc<dyn Table>, CmdError> {
        Ok(self.conn.table(name)?)
    }

    /// Fails with HBase's `Table t does not exist.` unless the table exists.
    pub fn require_table(&self, name: &TableName) -> Result<(), CmdError> {
        if self.admin().table_exists(name)? {
            Ok(())
        } else {
            Err(CmdError::new(format!("Table {name} does not exist.")))
        }
    }

    /// Prints lines now, ahead of the outcome (a scan's rows as they arrive).
    pub fn emit(&mut self, lines: &[String]) -> Result<(), CmdError> {
        for line in lines {
            writeln!(self.out, "{line}")
                .map_err(|e| CmdError::new(format!("cannot write output: {e}")))?;
        }
        Ok(())
    }

    /// Fails with "Interrupted" once the user pressed Ctrl-C; `done` says how far it got.
    pub fn check_interrupt(&self, done: impl FnOnce() -> String) -> Result<(), CmdError> {
        if self.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(CmdError::interrupted(format!(
                "Interrupted after {}",
                done()
            )));
        }
        Ok(())
    }

    pub fn console(&self) -> ConsoleTable {
        ConsoleTable { width: self.width }
    }
}
