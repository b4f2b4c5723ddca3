//! The grants table: who holds which permissions at which scope (HBase's `hbase:acl`).
//!
//! One entry per (scope, user); a `grant` replaces the entry's actions (as HBase's shell
//! grant does), a `revoke` removes actions from it and the entry once it is empty. The
//! table is kept by whoever owns the catalog (the master in the coordinator, the embedded
//! database in its folder), each entry encoded as one line:
//!
//! ```text
//! <user> TAB <actions> TAB <scope>
//! alice   RW      table default:t f q      (family and qualifier in Bytes.toStringBinary)
//! @ops    A       namespace ns1
//! bob     C       global
//! ```

use super::{Actions, PermissionQuery, Scope, UserPermission};
use basalt_types::TableName;
use bytes::Bytes;
use std::collections::BTreeMap;

/// Every grant, by scope then user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    entries: BTreeMap<(Scope, String), Actions>,
}

impl Grants {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn from_permissions(list: impl IntoIterator<Item = UserPermission>) -> Self {
        let mut g = Grants::new();
        for p in list {
            g.grant(&p);
        }
        g
    }

    /// Replaces the user's actions at the scope; granting nothing removes the entry.
    pub fn grant(&mut self, p: &UserPermission) {
        let key = (p.scope.clone(), p.user.clone());
        if p.actions.is_empty() {
            self.entries.remove(&key);
        } else {
            self.entries.insert(key, p.actions);
        }
    }

    /// Removes actions (all when `p.actions` is empty) at exactly the scope; answers the
    /// actions left (none: the entry went), or `None` when the user held nothing there.
    pub fn revoke(&mut self, p: &UserPermission) -> Option<Actions> {
        let key = (p.scope.clone(), p.user.clone());
        let held = *self.entries.get(&key)?;
        let left = if p.actions.is_empty() {
            Actions::NONE
        } else {
            held.without(p.actions)
        };
        if left.is_empty() {
            self.entries.remove(&key);
        } else {
            self.entries.insert(key, left);
        }
        Some(left)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = UserPermission> + '_ {
        self.entries
            .iter()
            .map(|((scope, user), a)| UserPermission::new(user.clone(), scope.clone(), *a))
    }

    /// The grants a query selects: at the query's scope (a table query also lists its
    /// family and qualifier grants), of its user when given.
    pub fn query(&self, q: &PermissionQuery) -> Vec<UserPermission> {
        self.iter()
            .filter(|p| q.user.as_ref().is_none_or(|u| &p.user == u))
            .filter(|p| match &q.scope {
                None => true,
                Some(Scope::Table { .. }) => q.scope.as_ref().is_some_and(|s| s.covers(&p.scope)),
                Some(s) => s == &p.scope,
            })
            .collect()
    }

    /// Removes every grant on the table (its families and qualifiers too); answers them.
    pub fn drop_table(&mut self, table: &TableName) -> Vec<UserPermission> {
        self.drop_where(|s| s.table_name() == Some(table))
    }

    /// Removes the namespace's own grants; answers them. (Its tables are dropped first,
    /// each taking its grants.)
    pub fn drop_namespace(&mut self, namespace: &str) -> Vec<UserPermission> {
        self.drop_where(|s| matches!(s, Scope::Namespace(ns) if ns == namespace))
    }

    fn drop_where(&mut self, gone: impl Fn(&Scope) -> bool) -> Vec<UserPermission> {
        let keys: Vec<_> = self
            .entries
            .keys()
            .filter(|(s, _)| gone(s))
            .cloned()
            .collect();
        keys.into_iter()
            .filter_map(|k| {
                let a = self.entries.remove(&k)?;
                Some(UserPermission::new(k.1, k.0, a))
            })
            .collect()
    }

    /// Every entry, one line each (the module doc's form), sorted.
    pub fn encode(&self) -> String {
        self.iter().map(|p| encode_line(&p) + "\n").collect()
    }

    /// Reads [`Grants::encode`]'s text; a bad line is an error naming its number.
    pub fn decode(text: &str) -> Result<Grants, String> {
        let mut g = Grants::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let p = decode_line(line).map_err(|e| format!("grants line {}: {e}", n + 1))?;
            g.grant(&p);
        }
        Ok(g)
    }
}

/// One grant as a line: `user TAB actions TAB scope`.
pub fn encode_line(p: &UserPermission) -> String {
    format!("{}\t{}\t{}", p.user, p.actions, encode_scope(&p.scope))
}

