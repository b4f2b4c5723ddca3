//! A region server's life: open its database over the shared store, introduce itself to
//! the active master (clock and version checked there), register under a lease, serve;
//! on shutdown ask the master to move its regions away, then close and end the lease.
//!
//! A region server serves only while its lease is live by its own reckoning
//! ([`basalt_coord::keeper::LeaseKeeper`]): when the deadline passes it stops at once, since
//! the master may be giving its regions to others.

use crate::config::RegionServerConfig;
use crate::name::ServerName;
use crate::service::RegionServerSvc;
use basalt_api::Connection;
use basalt_coord::keeper::{LeaseKeeper, LeaseState};
use basalt_coord::{layout, Coordinator, Op, Txn};
use basalt_db::{Database, EmbeddedConnection};
use basalt_proto::pb;
use basalt_proto::pb::master_service_client::MasterServiceClient;
use basalt_proto::pb::region_server_service_server::RegionServerServiceServer;
use basalt_storage::fs::FileSystem;
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The cluster protocol this build speaks; a master refuses a region server of another.
pub const PROTOCOL: u32 = 1;

#[derive(Debug)]
pub struct RsError(pub String);

impl std::fmt::Display for RsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RsError {}

fn err(message: impl Into<String>) -> RsError {
    RsError(message.into())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Serves until `shutdown` completes (or the lease is lost), then stops gracefully.
/// `on_ready` gets the server's name and RPC address.
pub async fn run(
    config: RegionServerConfig,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn FileSystem>,
    on_ready: impl FnOnce(&ServerName, SocketAddr),
    shutdown: impl Future<Output = ()>,
) -> Result<(), RsError> {
    run_with(config, coord, fs, |_, _, _| {}, on_ready, shutdown).await
}

/// As [`run`], with `on_open` called as soon as the server's database is open and its RPC
/// port serves — before it is introduced to the master and registered (when `on_ready`
/// follows): what stands in front of a region server in the same process (standalone's
/// gateways, over its database) starts meanwhile.
pub async fn run_with(
    mut config: RegionServerConfig,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn FileSystem>,
    on_open: impl FnOnce(&ServerName, SocketAddr, &Arc<Database>),
    on_ready: impl FnOnce(&ServerName, SocketAddr),
    shutdown: impl Future<Output = ()>,
) -> Result<(), RsError> {
    // The listener first (and kept): its port, chosen when 0, is in the server's name.
    let listener = basalt_server::bind(&config.server).map_err(|e| err(e.to_string()))?;
    let port = listener.local_addr().port();
    config.server.port = port;
    let host = config
        .advertise_host
        .clone()
        .unwrap_or_else(|| config.server.bind.clone());
    let name = ServerName {
        host,
        port,
        start_code: now_ms(),
    };
    let root = config.store_root.clone();
    let wal_dir = root.join("wal").join(name.to_string());
    let (db_config, server_name) = (config.db.clone(), name.to_string());
    tracing::info!(server = %name, store = %root.display(), "opening the region server's database");
    let early = reach_master_early(coord.clone());
    let db = tokio::task::spawn_blocking(move || {
        Database::open_host(fs, &root, &wal_dir, &server_name, db_config)
    })
    .await
    .map_err(|e| err(format!("opening the database failed: {e}")))?
    .map_err(|e| err(format!("cannot open the region server's database: {e}")))?;
    let adopted = if config.adopt_logs {
        adopt_logs(&db, &config.store_root, &name).await?
    } else {
        Vec::new()
    };
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db.clone()));
    let service = RegionServerServiceServer::new(RegionServerSvc::new(db.clone()));
    let handle = basalt_server::start_on(listener, conn.clone(), config.server.clone(), |routes| {
        routes.add_service(service)
    })
    .await
    .map_err(|e| {
        err(format!(
            "cannot serve on {}:{port}: {e}",
            config.server.bind
        ))
    })?;
    let native = match &config.hbase {
        // Each call checked for its connection's user, as on gRPC.
        Some(hbase) => match crate::native::start(
            hbase,
            basalt_server::authorize::served(conn.clone(), &config.server.acl),
            &name,
        ) {
            Ok(native) => Some(native),
            Err(e) => {
                let _ = handle.shutdown().await;
                let closing = db.clone();
                let _ = tokio::task::spawn_blocking(move || closing.close()).await;
                return Err(err(e));
            }
        },
        None => None,
    };
    let native_addr = native
        .as_ref()
        .map(|n| (n.identity().host.clone(), n.local_addr()));
    if let Some((_, addr)) = &native_addr {
        tracing::info!(server = %name, %addr, "HBase native RPC for this server's regions");
    }
    on_open(&name, handle.local_addr(), &db);
    let result = match introduce(&coord, &name, &adopted, early).await {
        Ok(master) => {
            tracing::info!(server = %name, master = %master, "introduced to the active master");
            let hbase_address = native_addr
                .as_ref()
                .map(|(host, addr)| format!("{host}:{}", addr.port()));
            serve(
                &config,
                &coord,
                &db,
                (&name, hbase_address),
                handle.local_addr(),
                on_ready,
                shutdown,
            )
            .await
        }
        Err(e) => Err(e),
    };
    tracing::info!(server = %name, "stopping: no new calls");
    if let Some(native) = native {
        let _ = tokio::task::spawn_blocking(move || native.shutdown()).await;
    }
    let _ = handle.shutdown().await;
    let closing = db.clone();
    tokio::task::spawn_blocking(move || closing.close())
        .await
        .map_err(|e| err(format!("closing failed: {e}")))?
        .map_err(|e| err(format!("closing the database failed: {e}")))?;
    if config.adopt_logs && result.is_ok() {
        archive_logs(&db, &config.store_root, &name, &adopted).await;
    }
    tracing::info!(server = %name, "stopped");
    result
}

