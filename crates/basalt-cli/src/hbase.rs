//! HBase's native protocol in the `basalt` binary: the RPC server and the ZooKeeper
//! responder that `basalt standalone` runs over its own database, as two sidecars
//! (`basalt hbase listening on ...`, `basalt zookeeper listening on ...`).

use crate::sidecar::BlockingSidecar;
use basalt_api::Connection;
use basalt_hbase::HbaseConfig;
use basalt_server::standalone::Sidecar;
use basalt_server::ServerError;
use std::path::Path;
use std::sync::Arc;

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
        sidecars.push(BlockingSidecar::boxed(
            "zookeeper",
            zk.local_addr(),
            move || zk.shutdown(),
        ));
    }
    let addr = rpc.local_addr();
    sidecars.insert(
        0,
        BlockingSidecar::boxed("hbase", addr, move || rpc.shutdown()),
    );
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
