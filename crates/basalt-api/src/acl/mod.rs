//! Grants as plain data: HBase's permissions (`R`, `W`, `X`, `C`, `A`), the scope a grant
//! applies to (global, a namespace, a table, a family, a qualifier), and a user's (or an
//! `@group`'s) grant at one scope; [`grants`]: the table of grants a catalog keeps. Deciding what a grant allows is `basalt-acl`'s work;
//! this module only names things, so every connection can carry grants.
//!
//! | code | HBase action | allows (see the ACL matrix in `basalt-acl`)          |
//! |------|--------------|------------------------------------------------------|
//! | `R`  | READ         | get, scan, exists                                    |
//! | `W`  | WRITE        | put, delete, increment, append (not reading)         |
//! | `X`  | EXEC         | coprocessor endpoints (none in Basalt yet)           |
//! | `C`  | CREATE       | create, alter, drop tables; flush and compact        |
//! | `A`  | ADMIN        | grants, assignment, balancing, namespaces, snapshots |

pub mod grants;

pub use grants::Grants;

use basalt_types::TableName;
use bytes::Bytes;
use std::fmt;

/// The exception HBase names a refused call with.
pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

/// One permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Permission {
    Read,
    Write,
    Exec,
    Create,
    Admin,
}

impl Permission {
    pub const ALL: [Permission; 5] = [
        Permission::Read,
        Permission::Write,
        Permission::Exec,
        Permission::Create,
        Permission::Admin,
    ];

    /// The letter the shell's `grant` takes.
    pub fn code(self) -> char {
        match self {
            Permission::Read => 'R',
            Permission::Write => 'W',
            Permission::Exec => 'X',
            Permission::Create => 'C',
            Permission::Admin => 'A',
        }
    }

    /// HBase's name (`Permission.Action`).
    pub fn hbase_name(self) -> &'static str {
        match self {
            Permission::Read => "READ",
            Permission::Write => "WRITE",
            Permission::Exec => "EXEC",
            Permission::Create => "CREATE",
            Permission::Admin => "ADMIN",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of permissions, as the shell writes it (`RWXCA`, in that order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Actions(u8);

impl Actions {
    pub const NONE: Actions = Actions(0);
    pub const ALL: Actions = Actions(0b1_1111);

    /// Parses the shell's letters (`'RW'`, case-insensitive); any other letter is an error
    /// naming it, as HBase refuses it.
    pub fn parse(text: &str) -> Result<Actions, String> {
        let mut set = Actions::NONE;
        for c in text.chars() {
            let action = Permission::ALL
                .into_iter()
                .find(|a| a.code() == c.to_ascii_uppercase())
                .ok_or_else(|| {
                    format!("Unknown permission '{c}' in '{text}': use R, W, X, C and A")
                })?;
            set = set.with(action);
        }
        Ok(set)
    }

    pub fn of(actions: &[Permission]) -> Actions {
        actions.iter().fold(Actions::NONE, |s, a| s.with(*a))
    }

    pub fn with(self, action: Permission) -> Actions {
        Actions(self.0 | action.bit())
    }

    pub fn without(self, other: Actions) -> Actions {
        Actions(self.0 & !other.0)
    }

    pub fn union(self, other: Actions) -> Actions {
        Actions(self.0 | other.0)
    }

    pub fn contains(self, action: Permission) -> bool {
        self.0 & action.bit() != 0
    }

    pub fn contains_all(self, other: Actions) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Permission> {
        Permission::ALL
            .into_iter()
            .filter(move |a| self.contains(*a))
    }

    /// `READ,WRITE`: how HBase prints the set (`Permission.toString`).
    pub fn hbase_names(self) -> String {
        self.iter()
            .map(Permission::hbase_name)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The letters, `RWXCA` order.
impl fmt::Display for Actions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.iter().try_for_each(|a| write!(f, "{}", a.code()))
    }
}

/// Where a grant applies. A family or qualifier scope is part of a table scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Namespace(String),
    Table {
        table: TableName,
        family: Option<Bytes>,
        /// Only with a family.
        qualifier: Option<Bytes>,
    },
}

impl Scope {
    pub fn table(table: TableName) -> Scope {
        Scope::Table {
            table,
            family: None,
            qualifier: None,
        }
    }

    /// Whether a grant at `self` applies at `other`: the same scope or a wider one
    /// (global covers everything; a namespace its tables; a table its families; a family
    /// its qualifiers).
    pub fn covers(&self, other: &Scope) -> bool {
        match (self, other) {
            (Scope::Global, _) => true,
            (Scope::Namespace(ns), Scope::Namespace(o)) => ns == o,
            (Scope::Namespace(ns), Scope::Table { table, .. }) => table.namespace() == ns,
            (
                Scope::Table {
                    table,
                    family,
                    qualifier,
                },
                Scope::Table {
                    table: t,
                    family: f,
                    qualifier: q,
                },
            ) => {
                table == t
                    && (family.is_none() || family == f)
                    && (qualifier.is_none() || qualifier == q)
            }
            _ => false,
        }
    }

    /// The table a table, family or qualifier scope is in.
    pub fn table_name(&self) -> Option<&TableName> {
        match self {
            Scope::Table { table, .. } => Some(table),
            _ => None,
        }
    }
}

/// `global`, `@ns`, `t`, `t, f`, `t, f:q`: what a denial or a log line names.
impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str("global"),
            Scope::Namespace(ns) => write!(f, "@{ns}"),
            Scope::Table {
                table,
                family,
                qualifier,
            } => {
                write!(f, "{table}")?;
                if let Some(family) = family {
                    write!(f, ", {}", String::from_utf8_lossy(family))?;
                }
                if let Some(q) = qualifier {
                    write!(f, ":{}", String::from_utf8_lossy(q))?;
                }
                Ok(())
            }
        }
    }
}