/// The scope's words: `global`, `namespace NS`, `table NS:T [F [Q]]`.
pub fn encode_scope(scope: &Scope) -> String {
    match scope {
        Scope::Global => "global".to_string(),
        Scope::Namespace(ns) => format!("namespace {ns}"),
        Scope::Table {
            table,
            family,
            qualifier,
        } => {
            let mut s = format!("table {}:{}", table.namespace(), table.qualifier());
            for part in [family, qualifier].into_iter().flatten() {
                s.push(' ');
                s.push_str(&escape(part));
            }
            s
        }
    }
}

/// A grant as the coordinator keys it (HBase's `hbase:acl` row): the entry name
/// `<scope words> TAB <user>`, its value the actions (`RW`).
pub fn entry_name(scope: &Scope, user: &str) -> String {
    format!("{}\t{user}", encode_scope(scope))
}

/// Reads back [`entry_name`]'s name and the actions stored under it.
pub fn decode_entry(name: &str, actions: &[u8]) -> Result<UserPermission, String> {
    let (scope, user) = name
        .rsplit_once('\t')
        .ok_or("no user in the grant's name")?;
    let actions = std::str::from_utf8(actions).map_err(|_| "permissions are not text")?;
    Ok(UserPermission::new(
        user,
        decode_scope(scope)?,
        Actions::parse(actions)?,
    ))
}

pub fn decode_line(line: &str) -> Result<UserPermission, String> {
    let mut parts = line.splitn(3, '\t');
    let (Some(user), Some(actions), Some(scope)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("expected user, actions and scope: {line:?}"));
    };
    if user.is_empty() {
        return Err(format!("no user in {line:?}"));
    }
    let actions = Actions::parse(actions)?;
    Ok(UserPermission::new(user, decode_scope(scope)?, actions))
}

pub fn decode_scope(text: &str) -> Result<Scope, String> {
    let words: Vec<&str> = text.split(' ').collect();
    match words.as_slice() {
        ["global"] => Ok(Scope::Global),
        ["namespace", ns] => Ok(Scope::Namespace(ns.to_string())),
        ["table", t, rest @ ..] if rest.len() <= 2 => {
            let table = TableName::parse(t).map_err(|e| format!("bad table {t:?}: {e}"))?;
            let family = rest.first().map(|f| unescape(f)).transpose()?;
            let qualifier = rest.get(1).map(|q| unescape(q)).transpose()?;
            Ok(Scope::Table {
                table,
                family,
                qualifier,
            })
        }
        _ => Err(format!("unknown scope {text:?}")),
    }
}

/// Printable ASCII except space, tab and backslash as is; other bytes `\xNN`.
fn escape(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'!'..=b'~' if b != b'\\' => (b as char).to_string(),
            _ => format!("\\x{b:02X}"),
        })
        .collect()
}

fn unescape(text: &str) -> Result<Bytes, String> {
    let raw = text.as_bytes();
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' {
            let hex = text
                .get(i + 2..i + 4)
                .filter(|_| raw.get(i + 1) == Some(&b'x'))
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad escape in {text:?}"))?;
            out.push(hex);
            i += 4;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Permission;

    fn t(name: &str) -> TableName {
        TableName::parse(name).expect("valid name")
    }

    #[test]
    fn grants_replace_revokes_subtract_and_lines_round_trip() {
        let mut g = Grants::new();
        let fam = Scope::Table {
            table: t("ns:t"),
            family: Some(Bytes::from_static(b"f 1")),
            qualifier: Some(Bytes::from_static(b"q\\\x00")),
        };
        g.grant(&UserPermission::new("alice", fam.clone(), Actions::ALL));
        g.grant(&UserPermission::new(
            "alice",
            fam.clone(),
            Actions::parse("RW").expect("RW are permissions"),
        ));
        g.grant(&UserPermission::new(
            "@ops",
            Scope::Namespace("ns".into()),
            Actions::ALL,
        ));
        g.grant(&UserPermission::new(
            "bob",
            Scope::Global,
            Actions::of(&[Permission::Create]),
        ));
        let text = g.encode();
        assert_eq!(Grants::decode(&text), Ok(g.clone()), "{text}");
        assert!(
            text.contains("alice\tRW\ttable ns:t f\\x201 q\\x5C\\x00\n"),
            "{text}"
        );
        let left = g.revoke(&UserPermission::new(
            "alice",
            fam,
            Actions::of(&[Permission::Write]),
        ));
        assert_eq!(left, Some(Actions::of(&[Permission::Read])));
        assert_eq!(g.drop_table(&t("ns:t")).len(), 1);
        assert_eq!(g.drop_namespace("ns").len(), 1);
        assert_eq!(g.len(), 1);
        assert!(Grants::decode("bob\tRZ\tglobal")
            .expect_err("Z is no permission")
            .contains("line 1"));
    }
}
