//! The remote connection: one HTTP/2 channel to a server, an internal tokio runtime that
//! the blocking API calls block on, and the retry loop every call goes through.

use crate::admin::RemoteAdmin;
use crate::config::ClientConfig;
use crate::connector::Authed;
use crate::connector::Connector;
use crate::locations::{LocationCache, LocationStats};
use crate::table::RemoteTable;
use basalt_api::{Admin, ApiError, Connection, ErrorKind, Result, Table};
use basalt_proto::pb::admin_service_client::AdminServiceClient;
use basalt_proto::pb::table_service_client::TableServiceClient;
use basalt_proto::status::from_status;
use basalt_types::TableName;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tonic::transport::Channel;
use tonic::{Response, Status};

const IO_EXCEPTION: &str = "java.io.IOException";

/// A connection to a Basalt server.
#[derive(Clone)]
pub struct RemoteConnection {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// Taken only on drop, to shut down without blocking.
    runtime: Option<tokio::runtime::Runtime>,
    /// The server connected to: a standalone server, or a cluster's master.
    pub(crate) tables: TableServiceClient<Authed>,
    admin: parking_lot::RwLock<(AdminServiceClient<Authed>, Channel)>,
    /// Set when the address is a cluster's master (see [`crate::cluster`]).
    pub(crate) cluster: Option<crate::cluster::Cluster>,
    pub(crate) config: ClientConfig,
    /// Random per connection: with `next_nonce`, names each increment/append uniquely.
    pub(crate) nonce_group: u64,
    next_nonce: AtomicU64,
    pub(crate) locations: LocationCache,
}

/// Whether a call failing with `kind` may succeed if tried again.
pub fn retryable(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Busy | ErrorKind::Unavailable | ErrorKind::RetryElsewhere
    )
}

/// How long connecting waits for a master to be active (a standby takes over within a
/// lease's time after the active master died), asking again with back-off meanwhile.
const MASTER_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// The active master's channel, waiting up to [`MASTER_WAIT`] while none is active yet
/// (HBase's clients retry `MasterNotRunningException` the same way).
fn active_master(
    cluster: &crate::cluster::Cluster,
    runtime: &tokio::runtime::Runtime,
    config: &ClientConfig,
) -> Result<tonic::transport::Channel> {
    let deadline = std::time::Instant::now() + MASTER_WAIT;
    let mut tries = 0;
    loop {
        match cluster.master_channel(runtime, config) {
            Ok(channel) => return Ok(channel),
            Err(e) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    return Err(e);
                }
                tries += 1;
                tracing::debug!(error = %e, "no active master yet: asking again");
                std::thread::sleep(config.backoff(tries).min(left));
            }
        }
    }
}

fn unavailable(message: String) -> ApiError {
    ApiError::new(ErrorKind::Unavailable, IO_EXCEPTION, message)
}

impl RemoteConnection {
    /// Connects to `address` (`host:port` or `http://host:port`) with default settings.
    pub fn connect(address: &str) -> Result<Self> {
        Self::connect_with(address, ClientConfig::default())
    }

    /// Connects to `addresses`: one server (`host:port`), or a cluster's masters
    /// (`host:16000[,host2:16000…]`; the first that answers tells where the active master
    /// is). Against a cluster, admin calls go to the active master and data calls straight
    /// to the region servers holding the rows.
    pub fn connect_with(addresses: &str, config: ClientConfig) -> Result<Self> {
        crate::connector::Presenter::new(config.credentials.as_ref()).map_err(ApiError::invalid)?;
        let list: Vec<&str> = addresses
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        let mut last = None;
        for address in &list {
            match Self::connect_one(address, &list, config.clone()) {
                Ok(conn) => return Ok(conn),
                Err(e) => last = Some(e),
            }
        }
        Err(last
            .unwrap_or_else(|| ApiError::invalid(format!("no server address in '{addresses}'"))))
    }

