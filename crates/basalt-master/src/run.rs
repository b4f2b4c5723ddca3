//! A master's life: serve at once (a standby answers where the active master is), campaign
//! in the election, and when elected load the catalog, (with authentication required and
//! no superuser yet) print the one-time bootstrap token, reconcile the catalog with the
//! live servers, follow them, and balance periodically; on shutdown resign, so a standby
//! takes over at once. Beside `MasterService` it serves `UserService`.

use crate::catalog::{AssignState, Catalog};
use crate::config::MasterConfig;
use crate::connection::MasterConnection;
use crate::master::Master;
use crate::servers::{Change, Servers};
use crate::service::MasterSvc;
use basalt_coord::keeper::{LeaseKeeper, LeaseState};
use basalt_coord::{election, layout, Compare, Coordinator, Op, Txn};
use basalt_proto::pb::master_service_server::MasterServiceServer;
use basalt_proto::pb::user_service_server::UserServiceServer;
use basalt_server::users::UserSvc;
use basalt_storage::fs::FileSystem;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug)]
pub struct MasterError(pub String);

impl std::fmt::Display for MasterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MasterError {}

fn err(message: impl Into<String>) -> MasterError {
    MasterError(message.into())
}

/// Serves until `shutdown` completes; `on_ready` gets the RPC address once serving
/// (active or standing by).
pub async fn run(
    config: MasterConfig,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn FileSystem>,
    on_ready: impl FnOnce(SocketAddr),
    shutdown: impl Future<Output = ()>,
) -> Result<(), MasterError> {
    run_with(config, coord, fs, |addr, _| on_ready(addr), shutdown).await
}

/// As [`run`], `on_ready` also getting the master itself (a process that runs a region
/// server beside it waits on it to list that server).
pub async fn run_with(
    config: MasterConfig,
    coord: Arc<dyn Coordinator>,
    fs: Arc<dyn FileSystem>,
    on_ready: impl FnOnce(SocketAddr, &Arc<Master>),
    shutdown: impl Future<Output = ()>,
) -> Result<(), MasterError> {
    let root = config.store_root.clone();
    let fs_probe = fs.clone();
    tokio::task::spawn_blocking(move || {
        fs_probe.create_dir_all(&root)?;
        basalt_storage::engine::folder_version::check_or_create(fs_probe.as_ref(), &root)
            .map_err(|e| std::io::Error::other(e.to_string()))
    })
    .await
    .map_err(|e| err(e.to_string()))?
    .map_err(|e| {
        err(format!(
            "the store at {} is not usable: {e}",
            config.store_root.display()
        ))
    })?;
    let host = config
        .advertise_host
        .clone()
        .unwrap_or_else(|| config.server.bind.clone());
    // The listener first (and kept): the address, its port chosen when 0, names this
    // candidate.
    let listener = basalt_server::bind(&config.server).map_err(|e| err(e.to_string()))?;
    let port = listener.local_addr().port();
    let server_config = config.server.clone();
    let address = format!("{host}:{port}");
    let master = Master::new(
        config.clone(),
        coord.clone(),
        fs,
        address.clone(),
        tokio::runtime::Handle::current(),
    );
    let conn = Arc::new(MasterConnection::new(master.clone()));
    let service = MasterServiceServer::new(MasterSvc::new(master.clone()));
    let on_master = master.clone();
    let users = UserServiceServer::new(UserSvc::new(
        config.server.auth.0.clone(),
        Arc::new(move || on_master.require_active()),
    ));
    let handle = basalt_server::start_on(listener, conn, server_config, |routes| {
        routes.add_service(service).add_service(users)
    })
    .await
    .map_err(|e| {
        err(format!(
            "cannot serve on {}:{port}: {e}",
            config.server.bind
        ))
    })?;
    let native = match &config.hbase {
        Some(hbase) => {
            let (hbase, master, host) = (hbase.clone(), master.clone(), host.clone());
            let started =
                tokio::task::spawn_blocking(move || crate::native::start(&hbase, &master, &host))
                    .await
                    .map_err(|e| err(e.to_string()))?;
            match started {
                Ok(native) => Some(native),
                Err(e) => {
                    let _ = handle.shutdown().await;
                    return Err(err(e));
                }
            }
        }
        None => None,
    };
    if let Some(native) = &native {
        let zk = native.zookeeper.as_ref().map(|z| z.local_addr());
        tracing::info!(hbase = %native.rpc.local_addr(), zookeeper = ?zk, "HBase native RPC (master, hbase:meta)");
    }
    on_ready(handle.local_addr(), &master);
    let keeper = LeaseKeeper::start(coord.clone(), config.lease_ttl)
        .await
        .map_err(|e| err(format!("cannot get a lease from {}: {e}", coord.describe())))?;
    tokio::pin!(shutdown);
    let result = tokio::select! {
        biased;
        _ = &mut shutdown => Ok(()),
        led = lead_while_leased(&master, &keeper) => led,
    };
    master.stand_down("shutting down");
    if let Some(native) = native {
        let _ = tokio::task::spawn_blocking(move || native.shutdown()).await;
    }
    let _ = keeper.revoke().await;
    let _ = handle.shutdown().await;
    tracing::info!(master = %address, "stopped");
    result
}

