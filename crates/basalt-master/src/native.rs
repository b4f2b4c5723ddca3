//! HBase's native protocol on a master (when its `hbase` settings are given):
//! `MasterService` (DDL, status), `ClientMetaService` (HBase 2.5's registry), the reads of
//! `hbase:meta`, and the read-only ZooKeeper responder for discovery.
//!
//! `hbase:meta` is read here, on the active master, because the master owns the catalog:
//! it is synthesized from the catalog at each read, each region's row naming the native
//! address its region server registered (`hbase_address`, beside the gRPC address). So
//! `/hbase/meta-region-server` and `/hbase/master` both name the active master, and
//! `/hbase/rs/*` the live region servers serving the native protocol. A region whose
//! server serves no native port (or none holds it) has no server in meta: clients wait.
//!
//! A standby master does not know the active master's native address: its znodes name no
//! master and its `hbase:meta` reads answer `NotServingRegionException`, so clients must be
//! pointed at the active master's ZooKeeper responder (or retry until one is active there).

use crate::connection::MasterConnection;
use crate::master::Master;
use basalt_api::RegionReport;
use basalt_hbase::meta::ServerIdentity;
use basalt_hbase::zookeeper::ZooKeeperServer;
use basalt_hbase::{HbaseConfig, HbaseServer, Parts, Roles, Topology};
use std::sync::Arc;

/// The cluster as the master sees it.
pub struct ClusterTopology {
    master: Arc<Master>,
    /// This master's native address.
    me: ServerIdentity,
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
        Self { master, me }
    }

    fn me_if_active(&self) -> Option<ServerIdentity> {
        self.master.is_active().then(|| self.me.clone())
    }
}

impl Topology for ClusterTopology {
    fn server_of(&self, region: &RegionReport) -> Option<ServerIdentity> {
        let server = self.master.servers.get(&region.server)?;
        native_identity(&server.name, server.hbase_address.as_deref()?)
    }

    fn active_master(&self) -> Option<ServerIdentity> {
        self.me_if_active()
    }

    fn meta_server(&self) -> Option<ServerIdentity> {
        self.me_if_active()
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
        (!id.is_empty()).then_some(id)
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
}

impl Native {
    pub fn shutdown(self) {
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
    let rpc = basalt_hbase::start_with(&config, "", None, |me| Parts {
        conn: Arc::new(MasterConnection::new(master.clone())),
        topology: Arc::new(ClusterTopology::new(master.clone(), me.clone())),
        roles: Roles::MASTER,
    })
    .map_err(|e| format!("cannot start HBase's native RPC: {e}"))?;
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
    Ok(Native { rpc, zookeeper })
}

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
