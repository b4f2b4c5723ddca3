//! `split 't' [, 'splitKey']` · `split 'REGIONNAME' [, 'splitKey']`
//!
//! Splits every region of the table at its midpoint, or the region holding the key at
//! the key. Prints nothing.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "split",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Split entire table or pass a region to split individual region.  With the
second parameter, you can specify an explicit split key for the region.
Examples:
    split 'TABLENAME'
    split 'REGIONNAME'
    split 'ENCODED_REGIONNAME'
    split 'TABLENAME', 'splitKey'
    split 'REGIONNAME', 'splitKey'
    split 'ENCODED_REGIONNAME', 'splitKey'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let table = super::flush::table_of(ctx, &a[0])?;
    let key = a.get(1).map(|k| args::bytes(k, "split key")).transpose()?;
    ctx.admin().split(&table, key.as_deref())?;
    Ok(Outcome::new())
}
