//! Where the pages read what they show: a cluster process's RPC services (standalone is a
//! master and a region server in one process), or an embedded database, so the same pages
//! serve every kind of process.
//!
//! - [`Source::Standalone`]: `basalt standalone`'s pages: its region server's
//!   `GetServerReport` (regions, requests, cache, queues) and a client of its master (tables,
//!   regions, rows, failed regions, the quarantine), both over RPC.
//! - [`Source::Embedded`]: the same pages over an embedded [`Database`], in process.
//! - [`Source::Master`]: a master's web UI, reading through RPC from the master itself
//!   (`MasterService` for the cluster's state, a `RemoteConnection` for tables, regions and
//!   rows): nothing here reaches into a database, so it could run anywhere.
//! - [`Source::RegionServer`]: a region server's web UI, reading its
//!   `RegionServerService.GetServerReport` (regions, request metrics, cache, queues).
//!
//! A cluster process's web UI starts before its RPC listener knows its port: its address
//! arrives later through [`ServerInfo::grpc_addr`](crate::ServerInfo); until then pages say
//! the server is starting.

use crate::heat::ring::RegionReading;
use crate::remote::{master::MasterSource, region_server::RegionServerSource};
use crate::snapshot::Snapshot;
use crate::WebError;
use basalt_api::Connection;
use basalt_db::Database;
use std::sync::Arc;

/// What kind of process serves the pages: it decides the routes and the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Standalone,
    Master,
    RegionServer,
}

/// The pages' data.
pub enum Source {
    Standalone {
        server: RegionServerSource,
        conn: Arc<dyn Connection>,
    },
    Embedded {
        database: Arc<Database>,
        conn: Arc<dyn Connection>,
    },
    Master(MasterSource),
    RegionServer(RegionServerSource),
}

impl Source {
    pub fn role(&self) -> Role {
        match self {
            Source::Standalone { .. } | Source::Embedded { .. } => Role::Standalone,
            Source::Master(_) => Role::Master,
            Source::RegionServer(_) => Role::RegionServer,
        }
    }

    /// A connection for tables, regions and rows (not on a region server's pages).
    pub fn conn(&self) -> Result<Arc<dyn Connection>, WebError> {
        match self {
            Source::Standalone { conn, .. } | Source::Embedded { conn, .. } => Ok(conn.clone()),
            Source::Master(master) => master.conn(),
            Source::RegionServer(_) => Err(WebError::NotFound(
                "a region server's web UI shows no tables: see its master's".to_string(),
            )),
        }
    }

    /// The server's requests, regions, cache and queues (a standalone server or a region
    /// server; a master serves none of them).
    pub fn snapshot(&self) -> Result<Snapshot, WebError> {
        match self {
            Source::Standalone { server, conn } => {
                let mut snapshot = server.snapshot()?;
                snapshot.with_catalog(conn.as_ref())?;
                Ok(snapshot)
            }
            Source::Embedded { database, conn } => Snapshot::read(database, conn.as_ref()),
            Source::RegionServer(server) => server.snapshot(),
            Source::Master(_) => Err(WebError::NotFound(
                "a master serves no regions: see its region servers' pages".to_string(),
            )),
        }
    }

    /// Every region's cumulative counters, for the heat sampler: read from the region
    /// server's own report, on a master from every live region server's report, or from
    /// the embedded database.
    pub fn region_readings(&self) -> Result<Vec<RegionReading>, WebError> {
        match self {
            Source::Standalone { server, .. } | Source::RegionServer(server) => {
                Ok(crate::remote::region_server::readings(server.report()?))
            }
            Source::Embedded { database, .. } => Ok(embedded_readings(database)),
            Source::Master(master) => master.readings(),
        }
    }
}

/// The regions open in `database`, with their counters and load.
fn embedded_readings(database: &Database) -> Vec<RegionReading> {
    database
        .hosted()
        .into_iter()
        .filter_map(|hosted| {
            let region = hosted.region?;
            let metrics = region.metrics();
            Some(RegionReading {
                table: hosted.record.table.clone(),
                encoded_name: hosted.record.encoded_name.clone(),
                start_key: hosted.record.start_key.clone(),
                end_key: hosted.record.end_key.clone(),
                reads: metrics.read_requests,
                writes: metrics.write_requests,
                store_files: metrics.store_files,
                size_bytes: metrics.store_file_bytes + metrics.memstore_bytes,
                load: region.load(),
                server: String::new(),
            })
        })
        .collect()
}
