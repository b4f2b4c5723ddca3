//! `grant 'user' | '@group', 'RWXCA' [, '@ns' | 'table' [, 'family' [, 'qualifier']]]`
//!
//! Gives a user or group permissions at global, namespace, table, family or qualifier
//! scope, replacing what it held at that scope. Prints nothing but the time taken.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::{Actions, UserPermission};

pub static COMMAND: Command = Command {
    name: "grant",
    group: Group::Security,
    help: HELP,
    run,
};

const HELP: &str = "Grant users specific rights.
Syntax: grant <user or @group>, <permissions> [, <@namespace> [, <table> [, <column family> [, <column qualifier>]]]]

permissions is either zero or more letters from the set \"RWXCA\".
READ('R'), WRITE('W'), EXEC('X'), CREATE('C'), ADMIN('A')

Note: Groups and users are granted access in the same way, but groups are prefixed with an '@'
      character. Tables and namespaces are specified the same way, but namespaces are
      prefixed with an '@' character.

For example:

    hbase> grant 'bobsmith', 'RWXCA'
    hbase> grant '@admins', 'RWXCA'
    hbase> grant 'bobsmith', 'RWXCA', '@ns1'
    hbase> grant 'bobsmith', 'RW', 't1', 'f1', 'col1'
    hbase> grant 'bobsmith', 'RW', 'ns1:t1', 'f1', 'col1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 2, 5)?;
    let user = args::text(&a[0], "user or @group")?;
    let letters = args::text(&a[1], "permissions")?;
    let actions = Actions::parse(&letters).map_err(CmdError::new)?;
    let scope = super::security::scope(ctx, &a[2..])?;
    ctx.admin()
        .grant(&UserPermission::new(user, scope, actions))?;
    Ok(Outcome::new())
}