/// After a clean stop of a cluster in one process, every region here was flushed as it
/// closed, so this server's log and the logs it adopted hold nothing a region needs —
/// unless a region closed without its flush (a full disk), or some adopted edits were
/// never claimed (a region that failed to open, a disabled table), and then every log
/// stays. They move to `<root>/oldWALs/` (HBase's archive), so
/// that the next start does not read them again. Nothing is deleted.
async fn archive_logs(
    db: &Arc<Database>,
    root: &std::path::Path,
    name: &ServerName,
    adopted: &[String],
) {
    let db = db.clone();
    let root = root.to_path_buf();
    let mut logs = adopted.to_vec();
    logs.push(name.to_string());
    let archived = tokio::task::spawn_blocking(move || {
        if db.engine().left_edits_in_log() {
            tracing::info!("some regions closed without a flush (a full disk): every log is kept for the next start");
            return Ok(());
        }
        let unclaimed = db.engine().regions_with_pending_edits();
        if !unclaimed.is_empty() {
            tracing::info!(regions = ?unclaimed, "some regions never claimed their logged edits: every log is kept for the next start");
            return Ok(());
        }
        let fs = db.engine().context().fs.clone();
        let archive = root.join("oldWALs");
        fs.create_dir_all(&archive)?;
        for log in logs {
            let (from, to) = (root.join("wal").join(&log), archive.join(&log));
            if !fs.exists(&from)? {
                // The master archived it already (every region it held reopened).
                continue;
            }
            fs.rename(&from, &to)?;
            tracing::info!(from = %from.display(), to = %to.display(), "archived a log whose every edit is flushed");
        }
        Ok::<(), std::io::Error>(())
    })
    .await;
    match archived {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "archiving the logs failed: the next start reads them again")
        }
        Err(e) => {
            tracing::warn!(error = %e, "archiving the logs failed: the next start reads them again")
        }
    }
}

async fn serve(
    config: &RegionServerConfig,
    coord: &Arc<dyn Coordinator>,
    db: &Arc<Database>,
    (name, hbase_address): (&ServerName, Option<String>),
    addr: SocketAddr,
    on_ready: impl FnOnce(&ServerName, SocketAddr),
    shutdown: impl Future<Output = ()>,
) -> Result<(), RsError> {
    let keeper = LeaseKeeper::start(coord.clone(), config.lease_ttl)
        .await
        .map_err(|e| err(format!("cannot get a lease from {}: {e}", coord.describe())))?;
    // Every answer from now on is sent only before the lease's local deadline.
    db.set_lease_gate(keeper.gate());
    let mut props = BTreeMap::new();
    props.insert("address".to_string(), name.address());
    props.insert("web_port".to_string(), config.web_port.to_string());
    props.insert("version".to_string(), env!("CARGO_PKG_VERSION").to_string());
    if let Some(native) = hbase_address {
        props.insert(crate::native::HBASE_ADDRESS.to_string(), native);
    }
    let value = basalt_db::meta::codec::encode_properties(&props);
    let registered = coord
        .txn(Txn {
            compares: vec![],
            success: vec![Op::Put {
                key: layout::server(&name.to_string()),
                value,
                lease: keeper.id(),
            }],
            failure: vec![],
        })
        .await
        .map_err(|e| err(format!("cannot register in {}: {e}", coord.describe())))?;
    tracing::info!(server = %name, revision = registered.revision, "registered");
    on_ready(name, addr);
    let mut lost = keeper.subscribe();
    tokio::pin!(shutdown);
    tokio::select! {
        _ = &mut shutdown => {
            drain(coord, name).await;
            let _ = keeper.revoke().await;
            Ok(())
        }
        () = lease_gone(&mut lost, name) => {
            tracing::error!(server = %name, "the lease is gone or lapsed: stopping at once (its regions reopen elsewhere, read from its log)");
            db.stop_serving();
            Err(err(format!("{name}: the coordinator lease was lost")))
        }
        why = log_failed(db) => {
            tracing::error!(server = %name, reason = %why, "the write-ahead log failed: stopping at once (its regions reopen elsewhere, read from its log)");
            db.stop_serving();
            let _ = keeper.revoke().await;
            Err(err(format!("{name}: the write-ahead log failed: {why}")))
        }
    }
}

