//! Every row of the ACL matrix through the gRPC path: a server over an embedded database
//! wrapped in `AuthorizedConnection::per_call`, and a `RemoteConnection` per user, each
//! asserting its user (SIMPLE, with authentication off): at each scope that allows the
//! operation a user granted it there is allowed, and a user granted every other
//! permission there is refused with HBase's `AccessDeniedException`.

#[path = "../../basalt-acl/tests/support/cases.rs"]
mod cases;
#[path = "../../basalt-acl/tests/support/harness.rs"]
mod harness;

use basalt_acl::{AdminGrants, AuthorizedConnection, Checker, Op};
use basalt_api::acl::ACCESS_DENIED;
use basalt_api::{Connection, PermissionQuery};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_server::{BackgroundServer, ServerConfig};
use basalt_types::{Get, TableName};
use std::sync::Arc;
use std::time::Duration;

struct Served {
    addr: String,
    su: RemoteConnection,
    _server: BackgroundServer,
    _dir: tempfile::TempDir,
}

fn client(user: &str) -> ClientConfig {
    ClientConfig {
        user: Some(user.to_string()),
        retries_max: 1,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(20),
        ..ClientConfig::default()
    }
}

impl Served {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::open(dir.path(), DbConfig::default()).expect("open");
        let inner: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db));
        let checker = Arc::new(Checker::new(["admin".to_string()]));
        let grants = Arc::new(AdminGrants(inner.admin()));
        let served: Arc<dyn Connection> =
            Arc::new(AuthorizedConnection::per_call(inner, checker, grants));
        let config = ServerConfig {
            port: 0,
            ..ServerConfig::default()
        };
        let server = BackgroundServer::start(served, config).expect("start the server");
        let addr = server.local_addr().expect("listening").to_string();
        let su = RemoteConnection::connect_with(&addr, client("admin")).expect("connect");
        Served {
            addr,
            su,
            _server: server,
            _dir: dir,
        }
    }
}

impl harness::Connect for Served {
    fn superuser(&self) -> &dyn Connection {
        &self.su
    }
    fn as_user(&self, user: &str) -> Box<dyn Connection> {
        Box::new(RemoteConnection::connect_with(&self.addr, client(user)).expect("connect"))
    }
    fn local_noops(&self) -> &[Op] {
        // Against one server (no master) the client answers `move` and `balancer`
        // itself: there is nothing to move.
        &[Op::MoveRegion, Op::Balance]
    }
}

#[test]
fn every_matrix_row_allows_each_scope_and_refuses_other_permissions_over_grpc() {
    let served = Served::start();
    let (allowed, refused) = harness::run_matrix(&served);
    assert!(
        allowed >= 150 && refused >= 130,
        "{allowed} allowed, {refused} refused"
    );
}

#[test]
fn a_user_named_by_no_grant_is_refused_and_reads_its_own_permissions() {
    let served = Served::start();
    cases::fixture(&served.su).expect("fixture");
    let nobody = harness::Connect::as_user(&served, "nobody");
    let t = TableName::parse("ns:t").expect("name");
    let e = nobody
        .table(&t)
        .expect("table")
        .get(&Get::new("r1"))
        .expect_err("no grant");
    assert_eq!(e.exception, ACCESS_DENIED);
    assert_eq!(
        e.message,
        "Insufficient permissions for user 'nobody' (table=ns:t, action=READ)"
    );
    let own = PermissionQuery {
        scope: None,
        user: Some("nobody".to_string()),
    };
    assert_eq!(nobody.admin().get_user_permissions(&own), Ok(Vec::new()));
    let caps = nobody
        .admin()
        .security_capabilities()
        .expect("capabilities");
    assert_eq!(caps, ["SIMPLE_AUTHENTICATION", "AUTHORIZATION"]);
}
