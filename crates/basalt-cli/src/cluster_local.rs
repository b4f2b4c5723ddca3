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

/// The region server beside a `--with-regionserver` master.
pub fn region_server_config(
    args: &ClusterArgs,
    port: u16,
    root: PathBuf,
) -> basalt_regionserver::RegionServerConfig {
    let mut config = basalt_regionserver::RegionServerConfig {
        store_root: root,
        web_port: 0,
        lease_ttl: std::time::Duration::from_secs(args.lease_ttl),
        // Every other log under wal/ is a previous incarnation of this process's region
        // server (the coordinator's lock proves it is gone): read them before serving.
        adopt_logs: true,
        ..basalt_regionserver::RegionServerConfig::default()
    };
    // The file was read (and refused if bad) when the master started.
    let file = crate::cluster::file_config(args).unwrap_or_default();
    config.server = crate::cluster::server_config(args, port, &file);
    config.db = file.db_config();
    config
}

/// A flag set by the first signal (or by whoever holds it), that every part watches.
pub fn stop_on_signal() -> Arc<tokio::sync::watch::Sender<bool>> {
    let (tx, _) = tokio::sync::watch::channel(false);
    let tx = Arc::new(tx);
    let on_signal = tx.clone();
    tokio::spawn(async move {
        signals().await;
        set_stop(&on_signal);
    });
    tx
}

/// Where a master and its region server in one process serve, once the region server's
/// database is open; `listed` completes once the master lists the region server as live
/// and has placed every region (a table can be created from then on).
pub struct Serving {
    pub master: std::net::SocketAddr,
    pub server: String,
    pub server_addr: std::net::SocketAddr,
    /// The region server's database: the regions it hosts.
    pub db: Arc<basalt_db::Database>,
    /// The master itself (its admin serves in process).
    pub master_ref: Arc<basalt_master::Master>,
    /// Completes when the master lists the region server and has placed every region
    /// (what the ready lines wait for).
    pub listed: std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), CliError>> + Send>>,
}

/// Waits for `flag` to be set.
/// Sets a stop flag. The value is stored even while no one watches (a plain `send` drops
/// it then), so a part that starts watching later still sees it: a stop sent between a
/// server's start and its first look at the flag once went unseen, and the process
/// never stopped.
pub fn set_stop(flag: &tokio::sync::watch::Sender<bool>) {
    flag.send_replace(true);
}

/// Waits until the stop flag is set (at once if it already is).
pub async fn wait_set(flag: &Arc<tokio::sync::watch::Sender<bool>>) {
    let mut seen = flag.subscribe();
    let _ = seen.wait_for(|s| *s).await;
}

/// A master and a region server to run in one process.
pub struct Pair {
    pub master: basalt_master::MasterConfig,
    pub server: basalt_regionserver::RegionServerConfig,
    pub coord: Arc<dyn Coordinator>,
    pub fs: Arc<dyn basalt_storage::fs::FileSystem>,
    /// The region server starts once the master serves (true), or at once.
    pub server_waits: bool,
}

/// Runs a master and a region server — the region server once the master serves when
/// `server_waits` (the master writes a new store's version file first), else at once (a
/// standalone folder's version is written before either starts) — then `front` (the listeners in front of them: gateways, ready lines) once the
/// master lists the region server. `front` runs until `stop` is set, then stops its own
/// listeners and returns; then the region server stops (its regions flushed and closed),
/// then the master. A part that fails sets `stop`, and the rest follow in that order.
pub async fn run_pair<Front, Fut>(
    pair: Pair,
    stop: Arc<tokio::sync::watch::Sender<bool>>,
    on_master_ready: impl FnOnce(std::net::SocketAddr, &Arc<basalt_master::Master>),
    front: Front,
) -> Result<(), CliError>
where
    Front: FnOnce(Serving) -> Fut,
    Fut: std::future::Future<Output = Result<(), CliError>>,
{
    let Pair {
        master: mut master_config,
        server: mut server_config,
        coord,
        fs,
        server_waits,
    } = pair;
    // The master and the region server (and the gateways in front) call each other
    // through in-memory pipes; other processes still connect over TCP.
    master_config.server.in_process = true;
    server_config.server.in_process = true;
    use tokio::sync::oneshot;
    let (master_ready, master_serves) = oneshot::channel::<()>();
    let (master_known, master_for_front) =
        oneshot::channel::<(std::net::SocketAddr, Arc<basalt_master::Master>)>();
    let (server_ready, server_serves) =
        oneshot::channel::<(String, std::net::SocketAddr, Arc<basalt_db::Database>)>();
    let (front_done, front_stopped) = oneshot::channel::<()>();
    let (server_done, server_stopped) = oneshot::channel::<()>();
    let region_server = async {
        if server_waits && master_serves.await.is_err() {
            return Err(cluster_error("the master did not start"));
        }
        let open = |name: &basalt_regionserver::ServerName, addr, db: &Arc<basalt_db::Database>| {
            let _ = server_ready.send((name.to_string(), addr, db.clone()));
        };
        let stopped = async {
            let _ = front_stopped.await;
        };
        let ran = basalt_regionserver::run::run_with(
            server_config,
            coord.clone(),
            fs.clone(),
            open,
            |_, _| {},
            stopped,
        )
        .await
        .map_err(|e| cluster_error(e.to_string()));
        set_stop(&stop);
        let _ = server_done.send(());
        ran
    };
    let master_and_front = async {
        let ready = |addr, master: &Arc<basalt_master::Master>| {
            on_master_ready(addr, master);
            let _ = master_ready.send(());
            let _ = master_known.send((addr, master.clone()));
        };
        let stopped = async {
            let _ = server_stopped.await;
        };
        let master = basalt_master::run::run_with(
            master_config.clone(),
            coord.clone(),
            fs.clone(),
            ready,
            stopped,
        );
        master.await.map_err(|e| cluster_error(e.to_string()))
    };
    let front_part = async {
        let ran = async {
            let Ok((master_addr, master)) = master_for_front.await else {
                return Err(cluster_error("the master did not start"));
            };
            let Ok((server, server_addr, db)) = server_serves.await else {
                return Err(cluster_error("the region server did not start"));
            };
            let listed = {
                let (master, server, stop) = (master.clone(), server.clone(), stop.clone());
                Box::pin(async move { wait_lists(&master, &server, &stop).await })
            };
            front(Serving {
                master_ref: master,
                master: master_addr,
                server,
                server_addr,
                db,
                listed,
            })
            .await
        }
        .await;
        set_stop(&stop);
        let _ = front_done.send(());
        ran
    };
    let (master, served, fronted) = tokio::join!(master_and_front, region_server, front_part);
    fronted.and(served).and(master)
}

