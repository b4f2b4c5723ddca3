//! Every row of the ACL matrix through `AuthorizedConnection` over an embedded database:
//! at each scope that allows the operation, a user granted it there is allowed and a user
//! granted every other permission there is refused.

#[path = "support/cases.rs"]
mod cases;
#[path = "support/harness.rs"]
mod harness;

use basalt_acl::{AdminGrants, AuthorizedConnection, Checker};
use basalt_api::{AuthMethod, Connection, Principal};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use std::sync::Arc;

struct Embedded {
    inner: Arc<dyn Connection>,
    su: AuthorizedConnection,
    checker: Arc<Checker>,
}

impl Embedded {
    fn new(dir: &std::path::Path) -> Self {
        let db = Database::open(dir, DbConfig::default()).expect("open");
        let inner: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db));
        let checker = Arc::new(Checker::new(["admin".to_string()]));
        let su = Self::wrap(&inner, &checker, "admin");
        Embedded { inner, su, checker }
    }

    fn wrap(
        inner: &Arc<dyn Connection>,
        checker: &Arc<Checker>,
        user: &str,
    ) -> AuthorizedConnection {
        AuthorizedConnection::new(
            inner.clone(),
            Principal::new(user, AuthMethod::Simple),
            checker.clone(),
            Arc::new(AdminGrants(inner.admin())),
        )
    }
}

impl harness::Connect for Embedded {
    fn superuser(&self) -> &dyn Connection {
        &self.su
    }
    fn as_user(&self, user: &str) -> Box<dyn Connection> {
        Box::new(Self::wrap(&self.inner, &self.checker, user))
    }
}

#[test]
fn every_matrix_row_allows_each_scope_and_refuses_other_permissions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let embedded = Embedded::new(dir.path());
    let (allowed, refused) = harness::run_matrix(&embedded);
    assert!(
        allowed >= 150 && refused >= 130,
        "{allowed} allowed, {refused} refused"
    );
}