    fn connect_one(address: &str, all: &[&str], config: ClientConfig) -> Result<Self> {
        let uri = if address.contains("://") {
            address.to_string()
        } else {
            format!("http://{address}")
        };
        let endpoint =
            crate::connector::endpoint_as(&uri, config.connect_timeout, config.user.as_deref())
                .map_err(ApiError::invalid)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("basalt-client")
            .enable_all()
            .build()
            .map_err(|e| unavailable(format!("cannot start the client runtime: {e}")))?;
        // Spawned and waited for rather than `block_on`, which panics inside a runtime.
        let (done, connected) = std::sync::mpsc::sync_channel(1);
        let connector = Connector::new(config.tls.as_ref());
        runtime.spawn(async move {
            let _ = done.send(endpoint.connect_with_connector(connector).await);
        });
        let channel = match connected.recv() {
            Ok(Ok(channel)) => channel,
            failed => {
                // Not `Runtime::drop`, which blocks and panics inside another runtime.
                runtime.shutdown_background();
                return Err(unavailable(match failed {
                    Ok(Err(e)) => format!("cannot connect to {uri}: {e}"),
                    _ => "the client runtime stopped".to_string(),
                }));
            }
        };
        let tables = TableServiceClient::new(config.presenter().on(channel.clone()))
            .max_decoding_message_size(config.response_max_bytes)
            .max_encoding_message_size(config.request_max_bytes);
        let cluster = crate::cluster::Cluster::probe(&runtime, &channel, all, &config)?;
        let admin_channel = match &cluster {
            Some(cluster) => active_master(cluster, &runtime, &config)?,
            None => channel.clone(),
        };
        let admin_channel_kept = admin_channel.clone();
        let admin = AdminServiceClient::new(config.presenter().on(admin_channel))
            .max_decoding_message_size(config.response_max_bytes)
            .max_encoding_message_size(config.request_max_bytes);
        let mut group = [0u8; 8];
        getrandom::fill(&mut group)
            .map_err(|e| unavailable(format!("no randomness for the nonce group: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                runtime: Some(runtime),
                tables,
                admin: parking_lot::RwLock::new((admin, admin_channel_kept)),
                cluster,
                nonce_group: u64::from_be_bytes(group),
                next_nonce: AtomicU64::new(1),
                locations: LocationCache::new(config.location_cache_entries_max),
                config,
            }),
        })
    }

    /// How the region-location cache has fared.
    pub fn location_stats(&self) -> LocationStats {
        self.inner.locations.stats()
    }

    /// A typed handle on the remote admin (also available as `dyn Admin`).
    pub fn remote_admin(&self) -> RemoteAdmin {
        RemoteAdmin::new(self.inner.clone())
    }
}

impl Inner {
    /// The admin client: the server's, or the active master's (found again after the
    /// master answered that it stands by or could not be reached).
    pub(crate) fn admin(&self) -> AdminServiceClient<Authed> {
        if let (Some(cluster), Some(runtime)) = (&self.cluster, &self.runtime) {
            if cluster.take_stale() {
                match cluster.master_channel(runtime, &self.config) {
                    Ok(channel) => {
                        let client =
                            AdminServiceClient::new(self.config.presenter().on(channel.clone()))
                                .max_decoding_message_size(self.config.response_max_bytes)
                                .max_encoding_message_size(self.config.request_max_bytes);
                        *self.admin.write() = (client, channel);
                    }
                    Err(e) => tracing::debug!(error = %e, "no active master found yet"),
                }
            }
        }
        self.admin.read().0.clone()
    }

    /// The channel admin calls go to: the server's, or the active master's.
    pub(crate) fn admin_channel(&self) -> Channel {
        let _ = self.admin();
        self.admin.read().1.clone()
    }

    /// The active master's `MasterService` (a cluster only).
    pub(crate) fn master(
        &self,
    ) -> basalt_proto::pb::master_service_client::MasterServiceClient<Authed> {
        let _ = self.admin();
        basalt_proto::pb::master_service_client::MasterServiceClient::new(
            self.config.presenter().on(self.admin.read().1.clone()),
        )
    }

    /// The table client for region server `server` (`host,port,startcode`) in a cluster, or
    /// the one server's.
    pub(crate) fn tables_on(&self, server: &str) -> Result<TableServiceClient<Authed>> {
        match (&self.cluster, &self.runtime) {
            (Some(cluster), Some(runtime)) => cluster.tables_on(runtime, server, &self.config),
            _ => Ok(self.tables.clone()),
        }
    }