/// Returns why once the server's log has failed for good: sealed by a crash recovery
/// that declared this server dead, or a store that kept failing past the log's retry
/// budget. Such a server acknowledges no write any more, so it stops, as HBase's region
/// server aborts on a failed log, and its regions are recovered from its log elsewhere.
async fn log_failed(db: &Arc<Database>) -> String {
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(200));
    loop {
        tick.tick().await;
        if let Some(why) = db.engine().context().wal.poisoned() {
            return why;
        }
    }
}

/// Returns once the lease has lapsed or is gone: the server then stops.
///
/// A lapsed lease (its deadline passed without a successful keep-alive: the coordinator
/// unreachable, or this process paused) has already closed the lease gate: nothing is
/// answered. Resuming once a keep-alive succeeds would be safe for ownership (the lease
/// never expired, so no master took the regions), but a chaos run (seed 7) saw a stale
/// read on a server just after it resumed, not yet explained; until it is, a lapse stops
/// the server as before and its regions are recovered elsewhere from its log.
async fn lease_gone(lease: &mut tokio::sync::watch::Receiver<LeaseState>, name: &ServerName) {
    let lapsed = lease
        .wait_for(|state| !matches!(state, LeaseState::Live { .. }))
        .await
        .map(|state| matches!(*state, LeaseState::Lapsed { .. }));
    if let Ok(true) = lapsed {
        tracing::warn!(server = %name, "the lease's deadline passed without a keep-alive");
    }
}

/// The active master's address, from the election.
async fn active_master(coord: &Arc<dyn Coordinator>) -> Option<String> {
    let leader = basalt_coord::election::leader(coord.as_ref(), layout::MASTER_ELECTION)
        .await
        .ok()??;
    String::from_utf8(leader.value).ok()
}

pub async fn master_client(
    address: &str,
) -> Result<MasterServiceClient<basalt_client::connector::Authed>, RsError> {
    let channel = basalt_client::connector::channel(address, Duration::from_secs(5))
        .await
        .map_err(|e| err(format!("cannot reach the master at {address}: {e}")))?;
    Ok(MasterServiceClient::new(channel))
}

/// A number from the environment that tests use to play a server whose clock is off
/// (`BASALT_TEST_CLOCK_OFFSET_MS`) or that speaks another protocol (`BASALT_TEST_PROTOCOL`):
/// the master's refusals can only be tested that way on one machine.
fn test_knob(name: &str) -> Option<i64> {
    std::env::var(name).ok()?.parse().ok()
}

/// How long the early connection ([`reach_master_early`]) waits for a master to be elected.
const EARLY_WAIT: Duration = Duration::from_secs(2);

type Reached = (
    String,
    MasterServiceClient<basalt_client::connector::Authed>,
);

/// Finds the active master — waiting up to [`EARLY_WAIT`] for one to be elected — and
/// connects to it, while the database opens: the two do not depend on each other, and a
/// server starting beside its master (standalone) is connected by the time it introduces
/// itself.
fn reach_master_early(coord: Arc<dyn Coordinator>) -> tokio::task::JoinHandle<Option<Reached>> {
    tokio::spawn(async move {
        use basalt_coord::election;
        let deadline = tokio::time::Instant::now() + EARLY_WAIT;
        let prefix = election::election_prefix(layout::MASTER_ELECTION);
        let mut changes = None;
        loop {
            let (leader, revision) = election::leader_at(coord.as_ref(), layout::MASTER_ELECTION)
                .await
                .ok()?;
            if let Some(leader) = leader {
                let master = String::from_utf8(leader.value).ok()?;
                let client = master_client(&master).await.ok()?;
                return Some((master, client));
            }
            if changes.is_none() {
                changes = Some(coord.watch(&prefix, revision).await.ok()?);
            }
            let next = changes.as_mut()?.recv();
            tokio::time::timeout_at(deadline, next).await.ok()??.ok()?;
        }
    })
}

