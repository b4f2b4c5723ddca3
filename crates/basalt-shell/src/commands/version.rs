//! `version`
//!
//! Prints the HBase version Basalt speaks for, Basalt's version, and what it is.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "version",
    group: Group::General,
    help: HELP,
    run,
};

const HELP: &str = "Output this HBase version
";

/// The HBase release whose shell this one copies.
pub const HBASE_VERSION: &str = "2.5.5";

/// `2.5.5, rbasalt-0.1.0, Basalt: Apache HBase rebuilt in Rust`.
pub fn version_line() -> String {
    format!(
        "{HBASE_VERSION}, rbasalt-{}, Basalt: Apache HBase rebuilt in Rust",
        env!("CARGO_PKG_VERSION")
    )
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 0)?;
    Ok(Outcome::new().line(version_line()))
}
