//! A connection to a cluster: admin calls to the active master, data calls to region
//! servers.
//!
//! The addresses given to [`crate::RemoteConnection::connect`] are the masters'. The first
//! that answers `MasterService.GetClusterInfo` says whether it is the active one or which
//! one is (a standalone server does not serve `MasterService`: the connection is then a
//! plain one). Region locations come from the active master and carry the server's name
//! `host,port,startcode`; the client keeps one channel per server. A call that fails
//! because a region moved ("retry elsewhere") or a server went away locates the row again;
//! a master that stands by or went away marks the master stale, and the next admin call
//! asks the masters again which is active.

use crate::config::ClientConfig;
use crate::connector::Authed;
use crate::connector::Connector;
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_proto::pb;
use basalt_proto::pb::master_service_client::MasterServiceClient;
use basalt_proto::pb::table_service_client::TableServiceClient;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::runtime::Runtime;
use tonic::transport::Channel;

const NOT_RUNNING_YET: &str = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException";

fn unavailable(message: String) -> ApiError {
    ApiError::new(ErrorKind::Unavailable, "java.io.IOException", message)
}

/// Runs `work` on `runtime` and waits for it on this thread (any thread).
fn wait<T: Send + 'static>(
    runtime: &Runtime,
    work: impl Future<Output = T> + Send + 'static,
) -> Option<T> {
    let (done, outcome) = std::sync::mpsc::sync_channel(1);
    runtime.spawn(async move {
        let _ = done.send(work.await);
    });
    outcome.recv().ok()
}

/// A channel that connects on first use (and reconnects after failures).
pub(crate) fn lazy_channel(
    runtime: &Runtime,
    address: &str,
    config: &ClientConfig,
) -> Result<Channel> {
    let endpoint =
        crate::connector::endpoint_as(address, config.connect_timeout, config.user.as_deref())
            .map_err(ApiError::invalid)?;
    let _entered = runtime.enter();
    Ok(endpoint.connect_with_connector_lazy(Connector::new(config.tls.as_ref())))
}

/// `host:port` of a server name `host,port,startcode` (or of `host:port` itself).
pub(crate) fn server_address(server: &str) -> String {
    let mut parts = server.split(',');
    match (parts.next(), parts.next()) {
        (Some(host), Some(port)) if host.contains(':') => format!("[{host}]:{port}"),
        (Some(host), Some(port)) => format!("{host}:{port}"),
        _ => server.to_string(),
    }
}

pub(crate) struct Cluster {
    masters: Vec<String>,
    /// The master that last said it is active.
    active: Mutex<Option<String>>,
    servers: Mutex<HashMap<String, TableServiceClient<Authed>>>,
    stale: AtomicBool,
}

impl Cluster {
    /// A cluster if the server on `channel` is a master; None for a standalone server.
    pub(crate) fn probe(
        runtime: &Runtime,
        channel: &Channel,
        masters: &[&str],
        config: &ClientConfig,
    ) -> Result<Option<Cluster>> {
        let mut client = MasterServiceClient::new(config.presenter().on(channel.clone()));
        let timeout = config.connect_timeout;
        let answer = wait(runtime, async move {
            tokio::time::timeout(timeout, client.get_cluster_info(pb::Empty {})).await
        })
        .ok_or_else(|| unavailable("the client runtime stopped".into()))?;
        let info = match answer {
            Ok(Ok(info)) => info.into_inner(),
            Ok(Err(status)) if status.code() == tonic::Code::Unimplemented => return Ok(None),
            Ok(Err(status)) => return Err(basalt_proto::status::from_status(&status)),
            Err(_) => return Err(unavailable(format!("no answer within {timeout:?}"))),
        };
        let active = (!info.active_master.is_empty()).then_some(info.active_master);
        Ok(Some(Cluster {
            masters: masters.iter().map(|m| m.to_string()).collect(),
            active: Mutex::new(active),
            servers: Mutex::new(HashMap::new()),
            stale: AtomicBool::new(false),
        }))
    }

    /// Asks the masters which is active (the last known first) and returns a channel to it.
    pub(crate) fn master_channel(
        &self,
        runtime: &Runtime,
        config: &ClientConfig,
    ) -> Result<Channel> {
        let mut candidates: Vec<String> = self.active.lock().iter().cloned().collect();
        candidates.extend(self.masters.iter().cloned());
        for candidate in candidates {
            let channel = lazy_channel(runtime, &candidate, config)?;
            let mut client = MasterServiceClient::new(config.presenter().on(channel.clone()));
            let timeout = config.connect_timeout;
            let answer = wait(runtime, async move {
                tokio::time::timeout(timeout, client.get_cluster_info(pb::Empty {})).await
            });
            let Some(Ok(Ok(info))) = answer else { continue };
            let info = info.into_inner();
            if info.is_active {
                *self.active.lock() = Some(candidate);
                return Ok(channel);
            }
            if !info.active_master.is_empty() && info.active_master != candidate {
                *self.active.lock() = Some(info.active_master.clone());
                return lazy_channel(runtime, &info.active_master, config);
            }
        }
        self.stale.store(true, Ordering::Release);
        Err(unavailable(format!(
            "no active master among {}",
            self.masters.join(",")
        )))
    }

    /// The table client of region server `server`, one channel per server.
    pub(crate) fn tables_on(
        &self,
        runtime: &Runtime,
        server: &str,
        config: &ClientConfig,
    ) -> Result<TableServiceClient<Authed>> {
        if let Some(client) = self.servers.lock().get(server) {
            return Ok(client.clone());
        }
        let channel = lazy_channel(runtime, &server_address(server), config)?;
        let client = TableServiceClient::new(config.presenter().on(channel))
            .max_decoding_message_size(config.response_max_bytes)
            .max_encoding_message_size(config.request_max_bytes);
        self.servers
            .lock()
            .insert(server.to_string(), client.clone());
        Ok(client)
    }

    /// A call failed: a master that stands by or cannot be reached is looked for again.
    pub(crate) fn note_failure(&self, e: &ApiError) {
        if e.exception == NOT_RUNNING_YET || e.kind == ErrorKind::Unavailable {
            self.stale.store(true, Ordering::Release);
        }
    }

    /// Whether the master should be looked for again (clears the mark).
    pub(crate) fn take_stale(&self) -> bool {
        self.stale.swap(false, Ordering::AcqRel)
    }
}

#[cfg(test)]
mod tests {
    use super::server_address;

    #[test]
    fn server_names_give_addresses() {
        assert_eq!(
            server_address("127.0.0.2,16020,1700000000000"),
            "127.0.0.2:16020"
        );
        assert_eq!(server_address("::1,16020,17"), "[::1]:16020");
        assert_eq!(server_address("h:9"), "h:9");
    }
}
