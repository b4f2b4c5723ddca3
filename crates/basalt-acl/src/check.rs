//! The decision: may this principal run this operation on this object, given the grants?
//! Pure: the grants are handed in, nothing is read or written here.
//!
//! A principal holds a grant made to its name, or to `@group` for one of its groups.
//! Superusers (names and `@groups` from the configuration) are always allowed. For an
//! alternative `(level, actions)` of the operation's [`Rule`], the principal must hold
//! every one of `actions` in grants made at exactly the object's scope of that level
//! (wider levels are alternatives of their own). Permissions of different grants add up:
//! `R` at `@ns` and `W` at `@ns` together allow `RW` at `NS`.

use crate::matrix::{alternatives, named_action, Level, Op, Rule};
use basalt_api::acl::access_denied;
use basalt_api::{Actions, ApiError, Grants, Principal, Scope};
use basalt_types::TableName;
use bytes::Bytes;
use std::fmt;

/// What an operation acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Object {
    Global,
    Namespace(String),
    Table(TableName),
    /// A family (every qualifier of it when `qualifier` is `None`) or one column.
    Column {
        table: TableName,
        family: Bytes,
        qualifier: Option<Bytes>,
    },
}

impl Object {
    /// The object's scope at `level`, if it has one (a table has no family scope).
    pub fn scope_at(&self, level: Level) -> Option<Scope> {
        let (table, family, qualifier) = match self {
            Object::Global => return (level == Level::Global).then_some(Scope::Global),
            Object::Namespace(ns) => {
                return match level {
                    Level::Global => Some(Scope::Global),
                    Level::Namespace => Some(Scope::Namespace(ns.clone())),
                    _ => None,
                }
            }
            Object::Table(t) => (t, None, None),
            Object::Column {
                table,
                family,
                qualifier,
            } => (table, Some(family), qualifier.as_ref()),
        };
        let at = |family: Option<&Bytes>, qualifier: Option<&Bytes>| Scope::Table {
            table: table.clone(),
            family: family.cloned(),
            qualifier: qualifier.cloned(),
        };
        match level {
            Level::Global => Some(Scope::Global),
            Level::Namespace => Some(Scope::Namespace(table.namespace().to_string())),
            Level::Table => Some(at(None, None)),
            Level::Family => family.map(|f| at(Some(f), None)),
            Level::Qualifier => qualifier.map(|q| at(family, Some(q))),
        }
    }

    /// How a denial names it: `global`, `namespace=ns`, `table=t, family=f:q`.
    pub fn context(&self) -> String {
        match self {
            Object::Global => "global".to_string(),
            Object::Namespace(ns) => format!("namespace={ns}"),
            Object::Table(t) => format!("table={t}"),
            Object::Column {
                table,
                family,
                qualifier,
            } => {
                let mut s = format!("table={table}, family={}", String::from_utf8_lossy(family));
                if let Some(q) = qualifier {
                    s.push(':');
                    s.push_str(&String::from_utf8_lossy(q));
                }
                s
            }
        }
    }
}

/// A refusal, worded as HBase's `AccessDeniedException`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Insufficient permissions for user '{user}' ({context}, action={action})")]
pub struct AccessDenied {
    pub user: String,
    pub op: &'static str,
    pub context: String,
    pub action: &'static str,
}

impl From<AccessDenied> for ApiError {
    fn from(d: AccessDenied) -> Self {
        access_denied(d.to_string())
    }
}

/// The configured superusers; the decisions hang off it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checker {
    superusers: Vec<String>,
}

impl Checker {
    /// `superusers`: user names, and `@group` for every member of a group.
    pub fn new(superusers: impl IntoIterator<Item = String>) -> Self {
        Checker {
            superusers: superusers.into_iter().collect(),
        }
    }

    pub fn superusers(&self) -> &[String] {
        &self.superusers
    }

    pub fn is_superuser(&self, p: &Principal) -> bool {
        self.superusers.iter().any(|s| names(p, s))
    }

    /// Allowed, or the denial naming the user, the object and the action.
    pub fn check(
        &self,
        grants: &Grants,
        p: &Principal,
        op: Op,
        object: &Object,
    ) -> Result<(), AccessDenied> {
        if self.is_superuser(p) {
            return Ok(());
        }
        let Rule::AnyOf(_) = op.rule() else {
            return Ok(());
        };
        for (level, want) in alternatives(op.rule()) {
            let Some(scope) = object.scope_at(level) else {
                continue;
            };
            if held_at(grants, p, &scope).contains_all(want) {
                return Ok(());
            }
        }
        Err(AccessDenied {
            user: p.name().to_string(),
            op: op.name(),
            context: object.context(),
            action: named_action(op.rule()).hbase_name(),
        })
    }

    /// Whether the principal holds any permission at all on `scope` or inside it, or at a
    /// scope covering it (what listings keep).
    pub fn sees(&self, grants: &Grants, p: &Principal, scope: &Scope) -> bool {
        self.is_superuser(p)
            || grants
                .iter()
                .any(|g| names(p, &g.user) && (g.scope.covers(scope) || scope.covers(&g.scope)))
    }
}

/// Whether the grant's user field (`name` or `@group`) names the principal.
pub fn names(p: &Principal, user: &str) -> bool {
    match user.strip_prefix('@') {
        Some(group) => p.groups().iter().any(|g| g == group),
        None => user == p.name(),
    }
}

/// The union of the principal's actions granted at exactly `scope`.
pub fn held_at(grants: &Grants, p: &Principal, scope: &Scope) -> Actions {
    grants
        .iter()
        .filter(|g| &g.scope == scope && names(p, &g.user))
        .fold(Actions::NONE, |a, g| a.union(g.actions))
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.context())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::{AuthMethod, UserPermission};

    fn grants(list: &[(&str, Scope, &str)]) -> Grants {
        Grants::from_permissions(list.iter().map(|(u, s, a)| {
            UserPermission::new(*u, s.clone(), Actions::parse(a).expect("letters"))
        }))
    }

    #[test]
    fn decisions_follow_the_matrix() {
        let t = TableName::parse("ns:t").expect("name");
        let ns = || Scope::Namespace("ns".into());
        let g = grants(&[
            ("amy", ns(), "R"),
            ("@devs", ns(), "W"),
            ("cid", Scope::table(t.clone()), "C"),
        ]);
        let checker = Checker::new(["root".to_string()]);
        let amy = Principal::new("amy", AuthMethod::Simple).with_groups(["devs".into()]);
        let cid = Principal::new("cid", AuthMethod::Simple);
        let root = Principal::new("root", AuthMethod::Simple);
        let table = Object::Table(t.clone());
        // R (own grant) and W (group grant) add up to checkAndMutate's RW.
        assert_eq!(checker.check(&g, &amy, Op::CheckAndMutate, &table), Ok(()));
        // Table-level C allows dropping the table but not creating tables in its namespace.
        assert_eq!(checker.check(&g, &cid, Op::DeleteTable, &table), Ok(()));
        let denied = checker
            .check(&g, &cid, Op::CreateTable, &Object::Namespace("ns".into()))
            .expect_err("C on a table is not C on its namespace");
        assert_eq!(
            denied.to_string(),
            "Insufficient permissions for user 'cid' (namespace=ns, action=CREATE)"
        );
        let denied = checker
            .check(&g, &amy, Op::Balance, &Object::Global)
            .expect_err("A");
        assert_eq!(
            denied.to_string(),
            "Insufficient permissions for user 'amy' (global, action=ADMIN)"
        );
        assert_eq!(
            checker.check(&g, &root, Op::Balance, &Object::Global),
            Ok(())
        );
    }
}
