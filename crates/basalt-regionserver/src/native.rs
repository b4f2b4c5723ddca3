//! HBase's native protocol on a region server (when its `hbase` settings are given):
//! `ClientService` and `AdminService` for the regions open here, on a port of their own.
//!
//! The connection served is the region server's own database, which knows only the
//! regions the master opened here: a call for any other region, or for `hbase:meta` (read
//! on the master), answers `NotServingRegionException`, and the client reads meta again.
//! `MasterService` and `ClientMetaService` are refused with the master's address when
//! known. The native address is registered beside the gRPC one (`hbase_address`), so the
//! master names it in `hbase:meta` and in `/hbase/rs`.

use crate::name::ServerName;
use basalt_api::{Connection, RegionReport};
use basalt_hbase::meta::ServerIdentity;
use basalt_hbase::{HbaseConfig, HbaseServer, Parts, Roles, Topology};
use std::sync::Arc;

/// The registration property naming the native address (`host:port`).
pub const HBASE_ADDRESS: &str = "hbase_address";

/// A region server's view: every region it answers for is its own; the master and meta
/// are elsewhere (not known here).
struct Own(ServerIdentity);

impl Topology for Own {
    fn server_of(&self, _region: &RegionReport) -> Option<ServerIdentity> {
        Some(self.0.clone())
    }

    fn active_master(&self) -> Option<ServerIdentity> {
        None
    }

    fn meta_server(&self) -> Option<ServerIdentity> {
        None
    }

    fn region_servers(&self) -> Vec<ServerIdentity> {
        vec![self.0.clone()]
    }
}

/// Starts the native server over `conn` (the region server's database), its host the
/// server's advertised host and its start code the server's.
pub fn start(
    config: &HbaseConfig,
    conn: Arc<dyn Connection>,
    name: &ServerName,
) -> Result<HbaseServer, String> {
    let mut config = config.clone();
    if config.advertise_host.is_empty() {
        config.advertise_host = name.host.clone();
    }
    let start_code = u64::try_from(name.start_code).ok();
    basalt_hbase::start_with(&config, "", start_code, |me| Parts {
        conn,
        topology: Arc::new(Own(me.clone())),
        roles: Roles::REGION_SERVER,
    })
    .map_err(|e| format!("cannot start HBase's native RPC: {e}"))
}