/// Whether every serving region of every enabled table has been placed (open, or failed
/// to open): what a start waits for before it says it is ready, as standalone always did.
fn settled(master: &basalt_master::Master) -> bool {
    use basalt_master::catalog::AssignState;
    let catalog = master.catalog.read();
    catalog.assign.iter().all(|(encoded, a)| {
        let waiting = matches!(
            a.state,
            AssignState::Offline
                | AssignState::Opening
                | AssignState::Closing
                | AssignState::Crashed
        );
        let enabled = catalog
            .regions
            .get(encoded)
            .and_then(|r| catalog.tables.get(&r.table))
            .is_some_and(|t| t.enabled);
        !(waiting && enabled)
    })
}

/// Waits until the master is active, lists `server` as live and has placed every region
/// (within a minute: a region still waiting then is left to the master and its clients).
/// It wakes on the master's own announcements of change, so the ready line follows the
/// last region's opening at once.
async fn wait_lists(
    master: &basalt_master::Master,
    server: &str,
    stop: &Arc<tokio::sync::watch::Sender<bool>>,
) -> Result<(), CliError> {
    use std::time::Duration;
    let live = |m: &basalt_master::Master| m.is_active() && m.servers.is_live(server);
    let placed = master.changed(
        |m| *stop.borrow() || (live(m) && settled(m)),
        Duration::from_millis(50),
        Duration::from_secs(60),
    );
    let placed = placed.await;
    if *stop.borrow() {
        return Err(cluster_error("stopped before serving"));
    }
    match (placed, live(master)) {
        (true, _) => Ok(()),
        (false, true) => {
            tracing::warn!("some regions are still being opened after a minute: serving anyway");
            Ok(())
        }
        (false, false) => Err(cluster_error(format!(
            "the master did not list the region server {server} within a minute"
        ))),
    }
}

/// Runs the master and its region server (`basalt master --with-regionserver`): the
/// master's ready line once it serves, the region server's once the master lists it.
pub async fn run_with_region_server(
    args: &MasterArgs,
    config: basalt_master::MasterConfig,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn basalt_storage::fs::FileSystem>,
    on_ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), CliError> {
    let stop = stop_on_signal();
    let mut server = region_server_config(
        &args.cluster,
        args.regionserver_port,
        config.store_root.clone(),
    );
    server.server.auth = config.server.auth.clone();
    if config.server.acl.0.is_some() {
        let section =
            crate::cluster::security(&args.cluster, &crate::cluster::file_config(&args.cluster)?);
        server.server.acl = crate::cluster::region_server_acl(&section, coord.clone());
    }
    // The native protocol on both: the master's services on --hbase-port, the region
    // server's on a port of its own (named in hbase:meta), as a cluster's are.
    server.hbase = config
        .hbase
        .as_ref()
        .map(|master| basalt_hbase::HbaseConfig {
            port: args.regionserver_hbase_port,
            zookeeper: false,
            ..master.clone()
        });
    let front = |serving: Serving| {
        let stop = stop.clone();
        async move {
            serving.listed.await?;
            crate::cluster::ready_line(&format!(
                "basalt regionserver {} listening on {}",
                serving.server, serving.server_addr
            ));
            wait_set(&stop).await;
            Ok(())
        }
    };
    let pair = Pair {
        master: config,
        server,
        coord,
        fs,
        server_waits: true,
    };
    let on_master_ready = |addr, master: &Arc<basalt_master::Master>| {
        crate::cluster::native_ready_lines(master);
        on_ready(addr)
    };
    run_pair(pair, stop.clone(), on_master_ready, front).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The race `basalt importtsv` once hung on: the stop was sent before the part that
    /// waits for it had subscribed, with no one else watching.
    #[test]
    fn a_stop_set_while_no_one_watches_is_seen_by_a_later_waiter() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (flag, watcher) = tokio::sync::watch::channel(false);
        drop(watcher);
        let flag = Arc::new(flag);
        set_stop(&flag);
        runtime
            .block_on(async {
                tokio::time::timeout(Duration::from_secs(10), wait_set(&flag)).await
            })
            .expect("the stop set before anyone waited is seen");
    }
}