/// The master's life once it serves: campaigns under `keeper`'s lease and leads for as
/// long as the lease lives (what [`run_with`] does after its listener is up). A simulation
/// calls it with a master built [`Master::with_surroundings`], without any listener.
pub async fn campaign_and_lead(
    master: &Arc<Master>,
    keeper: &LeaseKeeper,
) -> Result<(), MasterError> {
    lead_while_leased(master, keeper).await
}

/// Leads for as long as the lease lives. A lapsed lease (its deadline passed without a
/// keep-alive: etcd unreachable, this process stalled) stands the master down at once; if a
/// keep-alive then succeeds, the lease never expired, so the election key it carries was
/// never deleted and no other master can have won meanwhile: it campaigns again (the same
/// key), reloads the catalog and leads on. A lease that is gone ends the master.
/// How often leading may fail while the lease holds (in the life of a master process)
/// before the master gives up and exits.
const LEAD_RETRIES: u32 = 30;

async fn lead_while_leased(master: &Arc<Master>, keeper: &LeaseKeeper) -> Result<(), MasterError> {
    let mut retried = 0;
    loop {
        let led = lead(master, keeper).await;
        let mut state = keeper.subscribe();
        if !matches!(*state.borrow(), LeaseState::Lapsed { .. }) {
            // A call that failed while the lease still holds (etcd answering slowly just
            // after a lost quorum, say) is tried again rather than costing a master.
            match &led {
                Err(e) if keeper.is_live() && retried < LEAD_RETRIES => {
                    retried += 1;
                    tracing::warn!(master = %master.address, error = %e, attempt = retried,
                        "leading failed while the lease holds: trying again");
                    master.stand_down("leading failed");
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    continue;
                }
                _ => return led,
            }
        }
        tracing::warn!(master = %master.address, "the lease lapsed: standing by until it is renewed");
        let renewed = state
            .wait_for(|s| !matches!(s, LeaseState::Lapsed { .. }))
            .await
            .map(|s| matches!(*s, LeaseState::Live { .. }));
        if !matches!(renewed, Ok(true)) {
            return led;
        }
        tracing::info!(master = %master.address, "the lease was renewed before it expired: campaigning again");
    }
}

/// Campaigns, then acts as the active master until the lease lapses or is lost.
async fn lead(master: &Arc<Master>, keeper: &LeaseKeeper) -> Result<(), MasterError> {
    let coord = master.coord.clone();
    tracing::info!(master = %master.address, "standing by: campaigning to be the active master");
    let leadership = election::campaign(
        coord.as_ref(),
        layout::MASTER_ELECTION,
        master.address.as_bytes(),
        keeper.id(),
    )
    .await
    .map_err(|e| err(format!("the election failed: {e}")))?;
    let guard = leadership.guard();
    master.set_lease_gate(keeper.gate());
    let cluster_id = ensure_cluster_id(coord.as_ref(), &guard).await?;
    *master.cluster_id.lock() = cluster_id.clone();
    let catalog = Catalog::load(coord.as_ref())
        .await
        .map_err(|e| err(format!("cannot load the catalog: {e}")))?;
    // The state answered from memory is read before the master answers as active: a
    // client reaching it just after the takeover sees the marks, grants and switch the
    // previous master left, not empty defaults.
    master
        .load_balancer_switch()
        .await
        .map_err(|e| err(format!("cannot read the balancer switch: {e}")))?;
    let revision = master
        .servers
        .list(coord.as_ref())
        .await
        .map_err(|e| err(e.to_string()))?;
    let left_marks = master
        .load_decommissioned()
        .await
        .map_err(|e| err(format!("cannot read the decommissioned servers: {e}")))?;
    master
        .load_grants()
        .await
        .map_err(|e| err(format!("cannot read the grants: {e}")))?;
    // Table DDL waits until the procedures the previous master left are resumed.
    master.begin_resuming();
    master.activate(guard, catalog);
    let set_aside = master.set_aside_unknown_folders();
    if set_aside > 0 {
        tracing::warn!(
            folders = set_aside,
            "region folders the catalog does not name were set aside in the quarantine"
        );
    }
    tracing::info!(master = %master.address, cluster = %cluster_id, "active master");
    master
        .ensure_namespaces()
        .await
        .map_err(|e| err(format!("cannot create the namespaces: {e}")))?;
    master
        .forget_marks_of_servers_that_left(left_marks)
        .await
        .map_err(|e| err(format!("cannot remove stale decommission marks: {e}")))?;
    if let Some(auth) = &master.config.server.auth.0 {
        basalt_server::users::announce_bootstrap(auth, &master.address).await;
    }
    reconcile(master).await;
    master.resume_procedures().await;
    master.end_resuming();
    let mut lost = keeper.subscribe();
    // Biased: in this order, not a random one, when several are ready at once (a lost lease
    // first), so that a seeded simulation replays the master exactly.
    tokio::select! {
        biased;
        _ = lost.wait_for(|state| !matches!(state, LeaseState::Live { .. })) => {
            master.stand_down("the lease is lost");
            Err(err("the master's lease was lost"))
        }
        _ = follow_servers(master, revision) => Err(err("stopped following region servers")),
        _ = balance_periodically(master) => Err(err("the balancer stopped")),
        _ = check_splits_periodically(master) => Err(err("the split checker stopped")),
        _ = watch_transitions(master) => Err(err("the transition watch stopped")),
        _ = redrive_unreachable_opens(master) => Err(err("the open re-driver stopped")),
        _ = probe_servers(master) => Err(err("the region server probe stopped")),
    }
}

