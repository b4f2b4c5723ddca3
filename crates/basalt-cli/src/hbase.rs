//! HBase's native protocol in the `basalt` binary: the RPC server and the ZooKeeper
//! responder that `basalt standalone` runs over its own database, as two sidecars
//! (`basalt hbase listening on ...`, `basalt zookeeper listening on ...`).

use basalt_api::Connection;
use basalt_hbase::zookeeper::ZooKeeperServer;
use basalt_hbase::{HbaseConfig, HbaseServer};
use basalt_server::standalone::Sidecar;
use basalt_server::ServerError;
use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

struct RpcSidecar(HbaseServer);

impl Sidecar for RpcSidecar {
    fn name(&self) -> &str {
        "hbase"
    }

    fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let server = self.0;
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(move || server.shutdown()).await;
        })
    }
}

struct ZooKeeperSidecar(ZooKeeperServer);

impl Sidecar for ZooKeeperSidecar {
    fn name(&self) -> &str {
        "zookeeper"
    }

    fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let server = self.0;
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(move || server.shutdown()).await;
        })
    }
}

/// The cluster id published in `/hbase/hbaseid`: stable for a data folder.
fn cluster_id(data_dir: &Path) -> String {
    let name = data_dir
        .canonicalize()
        .unwrap_or_else(|_| data_dir.to_path_buf());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.to_string_lossy().bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("basalt-{hash:016x}")
}

/// Starts the RPC server over standalone's connection and, unless turned off, the
/// ZooKeeper responder pointing at it.
pub fn sidecars(
    conn: Arc<dyn Connection>,
    config: &HbaseConfig,
    data_dir: &Path,
) -> Result<Vec<Box<dyn Sidecar>>, ServerError> {
    let id = cluster_id(data_dir);
    let rpc = basalt_hbase::start(conn, config, &id)
        .map_err(|e| ServerError::Task(format!("cannot start HBase's native RPC: {e}")))?;
    let mut sidecars: Vec<Box<dyn Sidecar>> = Vec::new();
    if config.zookeeper {
        let zk = basalt_hbase::zookeeper::start(config, rpc.identity(), &id)
            .map_err(|e| ServerError::Task(format!("cannot start the ZooKeeper responder: {e}")))?;
        sidecars.push(Box::new(ZooKeeperSidecar(zk)));
    }
    sidecars.insert(0, Box::new(RpcSidecar(rpc)));
    Ok(sidecars)
}

/// `--hbase-port`, `--zookeeper-port`, `--no-zookeeper` over the file's `[hbase]`.
pub fn apply_flags(args: &crate::cli::StandaloneArgs, config: &mut HbaseConfig) {
    if let Some(port) = args.hbase_port {
        config.port = port;
    }
    if let Some(port) = args.zookeeper_port {
        config.zookeeper_port = port;
    }
    if args.no_zookeeper {
        config.zookeeper = false;
    }
}
