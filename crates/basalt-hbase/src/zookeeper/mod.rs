//! A read-only ZooKeeper responder for discovery: HBase clients that find the cluster
//! through ZooKeeper (`hbase-driver` always does, through kazoo; Java clients before
//! 2.5's RPC registry) connect here and read the znodes of [`znodes`], which point at
//! the RPC ports: standalone's one port, or a cluster's active master and region servers
//! (a cluster's masters run it: [`start_for`]). It is not a ZooKeeper server: one process's fixed tree, no writes, no
//! quorum, watches accepted and never fired.
//!
//! Why not publish into a real ZooKeeper: `basalt standalone` then needs nothing else
//! running, and the tree cannot go stale (it dies with the process that it describes).
//!
//! # Layout
//! - [`znodes`]: the tree and HBase's znode data format.
//! - [`protocol`]: the jute codec and the answers, pure.

pub mod protocol;
pub mod znodes;

use crate::meta::{ServerIdentity, SingleServer};
use crate::topology::Topology;
use crate::{HbaseConfig, HbaseError};
use basalt_net::{Conn, Connections, Listener};
use protocol::Next;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::runtime::Runtime;
use znodes::Tree;

/// The largest request a client may send (a path and a few flags; ZooKeeper's own limit
/// is 1 MiB).
pub const FRAME_MAX: usize = 64 * 1024;

/// A running responder.
pub struct ZooKeeperServer {
    local_addr: SocketAddr,
    runtime: Option<Runtime>,
    connections: Connections,
}

/// Starts answering on `config.bind:config.zookeeper_port` with the znodes of `me`, one
/// server in every role (standalone).
pub fn start(
    config: &HbaseConfig,
    me: &ServerIdentity,
    cluster_id: &str,
) -> Result<ZooKeeperServer, HbaseError> {
    start_for(
        config,
        Arc::new(SingleServer(me.clone())),
        &me.host,
        cluster_id,
        me.start_code as i64,
    )
}

/// Where the znodes come from: the topology, read at each request.
struct Source {
    topology: Arc<dyn Topology>,
    host: String,
    cluster_id: String,
    created_ms: i64,
}

impl Source {
    fn tree(&self) -> Tree {
        let id = self.topology.cluster_id();
        Tree::for_topology(
            "/hbase",
            self.topology.as_ref(),
            &self.host,
            id.as_deref().unwrap_or(&self.cluster_id),
            self.created_ms,
        )
    }
}

/// Starts answering with the znodes of `topology` as they are at each request (a cluster's
/// master: the active master and the live region servers change); `host` is the writer
/// named in the znodes' metadata.
pub fn start_for(
    config: &HbaseConfig,
    topology: Arc<dyn Topology>,
    host: &str,
    cluster_id: &str,
    created_ms: i64,
) -> Result<ZooKeeperServer, HbaseError> {
    let limits = config.connection_limits();
    limits.check().map_err(HbaseError::Config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("zookeeper")
        .enable_all()
        .build()?;
    let listener = {
        let _entered = runtime.enter();
        Listener::bind(
            (config.bind.as_str(), config.zookeeper_port),
            "zookeeper",
            limits,
        )
        .map_err(|source| HbaseError::Bind {
            addr: format!("{}:{}", config.bind, config.zookeeper_port),
            source,
        })?
    };
    let local_addr = listener.local_addr();
    let connections = listener.connections();
    let tree = Arc::new(Source {
        topology,
        host: host.to_string(),
        cluster_id: cluster_id.to_string(),
        created_ms,
    });
    let write_timeout = Duration::from_millis(config.write_timeout_ms.max(1));
    runtime.spawn(accept_loop(listener, tree, write_timeout));
    tracing::info!(%local_addr, "ZooKeeper responder listening");
    Ok(ZooKeeperServer {
        local_addr,
        runtime: Some(runtime),
        connections,
    })
}

impl ZooKeeperServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Sessions open now.
    pub fn connections(&self) -> usize {
        self.connections.open()
    }

    pub fn shutdown(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

impl Drop for ZooKeeperServer {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn accept_loop(listener: Listener, tree: Arc<Source>, write_timeout: Duration) {
    loop {
        let (conn, _) = listener.accept().await;
        tokio::spawn(session(conn, tree.clone(), write_timeout));
    }
}

/// Reads one length-prefixed frame; `None` at a clean end of stream.
async fn frame(conn: &mut Conn) -> std::io::Result<Option<Vec<u8>>> {
    conn.readable().await?;
    let mut len = [0u8; 4];
    match conn.read_exact(&mut len).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = i32::from_be_bytes(len);
    if len < 0 || len as usize > FRAME_MAX {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a ZooKeeper frame of {len} bytes (limit {FRAME_MAX})"),
        ));
    }
    let mut buf = vec![0u8; len as usize];
    conn.read_exact(&mut buf).await?;
    Ok(Some(buf))
}

async fn send(conn: &mut Conn, reply: &[u8], write_timeout: Duration) -> std::io::Result<()> {
    match tokio::time::timeout(write_timeout, conn.write_all(reply)).await {
        Ok(result) => result,
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the client does not read its replies",
        )),
    }
}

fn session_id() -> (i64, [u8; 16]) {
    let mut bytes = [0u8; 24];
    // Without randomness, a fixed session: sessions here carry no state to protect.
    let _ = getrandom::fill(&mut bytes);
    let mut id = [0u8; 8];
    id.copy_from_slice(&bytes[..8]);
    let mut password = [0u8; 16];
    password.copy_from_slice(&bytes[8..]);
    ((i64::from_be_bytes(id) >> 1).max(1), password)
}

async fn session(mut conn: Conn, tree: Arc<Source>, write_timeout: Duration) {
    let peer = conn.peer_addr();
    let result: std::io::Result<()> = async {
        let Some(first) = frame(&mut conn).await? else {
            return Ok(());
        };
        let connect = protocol::decode_connect(&first)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        let (id, password) = session_id();
        {
            let _busy = conn.peer().busy();
            send(
                &mut conn,
                &protocol::connect_response(&connect, id, &password),
                write_timeout,
            )
            .await?;
        }
        while let Some(request) = frame(&mut conn).await? {
            let _busy = conn.peer().busy();
            let (reply, next) = protocol::answer(&tree.tree(), &request)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            send(&mut conn, &reply, write_timeout).await?;
            if next == Next::Close {
                break;
            }
        }
        Ok(())
    }
    .await;
    if let Err(e) = result {
        match e.kind() {
            std::io::ErrorKind::InvalidData => {
                tracing::warn!(%peer, "closing a ZooKeeper session: {e}")
            }
            _ => tracing::debug!(%peer, "ZooKeeper session ended: {e}"),
        }
    }
}
