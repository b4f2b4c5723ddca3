//! `revoke 'user' | '@group' [, '@ns' | 'table' [, 'family' [, 'qualifier']]]`
//!
//! Takes away every permission the user or group holds at exactly that scope (global when
//! none is given). Prints nothing but the time taken.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::{Actions, UserPermission};

pub static COMMAND: Command = Command {
    name: "revoke",
    group: Group::Security,
    help: HELP,
    run,
};

const HELP: &str = "Revoke a user's access rights.
Syntax: revoke <user or @group> [, <@namespace> [, <table> [, <column family> [, <column qualifier>]]]]

Note: Groups and users access are revoked in the same way, but groups are prefixed with an '@'
      character. Tables and namespaces are specified the same way, but namespaces are
      prefixed with an '@' character.

For example:

    hbase> revoke 'bobsmith'
    hbase> revoke '@admins'
    hbase> revoke 'bobsmith', '@ns1'
    hbase> revoke 'bobsmith', 't1', 'f1', 'col1'
    hbase> revoke 'bobsmith', 'ns1:t1', 'f1', 'col1'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 4)?;
    let user = args::text(&a[0], "user or @group")?;
    let scope = super::security::scope(ctx, &a[1..])?;
    ctx.admin()
        .revoke(&UserPermission::new(user, scope, Actions::NONE))?;
    Ok(Outcome::new())
}
