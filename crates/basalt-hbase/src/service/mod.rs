//! The services a connection's header may name, and the dispatch of a call to its method.
//!
//! Every method takes the request message's bytes and the call's cell-block cells and
//! answers the response message's bytes or an [`RpcError`]. A method HBase has and Basalt
//! does not answers `DoNotRetryIOException` naming it; a name HBase does not have either
//! answers `UnsupportedOperationException`, as HBase's server does.
//!
//! # Layout
//! - [`admin`]: `AdminService`: region info, online regions, flush, compact.
//! - [`client`]: `ClientService` Get and Mutate, and the dispatch of its methods.
//! - [`multi`]: `ClientService` Multi: per-action answers, atomic row mutations.
//! - [`region`]: finding the region a call names.
//! - [`results`]: result cells inline or in a cell block, and a call's [`Reply`].
//! - [`source`]: a scanner's rows, read on the call's thread or ahead of it.
//! - [`partial`]: rows cut at a scan answer's byte budget.
//! - [`registry`]: `ClientMetaService`, HBase 2.5's connection registry.
//! - [`scan`]: `ClientService` Scan: open, next, close, over a region or `hbase:meta`.
//! - [`master`]: `MasterService`: table and namespace DDL, listing, states.
//! - [`snapshots`]: `MasterService`'s snapshot calls (snapshot, list, delete, clone and
//!   restore).
//! - [`nonces`]: answers of increments and appends by nonce, for retries.
//! - [`scanners`]: open scanners, their ids and leases.
//! - [`schema`]: table and family schemas to and from descriptors.
//! - [`convert`]: protobuf operations to and from `basalt_types`.
//! - [`filter`]: protobuf filters to `FilterSpec`.
//! - [`comparator`]: protobuf comparators and compare types.

pub mod admin;
pub mod client;
pub mod comparator;
pub mod convert;
pub mod filter;
pub mod master;
pub mod multi;
pub mod nonces;
pub mod partial;
pub mod region;
pub mod registry;
pub mod results;
pub mod scan;
pub mod scanners;
pub mod schema;
pub mod snapshots;
pub mod source;

use crate::cellblock::Codec;
use crate::meta::{ServerIdentity, Topology};
use crate::topology::Roles;
use crate::RpcError;
use basalt_api::Connection;
use basalt_types::Cell;
use bytes::Bytes;
use prost::Message;
pub use results::{Reply, Results};
use scanners::Scanners;
use std::sync::Arc;

/// The services of HBase's RPC that Basalt answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceKind {
    /// Region servers' data calls.
    Client,
    /// The master's admin calls.
    Master,
    /// Region servers' admin calls: region info, online regions, flush and compact.
    Admin,
    /// HBase 2.5's connection registry: cluster id, masters, meta's location.
    ClientMeta,
}

impl ServiceKind {
    /// The service a connection header names.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "ClientService" => Some(Self::Client),
            "MasterService" => Some(Self::Master),
            "AdminService" => Some(Self::Admin),
            "ClientMetaService" => Some(Self::ClientMeta),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Client => "ClientService",
            Self::Master => "MasterService",
            Self::Admin => "AdminService",
            Self::ClientMeta => "ClientMetaService",
        }
    }
}

/// What a call's connection and header say about how to answer it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallContext {
    /// The cell-block codec the connection named: result cells go in a cell block.
    pub codec: Option<Codec>,
    /// The call's timeout from its request header (HBase's client sends its RPC timeout).
    pub timeout: Option<std::time::Duration>,
}

/// What every connection of a server shares.
pub struct Service {
    pub conn: Arc<dyn Connection>,
    pub topology: Arc<dyn Topology>,
    pub me: ServerIdentity,
    pub scanners: Scanners,
    /// The id `/hbase/hbaseid` and the registry answer.
    pub cluster_id: String,
    pub nonces: nonces::Nonces,
    /// The services answered here.
    pub roles: Roles,
    /// How long a scan call may read before it answers a heartbeat (for clients that
    /// handle them); the call's own timeout halves it further.
    pub scan_time_limit: std::time::Duration,
}

/// Answers of increments and appends kept for retries (a few hundred bytes each).
const NONCES_KEPT: usize = 100_000;

/// A method's answer: the response message's bytes.
pub type Answer = Result<Vec<u8>, RpcError>;

pub(crate) fn decode<M: Message + Default>(param: &Bytes, what: &str) -> Result<M, RpcError> {
    M::decode(param.as_ref()).map_err(|e| RpcError::bad_request(what, e))
}

pub(crate) fn answer(message: impl Message) -> Answer {
    Ok(message.encode_to_vec())
}

impl Service {
    pub fn new(
        conn: Arc<dyn Connection>,
        topology: Arc<dyn Topology>,
        me: ServerIdentity,
        scanners: Scanners,
        cluster_id: String,
    ) -> Self {
        Self {
            conn,
            topology,
            me,
            cluster_id,
            nonces: nonces::Nonces::new(NONCES_KEPT),
            roles: Roles::ALL,
            scan_time_limit: scanners.lease() / 2,
            scanners,
        }
    }

    /// The same service answering heartbeats after `limit` of a scan call's reading.
    pub fn with_scan_time_limit(mut self, limit: std::time::Duration) -> Self {
        self.scan_time_limit = limit;
        self
    }

    /// The same service answering only `roles`.
    pub fn with_roles(mut self, roles: Roles) -> Self {
        self.roles = roles;
        self
    }

    /// Runs one call; `ctx.codec` is the cell-block codec the connection named, which
    /// decides whether result cells go inline or in the answer's cell block ([`results`]).
    /// Blocking: call it on a worker thread.
    pub fn call(
        &self,
        kind: ServiceKind,
        method: &str,
        param: &Bytes,
        cells: Vec<Cell>,
        ctx: CallContext,
    ) -> Result<Reply, RpcError> {
        tracing::trace!(service = kind.name(), method, "HBase call");
        if matches!(kind, ServiceKind::Master | ServiceKind::ClientMeta) && !self.roles.master {
            return Err(self.not_a_master(kind));
        }
        match kind {
            ServiceKind::Client => client::call(self, method, param, cells, ctx),
            ServiceKind::Master => master::call(self, method, param).map(Reply::inline),
            ServiceKind::Admin => admin::call(self, method, param).map(Reply::inline),
            ServiceKind::ClientMeta => registry::call(self, method).map(Reply::inline),
        }
    }
}

impl Service {
    /// The cluster's id as clients are told it.
    pub fn cluster_id(&self) -> String {
        self.topology
            .cluster_id()
            .unwrap_or_else(|| self.cluster_id.clone())
    }

    /// What a master's call gets from a region server: the active master's address, if
    /// known, so a misdirected client is told where to go.
    fn not_a_master(&self, kind: ServiceKind) -> RpcError {
        let master = self
            .topology
            .active_master()
            .map(|m| format!("; the master is at {}", m.host_port()))
            .unwrap_or_default();
        RpcError::do_not_retry(format!(
            "{} is a region server: it does not answer {}{master}",
            self.me.host_port(),
            kind.name()
        ))
    }
}

/// A method the service has in HBase but Basalt does not answer, or one it never had.
pub(crate) fn unknown_or_unsupported(kind: ServiceKind, method: &str, known: &[&str]) -> RpcError {
    match known.contains(&method) {
        true => RpcError::unsupported(kind.name(), method),
        false => RpcError::new(
            "java.lang.UnsupportedOperationException",
            format!("{} has no method {method:?}", kind.name()),
            true,
        ),
    }
}
