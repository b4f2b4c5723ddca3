//! Starting a server over a fresh database, and an embedded twin to compare against.

use basalt_api::Connection;
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_server::{BackgroundServer, ServerConfig};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Served {
    pub server: BackgroundServer,
    pub remote: RemoteConnection,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
}

/// A server config on a free port.
pub fn test_config() -> ServerConfig {
    ServerConfig {
        port: 0,
        ..ServerConfig::default()
    }
}

pub fn open_db(dir: &std::path::Path) -> Arc<Database> {
    Database::open(dir, DbConfig::default()).expect("open the database")
}

pub fn serve(config: ServerConfig) -> Served {
    serve_with(config, ClientConfig::default())
}

pub fn serve_with(config: ServerConfig, client: ClientConfig) -> Served {
    let dir = tempfile::tempdir().expect("temp dir");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(open_db(dir.path())));
    let server = BackgroundServer::start(conn, config).expect("start the server");
    let addr = server.local_addr().expect("listening");
    let remote =
        RemoteConnection::connect_with(&addr.to_string(), client).expect("connect to the server");
    Served {
        server,
        remote,
        addr,
        _dir: dir,
    }
}

pub struct Embedded {
    pub conn: EmbeddedConnection,
    _dir: tempfile::TempDir,
}

pub fn embedded() -> Embedded {
    let dir = tempfile::tempdir().expect("temp dir");
    Embedded {
        conn: EmbeddedConnection::new(open_db(dir.path())),
        _dir: dir,
    }
}

/// Polls `condition` until it holds or 10 s pass.
pub fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::yield_now();
    }
}

/// A table `name` with families `cf` and `cf2` (three versions), created through `conn`.
pub fn create_table(conn: &dyn Connection, name: &str) -> basalt_types::TableName {
    use basalt_types::{FamilyDescriptor, TableDescriptor, TableName};
    let table = TableName::parse(name).expect("valid name");
    let cf = FamilyDescriptor::new("cf").expect("valid");
    let mut cf2 = FamilyDescriptor::new("cf2").expect("valid");
    cf2.max_versions = 3;
    conn.admin()
        .create_table(
            &TableDescriptor::new(table.clone(), vec![cf, cf2]),
            &basalt_api::PreSplit::None,
        )
        .expect("create table");
    table
}

/// A raw generated client on `rt`, for calls the API does not make (replays, odd ids).
pub fn table_client(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
) -> basalt_proto::pb::table_service_client::TableServiceClient<tonic::transport::Channel> {
    let channel = rt
        .block_on(
            tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
                .expect("valid uri")
                .connect(),
        )
        .expect("connect");
    basalt_proto::pb::table_service_client::TableServiceClient::new(channel)
}