/// Tells the active master this server starts (it checks clock and version); waits for a
/// master for up to a minute. The first attempt takes the `early` connection if it made one.
async fn introduce(
    coord: &Arc<dyn Coordinator>,
    name: &ServerName,
    adopted: &[String],
    early: tokio::task::JoinHandle<Option<Reached>>,
) -> Result<String, RsError> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut pause = Duration::from_millis(5);
    let mut early = Some(early);
    loop {
        let reached = match early.take() {
            Some(handle) => handle.await.ok().flatten(),
            None => None,
        };
        let reached = match reached {
            Some(reached) => Some(Ok(reached)),
            None => match active_master(coord).await {
                Some(master) => Some(master_client(&master).await.map(|c| (master, c))),
                None => None,
            },
        };
        let attempt = match reached {
            Some(reached) => match reached {
                Ok((master, mut client)) => {
                    let request = pb::StartupRequest {
                        name: name.to_string(),
                        clock_ms: now_ms() + test_knob("BASALT_TEST_CLOCK_OFFSET_MS").unwrap_or(0),
                        version: env!("CARGO_PKG_VERSION").to_string(),
                        protocol: test_knob("BASALT_TEST_PROTOCOL")
                            .and_then(|p| u32::try_from(p).ok())
                            .unwrap_or(PROTOCOL),
                        adopted_logs: adopted.to_vec(),
                    };
                    match client.region_server_startup(request).await {
                        Ok(_) => return Ok(master),
                        Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                            return Err(err(format!(
                                "the master at {master} refused this region server: {}",
                                status.message()
                            )));
                        }
                        Err(status) => {
                            format!("the master at {master} answered: {}", status.message())
                        }
                    }
                }
                Err(e) => e.to_string(),
            },
            None => format!("no master is active in {}", coord.describe()),
        };
        if Instant::now() >= deadline {
            return Err(err(format!("gave up waiting for a master: {attempt}")));
        }
        match pause >= Duration::from_millis(100) {
            true => tracing::info!(reason = %attempt, "waiting for the active master"),
            false => tracing::debug!(reason = %attempt, "waiting for the active master"),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}

/// Asks the active master to move this server's regions elsewhere (graceful stop).
async fn drain(coord: &Arc<dyn Coordinator>, name: &ServerName) {
    let Some(master) = active_master(coord).await else {
        tracing::warn!("no active master to move the regions: closing them here");
        return;
    };
    let asked = async {
        let mut client = master_client(&master).await?;
        client
            .report_stopping(pb::ServerName {
                name: name.to_string(),
            })
            .await
            .map_err(|s| err(s.message().to_string()))
    };
    match tokio::time::timeout(Duration::from_secs(120), asked).await {
        Ok(Ok(_)) => tracing::info!(master = %master, "the master moved this server's regions"),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the master could not move the regions: closing them here")
        }
        Err(_) => tracing::warn!("moving the regions took over two minutes: closing them here"),
    }
}

/// Reads every other server's log folder under `<root>/wal/` into the database before any
/// region opens; the servers whose logs it read.
async fn adopt_logs(
    db: &Arc<Database>,
    root: &std::path::Path,
    name: &ServerName,
) -> Result<Vec<String>, RsError> {
    let db = db.clone();
    let wal_root = root.join("wal");
    let own = name.to_string();
    tokio::task::spawn_blocking(move || {
        let fs = db.engine().context().fs.clone();
        let listed = match fs.list(&wal_root) {
            Ok(listed) => listed,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(err(format!("cannot list {}: {e}", wal_root.display()))),
        };
        let mut adopted = Vec::new();
        for server in listed.into_iter().filter(|s| *s != own && s.contains(',')) {
            let dir = wal_root.join(&server);
            let edits = db
                .host_adopt_log(&dir)
                .map_err(|e| err(format!("cannot read the log of {server}: {e}")))?;
            tracing::info!(server = %server, edits, "read a previous incarnation's log");
            adopted.push(server);
        }
        Ok(adopted)
    })
    .await
    .map_err(|e| err(format!("reading old logs failed: {e}")))?
}
