//! HBase's native protocol on a master (when its `hbase` settings are given):
//! `MasterService` (DDL, status), `ClientMetaService` (HBase 2.5's registry), the reads of
//! `hbase:meta`, and the read-only ZooKeeper responder for discovery.
//!
//! `hbase:meta` is read here, on the active master, because the master owns the catalog:
//! it is synthesized from the catalog alone at each read (no region server is asked for a
//! report), each region's row naming the native address its region server registered (`hbase_address`, beside the gRPC address). So
//! `/hbase/meta-region-server` and `/hbase/master` both name the active master, and
//! `/hbase/rs/*` the live region servers serving the native protocol. A region whose
//! server serves no native port (or none holds it) has no server in meta: clients wait.
//!
//! A standby master learns the active master's native address from the coordinator
//! ([`active`]): its znodes, its registry and its `hbase:meta` location name the active
//! master; a meta read sent to the standby itself answers `NotServingRegionException`,
//! and the client looks meta up again.

use crate::connection::MasterConnection;
use crate::master::Master;
use basalt_api::{ApiError, RegionReport};
use basalt_hbase::meta::ServerIdentity;
use basalt_hbase::zookeeper::ZooKeeperServer;
use basalt_hbase::{HbaseConfig, HbaseServer, Parts, Roles, Topology};
use basalt_types::TableName;
use parking_lot::Mutex;
use std::sync::Arc;

pub mod active;

/// The cluster as the master sees it.
pub struct ClusterTopology {
    master: Arc<Master>,
    /// This master's native address.
    me: ServerIdentity,
    /// The active master as last read from the coordinator (for a standby).
    known: Arc<Mutex<active::Known>>,
}

/// A server named `host,port,startcode` serving the native protocol at `hbase_address`.
pub fn native_identity(name: &str, hbase_address: &str) -> Option<ServerIdentity> {
    let (host, port) = hbase_address.rsplit_once(':')?;
    let start_code = name.rsplit(',').next()?.parse().ok()?;
    Some(ServerIdentity {
        host: host.to_string(),
        port: port.parse().ok()?,
        start_code,
    })
}

impl ClusterTopology {
    pub fn new(master: Arc<Master>, me: ServerIdentity) -> Self {
        Self::following(master, me, Arc::default())
    }

    /// A topology that names, while this master stands by, the active master in `known`.
    pub fn following(
        master: Arc<Master>,
        me: ServerIdentity,
        known: Arc<Mutex<active::Known>>,
    ) -> Self {
        Self { master, me, known }
    }

    /// This master when active, else the active master as last read.
    fn active(&self) -> Option<ServerIdentity> {
        match self.master.is_active() {
            true => Some(self.me.clone()),
            false => self.known.lock().active.clone().filter(|a| *a != self.me),
        }
    }
}

impl Topology for ClusterTopology {
    fn server_of(&self, region: &RegionReport) -> Option<ServerIdentity> {
        let server = self.master.servers.get(&region.server)?;
        native_identity(&server.name, server.hbase_address.as_deref()?)
    }

    fn active_master(&self) -> Option<ServerIdentity> {
        self.active()
    }

    fn meta_server(&self) -> Option<ServerIdentity> {
        self.active()
    }

    fn region_servers(&self) -> Vec<ServerIdentity> {
        self.master
            .servers
            .live()
            .iter()
            .filter_map(|s| native_identity(&s.name, s.hbase_address.as_deref()?))
            .collect()
    }

    fn cluster_id(&self) -> Option<String> {
        let id = self.master.cluster_id.lock().clone();
        match id.is_empty() {
            false => Some(id),
            true => self.known.lock().cluster_id.clone(),
        }
    }

    fn catalog_regions(&self, table: &TableName) -> Option<Result<Vec<RegionReport>, ApiError>> {
        Some(
            self.master
                .require_active()
                .and_then(|()| self.master.catalog_regions(table)),
        )
    }
}

/// Where a master's native servers listen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addresses {
    pub rpc: std::net::SocketAddr,
    pub zookeeper: Option<std::net::SocketAddr>,
}

/// The master's native servers: the RPC port and, unless turned off, ZooKeeper's.
pub struct Native {
    pub rpc: HbaseServer,
    pub zookeeper: Option<ZooKeeperServer>,
    /// The task registering this master's native address and following the active one's.
    follower: tokio::task::JoinHandle<()>,
}

impl Native {
    pub fn shutdown(self) {
        self.follower.abort();
        if let Some(zk) = self.zookeeper {
            zk.shutdown();
        }
        self.rpc.shutdown();
    }
}

/// Starts the native RPC (and the ZooKeeper responder when `config.zookeeper`) for
/// `master`, advertised as `host` unless the settings name another.
pub fn start(config: &HbaseConfig, master: &Arc<Master>, host: &str) -> Result<Native, String> {
    let mut config = config.clone();
    if config.advertise_host.is_empty() {
        config.advertise_host = host.to_string();
    }
    let known = Arc::new(Mutex::new(active::Known::default()));
    let rpc = basalt_hbase::start_with(&config, "", None, |me| Parts {
        // Each call checked for its connection's user when the master checks ACLs.
        conn: basalt_server::authorize::served(
            Arc::new(MasterConnection::new(master.clone())),
            &master.config.server.acl,
        ),
        topology: Arc::new(ClusterTopology::following(
            master.clone(),
            me.clone(),
            known.clone(),
        )),
        roles: Roles::MASTER,
    })
    .map_err(|e| format!("cannot start HBase's native RPC: {e}"))?;
    let follower = master.runtime.spawn(active::follow(
        master.coord.clone(),
        master.address.clone(),
        rpc.identity().clone(),
        known,
    ));
    let zookeeper = match config.zookeeper {
        true => Some(
            basalt_hbase::zookeeper::start_for(
                &config,
                rpc.topology(),
                &rpc.identity().host,
                "",
                rpc.identity().start_code as i64,
            )
            .map_err(|e| format!("cannot start the ZooKeeper responder: {e}"))?,
        ),
        false => None,
    };
    *master.native_addresses.lock() = Some(Addresses {
        rpc: rpc.local_addr(),
        zookeeper: zookeeper.as_ref().map(ZooKeeperServer::local_addr),
    });
    Ok(Native {
        rpc,
        zookeeper,
        follower,
    })
}

#[cfg(test)]
mod meta_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_servers_native_identity_keeps_its_start_code() {
        let id = native_identity("127.0.0.2,41000,1700", "127.0.0.2:41001").expect("parsed");
        assert_eq!(id.server_name(), "127.0.0.2,41001,1700");
        assert_eq!(native_identity("127.0.0.2,41000,x", "127.0.0.2:1"), None);
        assert_eq!(native_identity("127.0.0.2,41000,1", "no port"), None);
    }
}
