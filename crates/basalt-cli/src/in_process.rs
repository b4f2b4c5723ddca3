//! A standalone data folder served inside this process, for the tools given `--data-dir`
//! (`shell`, `pe`, `importtsv`, `hbck`): the master and region server of
//! `basalt standalone` on free loopback ports, with no gateway, web UI or signal handler
//! of their own, and a client connection to them. Closing (or dropping) it stops them as
//! standalone stops (memstores flushed) and releases the folder.

use crate::cluster_local::{run_pair, set_stop, wait_set, Serving};
use crate::CliError;
use basalt_api::Connection;
use basalt_db::{Database, DbConfig};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::watch;

/// What the in-process servers tell the caller once they serve.
type Ready = (SocketAddr, Arc<Database>);

/// A data folder served in this process.
pub struct InProcess {
    master: SocketAddr,
    conn: Arc<dyn Connection>,
    db: Arc<Database>,
    stop: Arc<watch::Sender<bool>>,
    thread: Option<std::thread::JoinHandle<Result<(), CliError>>>,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcess").finish_non_exhaustive()
    }
}

impl InProcess {
    /// Serves `data_dir` (brought to format 2 first, see [`crate::standalone_folder`]);
    /// returns once a client can create tables.
    pub fn start(data_dir: &Path, db: DbConfig) -> Result<InProcess, CliError> {
        let prepared = crate::standalone_folder::open(data_dir, &db)?;
        let server = basalt_server::ServerConfig {
            port: 0,
            ..basalt_server::ServerConfig::default()
        };
        let (master, region_server) = crate::standalone_folder::configs(data_dir, &server, db);
        let (stop, _) = watch::channel(false);
        let stop = Arc::new(stop);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Ready>();
        let thread_stop = stop.clone();
        let thread = std::thread::Builder::new()
            .name("basalt-in-process".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .thread_name("basalt")
                    .enable_all()
                    .build()
                    .map_err(CliError::Runtime)?;
                let coord = prepared.coord.clone();
                let front = |serving: Serving| {
                    let stop = thread_stop.clone();
                    async move {
                        serving.listed.await?;
                        let _ = ready_tx.send((serving.master, serving.db.clone()));
                        wait_set(&stop).await;
                        Ok(())
                    }
                };
                let fs: Arc<dyn basalt_storage::fs::FileSystem> =
                    Arc::new(basalt_storage::fs::LocalFs);
                let pair = crate::cluster_local::Pair {
                    master,
                    server: region_server,
                    coord,
                    fs,
                    server_waits: false,
                };
                let ran = runtime.block_on(run_pair(pair, thread_stop.clone(), |_, _| {}, front));
                drop(prepared);
                ran
            })
            .map_err(|e| CliError::Cluster(format!("cannot start a thread: {e}")))?;
        let Ok((addr, db)) = ready_rx.recv() else {
            return Err(match thread.join() {
                Ok(Err(e)) => e,
                Ok(Ok(())) => CliError::Cluster("the in-process servers stopped".into()),
                Err(_) => CliError::Cluster("the in-process servers panicked".into()),
            });
        };
        match basalt_client::RemoteConnection::connect(&addr.to_string()) {
            Ok(conn) => Ok(InProcess {
                master: addr,
                conn: Arc::new(conn),
                db,
                stop,
                thread: Some(thread),
            }),
            Err(e) => {
                set_stop(&stop);
                let _ = thread.join();
                Err(CliError::Connect(e))
            }
        }
    }

    /// A client of the folder's master (and, through it, its region server).
    pub fn connection(&self) -> Arc<dyn Connection> {
        self.conn.clone()
    }

    /// The master's address.
    pub fn master_addr(&self) -> SocketAddr {
        self.master
    }

    /// The region server's database: every region of the folder it has open.
    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }

    /// Stops the servers (memstores flushed, regions closed) and releases the folder.
    pub fn close(mut self) -> Result<(), CliError> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> Result<(), CliError> {
        set_stop(&self.stop);
        match self.thread.take().map(std::thread::JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e),
            Some(Err(_)) => Err(CliError::Cluster("the in-process servers panicked".into())),
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Err(e) = self.stop_and_join() {
            tracing::error!(error = %e, "stopping the in-process servers failed");
        }
    }
}
