//! `user_permission` · `user_permission '@ns'` · `user_permission 'table regex'`
//!
//! Prints `User  Namespace,Table,Family,Qualifier:Permission`, one grant per line
//! (` bob  ns1,ns1:t1,f1,c1: [Permission: actions=READ,WRITE]`) and `N row(s)`: the global
//! grants with no argument, the namespace's with `'@ns'`, and every grant on each table
//! the regular expression matches (its families and qualifiers too).

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::{PermissionQuery, Scope};

pub static COMMAND: Command = Command {
    name: "user_permission",
    group: Group::Security,
    help: HELP,
    run,
};

const HELP: &str = "Show all permissions for the particular user.
Syntax : user_permission <table>

Note: A namespace must always precede with '@' character.

For example:

    hbase> user_permission
    hbase> user_permission '@ns1'
    hbase> user_permission '@.*'
    hbase> user_permission '@^[a-c].*'
    hbase> user_permission 'table1'
    hbase> user_permission 'namespace1:table1'
    hbase> user_permission '.*'
    hbase> user_permission '^[A-C].*'
";

fn scopes(ctx: &Ctx, arg: Option<String>) -> Result<Vec<Scope>, CmdError> {
    let Some(arg) = arg else {
        return Ok(vec![Scope::Global]);
    };
    if let Some(ns) = arg.strip_prefix('@') {
        let re = regex::Regex::new(&format!("^(?:{ns})$"))
            .map_err(|e| CmdError::new(format!("bad regex '{ns}': {e}")))?;
        return Ok(ctx
            .admin()
            .list_namespaces()?
            .into_iter()
            .filter(|n| re.is_match(&n.name))
            .map(|n| Scope::Namespace(n.name))
            .collect());
    }
    Ok(ctx
        .admin()
        .list_tables(Some(&arg))?
        .into_iter()
        .map(Scope::table)
        .collect())
}

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 1)?;
    let arg = a
        .first()
        .map(|v| args::text(v, "table regex or @namespace"))
        .transpose()?;
    let console = ctx.console();
    let mut out = Outcome::new();
    out.lines = console.header("User", "Namespace,Table,Family,Qualifier:Permission");
    let mut rows = 0;
    for scope in scopes(ctx, arg)? {
        let query = PermissionQuery {
            scope: Some(scope),
            user: None,
        };
        for p in ctx.admin().get_user_permissions(&query)? {
            out.lines
                .extend(console.row(&p.user, &super::security::describe(&p)));
            rows += 1;
        }
    }
    Ok(out.rows(rows))
}
