//! Authorization of a server's calls (HBase's ACLs), switched on by the process that
//! starts it. With an [`AclSlot`] set, [`crate::start_on`] serves its connection through
//! `basalt_acl::AuthorizedConnection::per_call`: every call is checked for the principal
//! [`crate::principal`]'s layer runs it as, and refused with HBase's
//! `AccessDeniedException` before it reaches the database. Without one nothing is checked.
//!
//! The grants are read at every check: from the served connection's own admin (a master,
//! or an embedded database, which keeps them), or from a source the process names — a
//! region server asks its master's, which may become known only after the server serves
//! ([`LateGrants`]; calls before it are refused as "not running yet", and retried).

use basalt_acl::{AdminGrants, AuthorizedConnection, Checker, GrantSource};
use basalt_api::{Admin, ApiError, Connection, ErrorKind, Grants, Result};
use std::sync::{Arc, OnceLock};

/// HBase's exception for a server that cannot answer yet.
const NOT_RUNNING_YET: &str = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException";

/// Who may do what on a server: the superusers, and where the grants are read.
pub struct Acl {
    pub checker: Arc<Checker>,
    /// None: the served connection's own admin keeps them.
    pub grants: Option<Arc<dyn GrantSource>>,
}

/// The authorization a server checks calls with (none: unchecked); in
/// [`crate::ServerConfig::acl`], not part of the file's settings.
#[derive(Clone, Default)]
pub struct AclSlot(pub Option<Arc<Acl>>);

impl std::fmt::Debug for AclSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(acl) => write!(f, "ACLs, superusers {:?}", acl.checker.superusers()),
            None => write!(f, "no authorization"),
        }
    }
}

impl PartialEq for AclSlot {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Eq for AclSlot {}

/// `conn` as the server serves it: checked when `slot` says so.
pub fn served(conn: Arc<dyn Connection>, slot: &AclSlot) -> Arc<dyn Connection> {
    let Some(acl) = &slot.0 else {
        return conn;
    };
    let grants = grant_source(&conn, acl);
    tracing::info!(superusers = ?acl.checker.superusers(), "authorization on: every call is checked against the grants");
    Arc::new(AuthorizedConnection::per_call(
        conn,
        acl.checker.clone(),
        grants,
    ))
}

/// Where `acl`'s grants are read: its own source, else `conn`'s admin.
fn grant_source(conn: &Arc<dyn Connection>, acl: &Acl) -> Arc<dyn GrantSource> {
    match &acl.grants {
        Some(source) => source.clone(),
        None => Arc::new(AdminGrants(conn.admin())),
    }
}

/// Who may call the cluster's own services when `slot` checks calls
/// ([`crate::internal`]).
pub fn gate(conn: &Arc<dyn Connection>, slot: &AclSlot) -> Option<crate::internal::Gate> {
    let acl = slot.0.as_ref()?;
    Some(crate::internal::Gate {
        checker: acl.checker.clone(),
        grants: grant_source(conn, acl),
    })
}

/// Grants read through an admin set once it exists (a master started beside the server).
#[derive(Default)]
pub struct LateGrants(OnceLock<Arc<dyn Admin>>);

impl LateGrants {
    /// Reads the grants through `admin` from now on (only the first call counts).
    pub fn set(&self, admin: Arc<dyn Admin>) {
        let _ = self.0.set(admin);
    }
}

impl GrantSource for LateGrants {
    fn grants(&self) -> Result<Arc<Grants>> {
        match self.0.get() {
            Some(admin) => AdminGrants(admin.clone()).grants(),
            None => Err(ApiError::new(
                ErrorKind::Unavailable,
                NOT_RUNNING_YET,
                "the grants are not loaded yet (the master is starting)",
            )),
        }
    }
}
