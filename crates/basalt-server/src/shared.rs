//! What every call handler shares: the hosted connection, the limits, the nonce cache and
//! the open scanners; and the two ways a handler runs database work under the server-wide
//! call limit:
//!
//! | way | where | for | costs |
//! |---|---|---|---|
//! | [`Shared::run_inline`] | the async thread serving the call | single-row reads, catalog reads: memory and block cache, never a log sync or a budget wait | the call's own work |
//! | [`Shared::run_blocking`] | a blocking thread | writes (log syncs, row locks, the memstore budget), scans, multi-row reads, admin changes | two thread hand-offs (tens of µs on a busy 2-core machine) |
//!
//! A single-row get from cache takes a few µs: the hand-off to and from a blocking thread
//! cost more than the get itself (it was a third of the server's CPU under `basalt pe
//! ycsbC`). An inline read can still wait briefly: on a block read from disk, or on the
//! database's re-routing pause (a few ms) while the row's region splits.

use crate::config::ServerConfig;
use crate::error::{busy, invalid, status};
use crate::nonce::NonceCache;
use crate::scanners::Registry;
use crate::slowlog::SlowLog;
use basalt_api::{Admin, ApiError, Connection, ErrorKind, Result as ApiResult};
use basalt_types::TableName;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

/// HBase's exception for a call that reached a server not holding the region.
pub const NOT_SERVING_REGION: &str = "org.apache.hadoop.hbase.NotServingRegionException";

pub struct Shared {
    pub conn: Arc<dyn Connection>,
    /// The hosted connection's admin, made once.
    pub admin: Arc<dyn Admin>,
    pub config: ServerConfig,
    calls: Arc<Semaphore>,
    pub nonces: NonceCache,
    pub scanners: Registry,
    /// Data calls slower than the threshold ([`crate::slowlog`]).
    pub slowlog: SlowLog,
}

impl Shared {
    pub fn new(conn: Arc<dyn Connection>, config: ServerConfig) -> Self {
        Self {
            admin: conn.admin(),
            conn,
            calls: Arc::new(Semaphore::new(config.calls_max.max(1))),
            nonces: NonceCache::new(config.nonces_max),
            scanners: Registry::new(
                Duration::from_millis(config.scanner_lease_ms),
                config.scanners_max,
            ),
            slowlog: SlowLog::new(&config),
            config,
        }
    }

    /// A slot among the `calls_max` running calls, or "server busy" (a call past the limit
    /// is refused instead of queueing without bound).
    fn admit(&self) -> Result<OwnedSemaphorePermit, Status> {
        self.calls.clone().try_acquire_owned().map_err(|_| {
            busy(format!(
                "{} calls are running; try again later",
                self.config.calls_max
            ))
        })
    }

    /// Runs `work` here, on the async thread serving the call: only for work that reads
    /// memory or the block cache and never waits on a log sync, a flush or the memstore
    /// budget (see the module's table).
    pub fn run_inline<T>(&self, work: impl FnOnce(&Shared) -> ApiResult<T>) -> Result<T, Status> {
        let _permit = self.admit()?;
        basalt_acl::context::with(crate::principal::current(), || work(self)).map_err(|e| {
            tracing::debug!(error = %e, "call failed");
            status(e)
        })
    }

    /// Runs `work` on a blocking thread.
    pub async fn run_blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&Shared) -> ApiResult<T> + Send + 'static,
    {
        let permit = self.admit()?;
        let shared = self.clone();
        let principal = crate::principal::current();
        let joined = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            basalt_acl::context::with(principal, || work(&shared))
        })
        .await;
        match joined {
            Ok(result) => result.map_err(|e| {
                tracing::debug!(error = %e, "call failed");
                status(e)
            }),
            Err(e) => {
                tracing::error!(error = %e, "a call's task failed");
                Err(status(ApiError::new(
                    ErrorKind::Unavailable,
                    "java.io.IOException",
                    "the call failed inside the server",
                )))
            }
        }
    }

    /// Refuses a call aimed at `expected` (a region name from the client's location cache,
    /// empty for none) when another region holds `row` now, as HBase's region server
    /// refuses a region it does not serve; the client then locates the row again.
    pub fn check_region(&self, table: &TableName, row: &[u8], expected: &str) -> ApiResult<()> {
        if expected.is_empty() {
            return Ok(());
        }
        let location = self.admin.locate_region(table, row)?;
        if location.region_name == expected {
            return Ok(());
        }
        Err(ApiError::new(
            ErrorKind::RetryElsewhere,
            NOT_SERVING_REGION,
            format!(
                "Region {expected} is not online on {}; {} holds the row",
                location.server, location.region_name
            ),
        ))
    }

    /// Refuses a request holding more than `cells_per_request_max` cells.
    pub fn check_cells(&self, cells: usize) -> Result<(), Status> {
        if cells > self.config.cells_per_request_max {
            return Err(invalid(format!(
                "request holds {cells} cells; the limit is {}",
                self.config.cells_per_request_max
            )));
        }
        Ok(())
    }

    /// Refuses a request holding more than `actions_per_request_max` operations.
    pub fn check_actions(&self, actions: usize) -> Result<(), Status> {
        if actions > self.config.actions_per_request_max {
            return Err(invalid(format!(
                "request holds {actions} operations; the limit is {}",
                self.config.actions_per_request_max
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_db::{Database, DbConfig, EmbeddedConnection};
    use basalt_proto::status::from_status;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_past_the_limit_are_busy_not_queued() {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::open(dir.path(), DbConfig::default()).expect("open");
        let config = ServerConfig {
            calls_max: 1,
            ..ServerConfig::default()
        };
        let shared = Arc::new(Shared::new(
            Arc::new(EmbeddedConnection::new(db.clone())),
            config,
        ));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (started, running) = tokio::sync::oneshot::channel::<()>();
        let holder = shared.clone();
        let first = tokio::spawn(async move {
            holder
                .run_blocking(move |_| {
                    let _ = started.send(());
                    let _ = wait.recv();
                    Ok(())
                })
                .await
        });
        running.await.expect("the first call runs");
        let refused = shared.run_blocking(|_| Ok(())).await.expect_err("busy");
        assert_eq!(from_status(&refused).kind, ErrorKind::Busy);
        let refused = shared.run_inline(|_| Ok(())).expect_err("busy inline too");
        assert_eq!(from_status(&refused).kind, ErrorKind::Busy);
        release.send(()).expect("release");
        first
            .await
            .expect("joined")
            .expect("the first call succeeds");
        shared.run_blocking(|_| Ok(())).await.expect("room again");
        shared.run_inline(|_| Ok(())).expect("room inline");
        db.close().expect("close");
    }
}
