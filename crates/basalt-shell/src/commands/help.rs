//! `help` · `help 'command'` · `help 'group'`
//!
//! Without an argument: the version banner and every group with its commands. With a
//! command: its help text. With a group: the help of each of its commands. Printed bare
//! (no row count or timing), as HBase's shell does.

use super::version::version_line;
use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "help",
    group: Group::General,
    help: HELP,
    run,
};

const HELP: &str =
    "Show the shell's help: 'help' lists the command groups, 'help \"get\"' explains one
command and 'help \"dml\"' the commands of one group.
";

fn overview() -> Vec<String> {
    let mut lines = vec![
        format!("HBase Shell, version {}", version_line()),
        "Type 'help \"COMMAND\"', (e.g. 'help \"get\"' -- the quotes are necessary) for help on a specific command.".to_string(),
        "Commands are grouped. Type 'help \"COMMAND_GROUP\"', (e.g. 'help \"general\"') for help on a command group.".to_string(),
        String::new(),
        "COMMAND GROUPS:".to_string(),
    ];
    for group in Group::ALL {
        let mut names: Vec<&str> = super::ALL
            .iter()
            .filter(|c| c.group == group)
            .map(|c| c.name)
            .collect();
        names.sort_unstable();
        lines.push(format!("  Group name: {}", group.name()));
        lines.push(format!("  Commands: {}", names.join(", ")));
        lines.push(String::new());
    }
    lines.push("SHELL USAGE:".to_string());
    lines.extend(USAGE.lines().map(str::to_string));
    lines
}

const USAGE: &str = "Quote all names in HBase Shell such as table and column names.  Commas delimit
command parameters.  Type <RETURN> after entering a command to run it.
Dictionaries of configuration used in the creation and alteration of tables are
Ruby Hashes. They look like this:

  {'key1' => 'value1', 'key2' => 'value2', ...}

and are opened and closed with curley-braces.  Key/values are delimited by the
'=>' character combination.  Usually keys are predefined constants such as
NAME, VERSIONS, COMPRESSION, etc.  Constants do not need to be quoted.  Type
'Object.constants' to see a (messy) list of all constants in the environment.

If you are using binary keys or values and need to enter them in the shell, use
double-quote'd hexadecimal representation. For example:

  hbase> get 't1', \"key\\x03\\x3f\\xcd\"
  hbase> get 't1', \"key\\003\\023\\011\"
  hbase> put 't1', \"test\\xef\\xff\", 'f1:', \"\\x01\\x33\\x40\"
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let mut out = Outcome::new();
    out.bare = true;
    let Some(topic) = a.first() else {
        out.lines = overview();
        return Ok(out);
    };
    let topic = args::text(topic, "command")?;
    if let Some(command) = super::find(&topic) {
        out.lines = command.help.lines().map(str::to_string).collect();
        return Ok(out);
    }
    let Some(group) = Group::ALL.into_iter().find(|g| g.name() == topic) else {
        return Err(CmdError::new(format!("Unknown command or group: {topic}")));
    };
    out.lines.push(format!("Command group: {}", group.name()));
    out.lines.push(format!("  {}", group.title()));
    for command in super::ALL.iter().filter(|c| c.group == group) {
        out.lines.push(String::new());
        out.lines.push(format!("Command: {}", command.name));
        out.lines.extend(command.help.lines().map(str::to_string));
    }
    Ok(out)
}