/// One user's (or `@group`'s) permissions at one scope (HBase's `UserPermission`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserPermission {
    /// A user name, or `@group`.
    pub user: String,
    pub scope: Scope,
    pub actions: Actions,
}

impl UserPermission {
    pub fn new(user: impl Into<String>, scope: Scope, actions: Actions) -> Self {
        UserPermission {
            user: user.into(),
            scope,
            actions,
        }
    }

    /// Whether `user` names a group (`@name`).
    pub fn is_group(&self) -> bool {
        self.user.starts_with('@')
    }
}

/// Which grants `get_user_permissions` lists: those at `scope` (every scope when `None`),
/// of `user` when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionQuery {
    /// `Global`, `Namespace(ns)`, or a table (family and qualifier narrowing it further).
    pub scope: Option<Scope>,
    pub user: Option<String>,
}

/// A connection that keeps no grants refuses the ACL calls by name.
pub fn acl_unsupported(command: &str) -> crate::ApiError {
    crate::ApiError::new(
        crate::ErrorKind::InvalidRequest,
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        format!("{command}: this connection keeps no grants (authorization is not available here)"),
    )
}

/// An access denial as HBase words it:
/// `Insufficient permissions for user 'u' (table=t, family=f, action=READ)`.
pub fn access_denied(message: impl Into<String>) -> crate::ApiError {
    crate::ApiError::new(crate::ErrorKind::InvalidRequest, ACCESS_DENIED, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_parse_and_print_as_the_shell_writes_them() {
        let a = Actions::parse("wr").expect("valid letters");
        assert_eq!(a.to_string(), "RW");
        assert_eq!(a.hbase_names(), "READ,WRITE");
        assert_eq!(Actions::ALL.to_string(), "RWXCA");
        let err = Actions::parse("RZ").expect_err("Z is no permission");
        assert!(err.contains("'Z'"), "{err}");
        assert!(Actions::ALL.contains_all(a) && !a.contains_all(Actions::ALL));
    }

    #[test]
    fn a_wider_scope_covers_a_narrower_one_and_not_the_reverse() {
        let t = TableName::parse("ns:t").expect("valid name");
        let family = Scope::Table {
            table: t.clone(),
            family: Some(Bytes::from_static(b"f")),
            qualifier: None,
        };
        let table = Scope::table(t);
        let ns = Scope::Namespace("ns".into());
        assert!(Scope::Global.covers(&family) && ns.covers(&family) && table.covers(&family));
        assert!(!family.covers(&table) && !table.covers(&ns));
        assert!(!Scope::Namespace("other".into()).covers(&table));
    }
}
