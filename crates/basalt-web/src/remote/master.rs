//! A master's web UI reads the cluster through RPC, as any client would: `MasterService`
//! on the master itself for who is active, the live and dead region servers with their
//! load, regions in transition and the balancer (`GetClusterInfo`, `GetClusterStatus`);
//! and a [`RemoteConnection`] to it for tables and their regions (`list_tables`,
//! `list_regions`, ...) and the table page's rows.
//!
//! A master standing by answers `GetClusterInfo` only: its page says it is a backup and
//! names the active master, as HBase's backup master page does.
//!
//! For the heat sampler (the per-server load on its page, the heat map of its table
//! pages), the active master's web UI gathers every live region server's
//! `GetServerReport`, at the addresses `GetClusterStatus` names, all at once; a server
//! that does not answer is left out of that sample.

use super::{address, channel, failed, wait};
use crate::heat::ring::RegionReading;
use crate::snapshot::TableSummary;
use crate::WebError;
use basalt_api::{Connection, RegionReport};
use basalt_client::RemoteConnection;
use basalt_proto::pb;
use basalt_proto::pb::master_service_client::MasterServiceClient;
use parking_lot::Mutex;
use std::sync::{Arc, OnceLock};
use tokio::runtime::Handle;

/// The cluster as one master sees it.
#[derive(Debug, Clone)]
pub struct ClusterView {
    /// This master's own answer: the cluster id, who is active, whether it is.
    pub info: pb::ClusterInfo,
    /// Servers, dead servers, regions in transition, balancer; None on a backup master.
    pub status: Option<pb::ClusterStatus>,
    /// User tables (a backup master lists none).
    pub tables: Vec<TableSummary>,
    /// Every region of `tables`.
    pub regions: Vec<RegionReport>,
}

/// A master, read over RPC at its own address.
pub struct MasterSource {
    runtime: Handle,
    addr: Arc<OnceLock<String>>,
    /// Opened on first use, kept: it follows the active master by itself.
    conn: Mutex<Option<Arc<dyn Connection>>>,
}

impl MasterSource {
    pub fn new(runtime: Handle, addr: Arc<OnceLock<String>>) -> Self {
        Self {
            runtime,
            addr,
            conn: Mutex::new(None),
        }
    }

    /// A client connection to this master (admin calls reach the active master).
    pub fn conn(&self) -> Result<Arc<dyn Connection>, WebError> {
        if let Some(conn) = self.conn.lock().as_ref() {
            return Ok(conn.clone());
        }
        let address = address(&self.addr)?;
        let conn: Arc<dyn Connection> = Arc::new(RemoteConnection::connect(&address)?);
        *self.conn.lock() = Some(conn.clone());
        Ok(conn)
    }

    /// What the home page shows.
    pub fn view(&self) -> Result<ClusterView, WebError> {
        let address = address(&self.addr)?;
        let (info, status) = wait(&self.runtime, &address, async {
            let mut client = MasterServiceClient::new(channel(&address).await?);
            let info = client.get_cluster_info(pb::Empty {}).await;
            let info = info.map_err(failed)?.into_inner();
            if !info.is_active {
                return Ok((info, None));
            }
            let status = client.get_cluster_status(pb::Empty {}).await;
            Ok((info, Some(status.map_err(failed)?.into_inner())))
        })?;
        let (tables, regions) = match status {
            Some(_) => self.tables()?,
            None => (Vec::new(), Vec::new()),
        };
        Ok(ClusterView {
            info,
            status,
            tables,
            regions,
        })
    }

    /// Every region's counters, from each live region server's report (none on a backup
    /// master).
    pub fn readings(&self) -> Result<Vec<RegionReading>, WebError> {
        let address = address(&self.addr)?;
        let servers = wait(&self.runtime, &address, async {
            let mut client = MasterServiceClient::new(channel(&address).await?);
            let info = client.get_cluster_info(pb::Empty {}).await;
            if !info.map_err(failed)?.into_inner().is_active {
                return Ok(Vec::new());
            }
            let status = client.get_cluster_status(pb::Empty {}).await;
            Ok(status.map_err(failed)?.into_inner().servers)
        })?;
        let calls = servers.into_iter().filter_map(|s| {
            let rpc = super::rpc_address(&s.name)?;
            Some(async move {
                let report = super::region_server::fetch(&rpc).await;
                (s.name, report)
            })
        });
        let calls: Vec<_> = calls.collect();
        let reports = wait(&self.runtime, &address, async {
            let mut set = tokio::task::JoinSet::new();
            for call in calls {
                set.spawn(call);
            }
            let mut reports = Vec::new();
            while let Some(done) = set.join_next().await {
                match done {
                    Ok((_, Ok(report))) => reports.push(report),
                    Ok((server, Err(e))) => {
                        tracing::debug!(%server, error = %e, "no report for the heat sample")
                    }
                    Err(e) => tracing::debug!(error = %e, "a report call failed"),
                }
            }
            Ok(reports)
        })?;
        Ok(reports
            .into_iter()
            .flat_map(super::region_server::readings)
            .collect())
    }

    /// User tables with their regions, through the client's admin calls.
    fn tables(&self) -> Result<(Vec<TableSummary>, Vec<RegionReport>), WebError> {
        let conn = self.conn()?;
        let admin = conn.admin();
        let names = admin.list_tables(None)?;
        Ok(crate::snapshot::summarize(admin.as_ref(), names))
    }
}
