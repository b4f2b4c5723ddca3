//! The seam between the protocol and where it runs: which services a server answers
//! ([`Roles`]) and where everything is ([`Topology`]): the server holding each region,
//! the active master, where `hbase:meta` is read, the live region servers.
//!
//! - `basalt standalone` is one server in every role ([`SingleServer`]).
//! - A cluster's region server answers `ClientService` and `AdminService` for the regions
//!   open in it ([`Roles::REGION_SERVER`]; its connection is the region server's own, which
//!   knows no other region): a call for any other region, or for `hbase:meta`, answers
//!   `NotServingRegionException`, so the client reads meta again.
//! - A cluster's master answers `MasterService`, `ClientMetaService` and the reads of
//!   `hbase:meta` ([`Roles::MASTER`]), which it synthesizes from its catalog alone
//!   ([`Topology::catalog_regions`]: no region server is asked), naming in each region's
//!   row the native address its region server registered.

use crate::meta::ServerIdentity;
use basalt_api::{ApiError, RegionReport};
use basalt_types::TableName;

/// The services a server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roles {
    /// `MasterService` and `ClientMetaService`.
    pub master: bool,
    /// Reads of `hbase:meta` (`ClientService` Get and Scan of `hbase:meta,,1`).
    pub meta: bool,
    /// `ClientService` and `AdminService` for table regions.
    pub regions: bool,
}

impl Roles {
    /// Standalone: everything in one process.
    pub const ALL: Self = Self {
        master: true,
        meta: true,
        regions: true,
    };
    /// A cluster's master: DDL, the registry and `hbase:meta`.
    pub const MASTER: Self = Self {
        master: true,
        meta: true,
        regions: false,
    };
    /// A cluster's region server: its own regions.
    pub const REGION_SERVER: Self = Self {
        master: false,
        meta: false,
        regions: true,
    };
}

/// Where things are, as clients must be told.
pub trait Topology: Send + Sync {
    /// The native address of the server holding `region`; `None` while no live server
    /// holds it (in transition), and `hbase:meta` then names no server for it.
    fn server_of(&self, region: &RegionReport) -> Option<ServerIdentity>;
    /// The active master's native address; `None` when not known (a standby master that
    /// has not learnt it).
    fn active_master(&self) -> Option<ServerIdentity>;
    /// Where `hbase:meta` is read.
    fn meta_server(&self) -> Option<ServerIdentity>;
    /// The live region servers' native addresses.
    fn region_servers(&self) -> Vec<ServerIdentity>;
    /// The cluster's id when the topology knows it (a cluster's master, once active);
    /// `None`: the id the server was started with.
    fn cluster_id(&self) -> Option<String> {
        None
    }
    /// `table`'s regions as a catalog at hand records them (a cluster's master: where each
    /// is assigned and its state, without the sizes only region servers know), which is
    /// all `hbase:meta` needs; `None`: the connection's `list_regions` answers.
    fn catalog_regions(&self, table: &TableName) -> Option<Result<Vec<RegionReport>, ApiError>> {
        let _ = table;
        None
    }
}

/// One server in every role: `basalt standalone`.
pub struct SingleServer(pub ServerIdentity);

impl Topology for SingleServer {
    fn server_of(&self, _region: &RegionReport) -> Option<ServerIdentity> {
        Some(self.0.clone())
    }

    fn active_master(&self) -> Option<ServerIdentity> {
        Some(self.0.clone())
    }

    fn meta_server(&self) -> Option<ServerIdentity> {
        Some(self.0.clone())
    }

    fn region_servers(&self) -> Vec<ServerIdentity> {
        vec![self.0.clone()]
    }
}
