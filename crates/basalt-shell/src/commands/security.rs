//! What `grant`, `revoke` and `user_permission` share: the scope words HBase's shell takes
//! (`'@ns'`, `'table' [, 'family' [, 'qualifier']]`, checked to exist as HBase's shell
//! checks them), and the `Namespace,Table,Family,Qualifier:Permission` rows it prints.

use crate::args;
use crate::command::{CmdError, Ctx};
use crate::parse::Value;
use basalt_api::{Scope, UserPermission};
use bytes::Bytes;

/// The scope named by the arguments after the user (and permissions): none is global.
pub fn scope(ctx: &Ctx, a: &[Value]) -> Result<Scope, CmdError> {
    let Some(first) = a.first() else {
        return Ok(Scope::Global);
    };
    if args::hash(first).is_some() || a.get(1).and_then(args::hash).is_some() {
        return Err(CmdError::new(
            "cell permissions (a scan specification) are not supported by Basalt",
        ));
    }
    let name = args::text(first, "table or @namespace")?;
    if let Some(ns) = name.strip_prefix('@') {
        if a.len() > 1 {
            return Err(CmdError::new(format!(
                "a namespace scope takes no family or qualifier: '@{ns}'"
            )));
        }
        if ctx.admin().describe_namespace(ns).is_err() {
            return Err(CmdError::new(format!("Can't find a namespace: {ns}")));
        }
        return Ok(Scope::Namespace(ns.to_string()));
    }
    let table = args::table_name(first)?;
    if !ctx.admin().table_exists(&table)? {
        return Err(CmdError::new(format!("Can't find a table: {table}")));
    }
    let family = a
        .get(1)
        .map(|v| args::bytes(v, "column family"))
        .transpose()?;
    if let Some(f) = &family {
        let d = ctx.admin().describe_table(&table)?;
        if d.family(f).is_none() {
            return Err(CmdError::new(format!(
                "Can't find a family: {}",
                String::from_utf8_lossy(f)
            )));
        }
    }
    let qualifier = a
        .get(2)
        .map(|v| args::bytes(v, "column qualifier"))
        .transpose()?;
    Ok(Scope::Table {
        table,
        family,
        qualifier,
    })
}

fn text(b: &Option<Bytes>) -> String {
    b.as_ref()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

/// `ns,ns:t,f,q: [Permission: actions=READ,WRITE]` (a global grant: `,,,:`).
pub fn describe(p: &UserPermission) -> String {
    let (ns, table, family, qualifier) = match &p.scope {
        Scope::Global => Default::default(),
        Scope::Namespace(ns) => (ns.clone(), String::new(), String::new(), String::new()),
        Scope::Table {
            table,
            family,
            qualifier,
        } => (
            table.namespace().to_string(),
            table.to_string(),
            text(family),
            text(qualifier),
        ),
    };
    format!(
        "{ns},{table},{family},{qualifier}: [Permission: actions={}]",
        p.actions.hbase_names()
    )
}