    pub(crate) fn next_nonce(&self) -> u64 {
        self.next_nonce.fetch_add(1, Ordering::Relaxed)
    }

    /// Runs one call attempt to completion on the client's runtime, under the call
    /// timeout, and waits for it on this thread. The call runs as a task of the client's
    /// own runtime, so this works from any thread — even one inside another runtime (where
    /// it blocks that thread for the call, as any blocking API does).
    ///
    /// (Driving the call from this thread with `block_on` instead measured worse: the
    /// channel's request buffer hands the response future back across threads, 3.3 context
    /// switches per call instead of 1.8.)
    pub(crate) fn once<T, Fut>(&self, call: Fut) -> Result<T>
    where
        T: Send + 'static,
        Fut: Future<Output = std::result::Result<Response<T>, Status>> + Send + 'static,
    {
        let Some(runtime) = self.runtime.as_ref() else {
            return Err(unavailable("the connection is closed".into()));
        };
        let timeout = self.config.call_timeout;
        let (done, outcome) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = done.send(tokio::time::timeout(timeout, call).await);
        });
        match outcome.recv() {
            Ok(Ok(Ok(response))) => Ok(response.into_inner()),
            Ok(Ok(Err(status))) => Err(from_status(&status)),
            Ok(Err(_)) => Err(unavailable(format!(
                "call timed out after {} ms",
                timeout.as_millis()
            ))),
            Err(_) => Err(unavailable("the client runtime stopped".into())),
        }
    }

    /// Runs `attempt` until it succeeds, fails with a kind `retry_on` refuses, or the
    /// retries run out; pausing with exponential backoff between tries.
    pub(crate) fn call<T, F, Fut>(
        &self,
        retry_on: fn(ErrorKind) -> bool,
        mut attempt: F,
    ) -> Result<T>
    where
        T: Send + 'static,
        F: FnMut() -> Fut,
        Fut: Future<Output = std::result::Result<Response<T>, Status>> + Send + 'static,
    {
        self.call_after(retry_on, |_| Ok(attempt()))
    }

    /// Like [`Inner::call`], but each attempt is prepared knowing how the previous one
    /// failed (to locate a region again after "retry elsewhere"), and preparing may fail
    /// too. A first "retry elsewhere" is retried at once: the region is usually just
    /// somewhere the client had not looked yet.
    pub(crate) fn call_after<T, F, Fut>(
        &self,
        retry_on: fn(ErrorKind) -> bool,
        mut attempt: F,
    ) -> Result<T>
    where
        T: Send + 'static,
        F: FnMut(Option<&ApiError>) -> Result<Fut>,
        Fut: Future<Output = std::result::Result<Response<T>, Status>> + Send + 'static,
    {
        let mut tries = 0;
        let mut failed: Option<ApiError> = None;
        loop {
            match attempt(failed.as_ref()).and_then(|call| self.once(call)) {
                Err(e) if retry_on(e.kind) && tries < self.config.retries_max => {
                    tracing::debug!(error = %e, tries, "retrying a call");
                    if let Some(cluster) = &self.cluster {
                        cluster.note_failure(&e);
                    }
                    let relocating = e.kind == ErrorKind::RetryElsewhere
                        && failed
                            .as_ref()
                            .is_none_or(|f| f.kind != ErrorKind::RetryElsewhere);
                    if !relocating {
                        std::thread::sleep(self.config.backoff(tries));
                    }
                    tries += 1;
                    failed = Some(e);
                }
                other => return other,
            }
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Not `Runtime::drop`, which blocks and panics inside another runtime.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Connection for RemoteConnection {
    fn table(&self, name: &TableName) -> Result<Arc<dyn Table>> {
        if !self.remote_admin().table_exists(name)? {
            return Err(ApiError::table_not_found(&name.to_string()));
        }
        Ok(Arc::new(RemoteTable::new(self.inner.clone(), name.clone())))
    }

    fn admin(&self) -> Arc<dyn Admin> {
        Arc::new(self.remote_admin())
    }
}

impl std::fmt::Debug for RemoteConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteConnection")
            .field("nonce_group", &self.inner.nonce_group)
            .finish()
    }
}
