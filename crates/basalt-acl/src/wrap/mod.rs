//! [`AuthorizedConnection`]: any connection, with every call checked for one principal.
//!
//! `AuthorizedConnection::new(inner, principal, checker, grants)` hands out tables and an
//! admin that check each call against the [`crate::matrix`] before passing it to
//! `inner`, and filter what reads return to the families and columns the principal may
//! read ([`crate::read`]). A refused call is HBase's `AccessDeniedException` and never
//! reaches `inner`; each refusal is logged (`WARN access denied`, target
//! `basalt_acl::audit`). Listeners build one per request (or per connection) for the
//! principal they established.

mod admin;
mod table;

use crate::check::{Checker, Object};
use crate::matrix::Op;
use crate::read::ReadAccess;
use crate::source::GrantSource;
use basalt_api::{Admin, Connection, Principal, Result, Scope, Table};
use basalt_types::TableName;
use std::sync::Arc;

/// Whose calls a connection checks.
#[derive(Clone)]
enum Who {
    /// One principal for every call.
    Fixed(Principal),
    /// The principal of the call running on this thread ([`crate::context`]); calls
    /// with none run as this one (an anonymous user, holding no grant).
    PerCall(Principal),
}

/// Who is asking, and how to decide: shared by the connection's tables and admin.
#[derive(Clone)]
pub(crate) struct Guard {
    who: Who,
    checker: Arc<Checker>,
    grants: Arc<dyn GrantSource>,
}

impl Guard {
    pub(crate) fn principal(&self) -> Principal {
        match &self.who {
            Who::Fixed(p) => p.clone(),
            Who::PerCall(none) => crate::context::current().unwrap_or_else(|| none.clone()),
        }
    }

    pub(crate) fn check(&self, op: Op, object: &Object) -> Result<()> {
        let grants = self.grants.grants()?;
        let principal = self.principal();
        self.checker
            .check(&grants, &principal, op, object)
            .map_err(|d| {
                tracing::warn!(target: "basalt_acl::audit", user = %principal,
                    op = op.name(), object = %object, "access denied");
                d.into()
            })
    }

    pub(crate) fn read(&self, op: Op, table: &TableName) -> Result<ReadAccess> {
        let grants = self.grants.grants()?;
        let principal = self.principal();
        self.checker
            .read_access(&grants, &principal, op, table)
            .map_err(|d| {
                tracing::warn!(target: "basalt_acl::audit", user = %principal,
                    op = op.name(), table = %table, "access denied");
                d.into()
            })
    }

    pub(crate) fn sees(&self, scope: &Scope) -> Result<bool> {
        let grants = self.grants.grants()?;
        Ok(self.checker.sees(&grants, &self.principal(), scope))
    }
}

/// The object a grant's scope names.
pub fn object_of(scope: &Scope) -> Object {
    match scope {
        Scope::Global => Object::Global,
        Scope::Namespace(ns) => Object::Namespace(ns.clone()),
        Scope::Table {
            table,
            family: None,
            ..
        } => Object::Table(table.clone()),
        Scope::Table {
            table,
            family: Some(f),
            qualifier,
        } => Object::Column {
            table: table.clone(),
            family: f.clone(),
            qualifier: qualifier.clone(),
        },
    }
}

/// A connection whose every call is checked for one principal.
pub struct AuthorizedConnection {
    inner: Arc<dyn Connection>,
    guard: Guard,
}

impl AuthorizedConnection {
    pub fn new(
        inner: Arc<dyn Connection>,
        principal: Principal,
        checker: Arc<Checker>,
        grants: Arc<dyn GrantSource>,
    ) -> Self {
        AuthorizedConnection {
            inner,
            guard: Guard {
                who: Who::Fixed(principal),
                checker,
                grants,
            },
        }
    }

    /// A connection serving many principals: each call is checked for the principal a
    /// server set for it ([`crate::context::with`]); a call with none set runs as an
    /// anonymous user, who holds no grant.
    pub fn per_call(
        inner: Arc<dyn Connection>,
        checker: Arc<Checker>,
        grants: Arc<dyn GrantSource>,
    ) -> Self {
        let anonymous = Principal::new("", basalt_api::AuthMethod::Simple);
        AuthorizedConnection {
            inner,
            guard: Guard {
                who: Who::PerCall(anonymous),
                checker,
                grants,
            },
        }
    }

    /// The principal calls are checked for now.
    pub fn principal(&self) -> Principal {
        self.guard.principal()
    }
}

impl Connection for AuthorizedConnection {
    fn table(&self, name: &TableName) -> Result<Arc<dyn Table>> {
        let inner = self.inner.table(name)?;
        Ok(Arc::new(table::AuthorizedTable::new(
            inner,
            self.guard.clone(),
        )))
    }

    fn admin(&self) -> Arc<dyn Admin> {
        Arc::new(admin::AuthorizedAdmin::new(
            self.inner.admin(),
            self.guard.clone(),
        ))
    }
}
