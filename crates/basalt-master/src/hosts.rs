//! What the master asks of region servers to assign regions, behind one seam.
//!
//! Assignment and recovery need three calls: open a region, close it, and the server's
//! report (its regions and their sizes, for the split check and `list_regions`).
//! [`RegionHosts`] names them; [`GrpcHosts`], the default, makes them over the channels
//! [`Servers`] keeps. A deterministic simulation (`basalt-sim`) puts simulated region
//! servers behind the same trait, so that the master's real election, reconciliation,
//! server watch, crash handling, assignment and balancer run unchanged against them.
//!
//! The rarer calls an operator sets off (flush, compact, split, merge) still go straight
//! to the gRPC clients: they move no region between servers.
//!
//! The master's wall clock (region ids are times in ms) comes with the seam too
//! ([`WallClock`]): a simulation makes it a counter, so that a seed names every region
//! the same way on every run.

use crate::servers::Servers;
use basalt_api::Result;
use basalt_proto::pb;
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future, so that the trait stays object safe.
pub type HostFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// Where the master's wall-clock readings (ms since the epoch) come from.
pub type WallClock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The calls assignment makes to a region server, by server name (`host,port,startcode`).
pub trait RegionHosts: Send + Sync + Debug {
    /// Opens a region there (replaying `recover_logs` first).
    fn open_region<'a>(
        &'a self,
        servers: &'a Servers,
        server: &'a str,
        request: pb::OpenRegionRequest,
    ) -> HostFuture<'a, pb::OpenRegionResponse>;

    /// Closes a region there (it flushes first).
    fn close_region<'a>(
        &'a self,
        servers: &'a Servers,
        server: &'a str,
        encoded: &'a str,
    ) -> HostFuture<'a, ()>;

    /// The server's report: its regions, their sizes and request counts.
    fn server_report<'a>(
        &'a self,
        servers: &'a Servers,
        server: &'a str,
    ) -> HostFuture<'a, pb::ServerReport>;
}

/// The region servers' gRPC services, over the channels [`Servers`] keeps.
#[derive(Debug, Default)]
pub struct GrpcHosts;

impl RegionHosts for GrpcHosts {
    fn open_region<'a>(
        &'a self,
        servers: &'a Servers,
        server: &'a str,
        request: pb::OpenRegionRequest,
    ) -> HostFuture<'a, pb::OpenRegionResponse> {
        Box::pin(async move {
            let mut client = servers.region_client(server).await?;
            client
                .open_region(request)
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| basalt_proto::status::from_status(&s))
        })
    }

    fn close_region<'a>(
        &'a self,
        servers: &'a Servers,
        server: &'a str,
        encoded: &'a str,
    ) -> HostFuture<'a, ()> {
        Box::pin(async move {
            let mut client = servers.region_client(server).await?;
            client
                .close_region(pb::RegionName {
                    name: encoded.to_string(),
                })
                .await
                .map(|_| ())
                .map_err(|s| basalt_proto::status::from_status(&s))
        })
    }

    fn server_report<'a>(
        &'a self,
        servers: &'a Servers,
        server: &'a str,
    ) -> HostFuture<'a, pb::ServerReport> {
        Box::pin(async move {
            let mut client = servers.region_client(server).await?;
            client
                .get_server_report(pb::Empty {})
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| basalt_proto::status::from_status(&s))
        })
    }
}

/// The system clock in ms since the epoch (0 if it is before it).
pub fn system_clock() -> WallClock {
    Arc::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(0))
            .unwrap_or(0)
    })
}

/// What a master is wired to beyond the coordinator and the store: the region servers'
/// calls and the wall clock. [`Surroundings::default`] is a real cluster's.
#[derive(Clone)]
pub struct Surroundings {
    pub hosts: Arc<dyn RegionHosts>,
    pub wall_clock: WallClock,
}

impl Default for Surroundings {
    fn default() -> Self {
        Self {
            hosts: Arc::new(GrpcHosts),
            wall_clock: system_clock(),
        }
    }
}

impl Debug for Surroundings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Surroundings")
            .field("hosts", &self.hosts)
            .finish_non_exhaustive()
    }
}