/// The cluster's id, written once by the first master.
async fn ensure_cluster_id(
    coord: &dyn Coordinator,
    guard: &Compare,
) -> Result<String, MasterError> {
    let fresh = format!("{:032x}", rand_u128());
    let txn = Txn {
        compares: vec![guard.clone(), Compare::absent(layout::CLUSTER_ID)],
        success: vec![Op::put(layout::CLUSTER_ID, fresh.clone())],
        failure: vec![],
    };
    coord.txn(txn).await.map_err(|e| err(e.to_string()))?;
    let stored = coord
        .get(layout::CLUSTER_ID.as_bytes())
        .await
        .map_err(|e| err(e.to_string()))?
        .ok_or_else(|| err("the cluster id vanished"))?;
    Ok(String::from_utf8_lossy(&stored.value).into_owned())
}

fn rand_u128() -> u128 {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        return now;
    }
    u128::from_le_bytes(bytes)
}

/// After taking over: regions on servers that are gone are CRASHED; regions left OPENING
/// or CLOSING by the previous master are driven again; unplaced ones are assigned.
async fn reconcile(master: &Arc<Master>) {
    let stale: Vec<(String, AssignState, Option<String>)> = master
        .catalog
        .read()
        .assign
        .iter()
        .map(|(name, a)| (name.clone(), a.state, a.server.clone()))
        .collect();
    let mut dead = std::collections::BTreeSet::new();
    let mut redo = Vec::new();
    let mut retry = Vec::new();
    for (region, state, server) in stale {
        match (state, server) {
            // It failed to open on a server that is gone (in one process: the previous
            // start): a restart opens it again, as HBase's standalone does.
            (AssignState::FailedOpen, Some(server)) if !master.servers.is_live(&server) => {
                retry.push(region);
            }
            (AssignState::Open | AssignState::Opening | AssignState::Closing, Some(server))
                if !master.servers.is_live(&server) =>
            {
                dead.insert(server);
            }
            (AssignState::Opening, Some(server)) => redo.push((region, server)),
            (AssignState::Closing, Some(_)) => {
                let _ = master.close(vec![region]).await;
            }
            // Crashed under the previous master, waiting for a live server: in transition
            // (from now: the crash's moment was the previous master's to know).
            (AssignState::Crashed, server) if master.table_enabled_of(&region) => {
                let from = server.unwrap_or_default();
                master.begin_transition(&region, "CRASHED", &from);
            }
            _ => {}
        }
    }
    if !retry.is_empty() {
        tracing::info!(regions = ?retry, "regions that failed to open on servers now gone are tried again");
        if let Err(e) = master.release(retry).await {
            tracing::error!(error = %e, "could not release regions that failed to open");
        }
    }
    for server in dead {
        if let Err(e) = master.server_died(&server).await {
            tracing::error!(server = %server, error = %e, "could not record a dead server's regions");
        }
    }
    if !redo.is_empty() {
        if let Err(e) = master.open_on(redo).await {
            tracing::warn!(error = %e, "re-driving openings left by the previous master failed");
        }
    }
    if !master.servers.live().is_empty() {
        if let Err(e) = master.assign_unplaced().await {
            tracing::warn!(error = %e, "assigning regions failed");
        }
    }
}

