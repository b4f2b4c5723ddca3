//! `basalt master --coordinator local:///DIR --with-regionserver`: a whole cluster in one
//! process — the master, one region server and a durable in-process coordinator
//! ([`basalt_coord::LocalCoordinator::open`]) over a local folder. It is the shape
//! standalone is converging to (design §5.6): the same master, region server and client
//! code as a cluster of many machines, with nothing else to install.
//!
//! A local coordinator lives in this one process (its folder is locked), so no other
//! process can join: `local://` is refused without `--with-regionserver`, and by
//! `basalt regionserver`. Stopping (SIGTERM) stops the region server first, which closes
//! and flushes its regions, then the master; the next start opens them again. After a
//! SIGKILL the next start's region server reads every earlier incarnation's log under
//! `wal/` before serving (the coordinator's lock proves they are gone) and the master
//! releases their regions to it: every acknowledged write is back.
//! `basalt migrate --coordinator local:///DIR` moves a standalone folder into one.

use crate::cluster::{cluster_error, signals, ClusterArgs, MasterArgs};
use crate::CliError;
use basalt_coord::{Coordinator, LocalCoordinator};
use std::path::PathBuf;
use std::sync::Arc;

/// The folder of a `local:///DIR` coordinator URL.
pub fn local_dir(url: &str) -> Option<Result<PathBuf, CliError>> {
    let rest = url.strip_prefix("local://")?;
    if !rest.starts_with('/') {
        return Some(Err(cluster_error(format!(
            "coordinator {url}: expected local:///absolute/dir"
        ))));
    }
    Some(Ok(PathBuf::from(rest)))
}

/// A one-process cluster on a local coordinator creates its `file://` store folder, as
/// standalone creates its data folder. (A cluster's shared folder must exist: a missing
/// one is a mount that failed.)
pub fn create_store_folder(args: &ClusterArgs) -> Result<(), CliError> {
    if local_dir(&args.coordinator).is_none() || !args.store.starts_with("file://") {
        return Ok(());
    }
    let root = crate::cluster::store_root(&args.store)?;
    std::fs::create_dir_all(&root)
        .map_err(|e| cluster_error(format!("cannot create {}: {e}", root.display())))
}

/// Opens the durable in-process coordinator in `dir` (refused when another process holds
/// it, or when its files are damaged: the error names the file and offset).
pub async fn open(dir: PathBuf, args: &ClusterArgs) -> Result<Arc<dyn Coordinator>, CliError> {
    let url = args.coordinator.clone();
    let opened = tokio::task::spawn_blocking(move || LocalCoordinator::open(&dir))
        .await
        .map_err(|e| cluster_error(format!("opening {url}: {e}")))?
        .map_err(|e| cluster_error(format!("coordinator {url}: {e}")))?;
    Ok(Arc::new(opened))
}

/// The region server beside a `--with-regionserver` master: started with the master,
/// stopped (drained, its regions flushed and closed) before it. Returns when it stopped.
pub async fn region_server(
    args: ClusterArgs,
    port: u16,
    root: PathBuf,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn basalt_storage::fs::FileSystem>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), CliError> {
    let mut config = basalt_regionserver::RegionServerConfig {
        store_root: root,
        web_port: 0,
        lease_ttl: std::time::Duration::from_secs(args.lease_ttl),
        // Every other log under wal/ is a previous incarnation of this process's region
        // server (the coordinator's lock proves it is gone): read them before serving.
        adopt_logs: true,
        ..basalt_regionserver::RegionServerConfig::default()
    };
    config.server.bind = args.bind.clone();
    config.server.port = port;
    let on_ready = |name: &basalt_regionserver::ServerName, addr: std::net::SocketAddr| {
        crate::cluster::ready_line(&format!("basalt regionserver {name} listening on {addr}"));
    };
    let mut stop = stop;
    let stopped = async move {
        let _ = stop.wait_for(|s| *s).await;
    };
    basalt_regionserver::run::run(config, coord, fs, on_ready, stopped)
        .await
        .map_err(|e| cluster_error(e.to_string()))
}

/// A flag set by the first signal (or by whoever holds it), that both parts watch.
pub fn stop_on_signal() -> Arc<tokio::sync::watch::Sender<bool>> {
    let (tx, _) = tokio::sync::watch::channel(false);
    let tx = Arc::new(tx);
    let on_signal = tx.clone();
    tokio::spawn(async move {
        signals().await;
        let _ = on_signal.send(true);
    });
    tx
}

/// Runs the master and, once it serves (it writes the store's version file first), a
/// region server, both in this task. A signal stops the region server first (its regions
/// flushed and closed), then the master; either ending stops the other.
pub async fn run_with_region_server(
    args: &MasterArgs,
    config: basalt_master::MasterConfig,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn basalt_storage::fs::FileSystem>,
    on_ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), CliError> {
    let stop = stop_on_signal();
    let (master_ready, master_serves) = tokio::sync::oneshot::channel::<()>();
    let (server_done, server_stopped) = tokio::sync::oneshot::channel::<()>();
    let region_server = async {
        if master_serves.await.is_err() {
            return Err(cluster_error("the master did not start"));
        }
        let ran = region_server(
            args.cluster.clone(),
            args.regionserver_port,
            config.store_root.clone(),
            coord.clone(),
            fs.clone(),
            stop.subscribe(),
        )
        .await;
        let _ = server_done.send(());
        ran
    };
    let master = async {
        let ready = move |addr| {
            on_ready(addr);
            let _ = master_ready.send(());
        };
        let stopped = async {
            let _ = server_stopped.await;
        };
        let ran =
            basalt_master::run::run(config.clone(), coord.clone(), fs.clone(), ready, stopped)
                .await
                .map_err(|e| cluster_error(e.to_string()));
        let _ = stop.send(true);
        ran
    };
    tokio::pin!(region_server, master);
    tokio::select! {
        // The region server stopped (a signal, or it failed): the master follows.
        served = &mut region_server => (&mut master).await.and(served),
        // The master ended first, which only a failure does: the region server stops at
        // once (what it acknowledged is in its log).
        led = &mut master => led.and(Err(cluster_error(
            "the master stopped before its region server",
        ))),
    }
}