/// Follows `servers/`: a server joining gets regions at the next balancer run (and any
/// unplaced region at once); one leaving without a graceful stop died.
async fn follow_servers(master: &Arc<Master>, mut revision: i64) {
    loop {
        let mut events = match master
            .coord
            .watch(layout::SERVERS.as_bytes(), revision)
            .await
        {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch region servers: listing again");
                tokio::time::sleep(Duration::from_secs(1)).await;
                revision = relist(master, revision).await;
                continue;
            }
        };
        while let Some(event) = events.recv().await {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    tracing::warn!(error = %e, "the region server watch broke: listing again");
                    break;
                }
            };
            revision = revision.max(event.kv.mod_revision);
            let change = master.servers.apply(&event);
            on_change(master, change);
        }
        tracing::warn!("the region server watch ended: listing again");
        revision = relist(master, revision).await;
    }
}

/// Lists the region servers again (the watch broke or ended); a server that vanished
/// meanwhile left like one whose key was deleted. The revision to watch from.
async fn relist(master: &Arc<Master>, revision: i64) -> i64 {
    match master.servers.relist(master.coord.as_ref()).await {
        Ok((listed, gone)) => {
            for change in gone {
                on_change(master, change);
            }
            listed
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot list the region servers");
            revision
        }
    }
}

/// What a region server joining or leaving sets off.
fn on_change(master: &Arc<Master>, change: Change) {
    master.note_change();
    if let Some(what) = Servers::describe(&change) {
        tracing::info!("{what}");
    }
    match change {
        Change::Joined(name) => {
            let master = master.clone();
            tokio::spawn(async move {
                if let Some(joined) = master.servers.get(&name) {
                    let live = master.servers.live();
                    for earlier in crate::liveness::earlier_incarnations(&live, &joined) {
                        let why = format!("{name} registered at the same address");
                        crate::liveness::declare_gone(&master, &earlier, &why).await;
                    }
                }
                let _p = master.procedures.lock().await;
                if let Err(e) = master.assign_unplaced().await {
                    tracing::warn!(error = %e, "assigning regions failed");
                }
            });
        }
        Change::Left(name) => {
            if master.servers.is_decommissioned(&name) {
                let master = master.clone();
                let name = name.clone();
                tokio::spawn(async move { master.forget_decommissioned(&name).await });
            }
            if master.servers.dead().contains(&name) {
                let master = master.clone();
                tokio::spawn(async move {
                    if let Err(e) = master.server_died(&name).await {
                        tracing::error!(server = %name, error = %e, "could not record a dead server's regions");
                    }
                });
            } else {
                let master = master.clone();
                tokio::spawn(async move {
                    // A server that stopped gracefully moved its regions off first; any
                    // left were not closed cleanly, so they are recovered from its log.
                    let left = master.catalog.read().regions_on(&name);
                    if !left.is_empty() {
                        tracing::warn!(server = %name, regions = left.len(), "a stopping server left before moving all its regions: they are recovered from its log");
                        if let Err(e) = master.server_died(&name).await {
                            tracing::error!(server = %name, error = %e, "could not record a stopped server's regions");
                        }
                    }
                });
            }
        }
        Change::None => {}
    }
}

/// Probes the region servers' ports (see [`crate::liveness`]), unless turned off.
async fn probe_servers(master: &Arc<Master>) {
    match master.config.probe_interval {
        Some(every) => crate::liveness::probe_periodically(master, every).await,
        None => std::future::pending().await,
    }
}

async fn balance_periodically(master: &Arc<Master>) {
    let mut tick = tokio::time::interval(master.config.balancer_period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        match master.balance(false).await {
            Ok(true) => tracing::debug!("balancer ran"),
            Ok(false) => tracing::debug!("balancer skipped (off, or regions in transition)"),
            Err(e) => tracing::warn!(error = %e, "the balancer failed"),
        }
    }
}

async fn check_splits_periodically(master: &Arc<Master>) {
    let mut tick = tokio::time::interval(master.config.split_check_period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        master.check_splits().await;
    }
}

/// Sends again, every second, the opens whose server could not be reached.
async fn redrive_unreachable_opens(master: &Arc<Master>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        master.redrive_unreachable_opens().await;
    }
}

/// Warns about regions stuck in transition and ends finished crash recoveries, every half
/// threshold (between 100 ms and 5 s).
async fn watch_transitions(master: &Arc<Master>) {
    let every = (master.config.rit_stuck_warning_threshold / 2)
        .clamp(Duration::from_millis(100), Duration::from_secs(5));
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut warnings = crate::rit::Warnings::default();
    loop {
        tick.tick().await;
        master.warn_stuck(&mut warnings);
        master.finish_recoveries();
    }
}
