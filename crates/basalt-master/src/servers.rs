//! The live region servers (the coordinator's `servers/` keys, each under its server's
//! lease) and a channel to each.
//!
//! The master lists them when it becomes active and then follows a watch; a server whose
//! key disappears without a graceful stop is dead.
//!
//! Two reasons keep regions off a live server: it is stopping ([`LiveServer::accepting`]
//! false, it drains), or it is decommissioned (`decommission_regionservers`, kept here
//! apart from the listing, so a re-list keeps it, and in the coordinator, so a new master
//! does: see [`crate::decommission`]). A decommissioned server that dies is still dead.

use basalt_api::Result;
use basalt_client::connector::Authed as Channel;
use basalt_coord::{layout, Coordinator, EventKind, WatchEvent};
use basalt_proto::pb::admin_service_client::AdminServiceClient;
use basalt_proto::pb::region_server_service_client::RegionServerServiceClient;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A registered region server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveServer {
    /// `host,port,startcode`
    pub name: String,
    /// `host:port`
    pub address: String,
    pub web_port: u16,
    /// `host:port` of its HBase native RPC, when it serves one (registered as
    /// `hbase_address`; a server of an older build has none).
    pub hbase_address: Option<String>,
    /// False once it reported it is stopping: nothing new goes there.
    pub accepting: bool,
}

impl LiveServer {
    pub fn from_registration(name: &str, value: &[u8]) -> Option<Self> {
        let props = basalt_db::meta::codec::decode_properties(value).ok()?;
        Some(Self {
            name: name.to_string(),
            address: props.get("address")?.clone(),
            web_port: props
                .get("web_port")
                .and_then(|p| p.parse().ok())
                .unwrap_or(0),
            hbase_address: props.get("hbase_address").cloned(),
            accepting: true,
        })
    }
}

#[derive(Debug, Default)]
pub struct Servers {
    live: Mutex<BTreeMap<String, LiveServer>>,
    dead: Mutex<Vec<String>>,
    /// Servers marked decommissioned: no region is placed on them.
    decommissioned: Mutex<BTreeSet<String>>,
    channels: Mutex<BTreeMap<String, Channel>>,
}

/// What a watch event did to the set of servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Joined(String),
    Left(String),
    None,
}

impl Servers {
    /// Replaces the live set with the coordinator's listing; returns its revision.
    pub async fn list(&self, coord: &dyn Coordinator) -> Result<i64> {
        let listing = coord
            .list(layout::SERVERS.as_bytes())
            .await
            .map_err(|e| crate::error::coordinator(&e))?;
        let mut live = BTreeMap::new();
        for kv in &listing.kvs {
            let Some(name) = layout::name_under(&kv.key, layout::SERVERS) else {
                continue;
            };
            match LiveServer::from_registration(name, &kv.value) {
                Some(server) => {
                    let accepting = self.live.lock().get(name).is_none_or(|s| s.accepting);
                    live.insert(
                        name.to_string(),
                        LiveServer {
                            accepting,
                            ..server
                        },
                    );
                }
                None => tracing::warn!(server = name, "a registration without an address: ignored"),
            }
        }
        *self.live.lock() = live;
        Ok(listing.revision)
    }

    /// Lists again after the watch broke or ended, and returns, as `Left` changes, the
    /// servers that were live and are no longer listed: their keys were deleted while
    /// nothing watched, and the watch resumes after the listing, so no event will tell.
    pub async fn relist(&self, coord: &dyn Coordinator) -> Result<(i64, Vec<Change>)> {
        let before = self.live.lock().clone();
        let revision = self.list(coord).await?;
        let mut gone = Vec::new();
        for (name, server) in before {
            if self.is_live(&name) {
                continue;
            }
            self.channels.lock().remove(&name);
            if server.accepting {
                self.dead.lock().push(name.clone());
            }
            gone.push(Change::Left(name));
        }
        Ok((revision, gone))
    }

    /// Applies one watch event.
    pub fn apply(&self, event: &WatchEvent) -> Change {
        let Some(name) = layout::name_under(&event.kv.key, layout::SERVERS) else {
            return Change::None;
        };
        match event.kind {
            EventKind::Put => match LiveServer::from_registration(name, &event.kv.value) {
                Some(mut server) => {
                    let mut live = self.live.lock();
                    // A registration written again keeps a stopping server stopping.
                    if let Some(known) = live.get(name) {
                        server.accepting = known.accepting;
                    }
                    let new = live.insert(name.to_string(), server).is_none();
                    drop(live);
                    if new {
                        Change::Joined(name.to_string())
                    } else {
                        Change::None
                    }
                }
                None => Change::None,
            },
            EventKind::Delete => {
                let gone = self.live.lock().remove(name);
                self.channels.lock().remove(name);
                match gone {
                    Some(server) => {
                        if server.accepting {
                            self.dead.lock().push(name.to_string());
                        }
                        Change::Left(name.to_string())
                    }
                    None => Change::None,
                }
            }
        }
    }

    pub fn live(&self) -> Vec<LiveServer> {
        self.live.lock().values().cloned().collect()
    }

    pub fn is_live(&self, name: &str) -> bool {
        self.live.lock().contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<LiveServer> {
        self.live.lock().get(name).cloned()
    }

    /// Servers that died (their lease expired without a graceful stop).
    pub fn dead(&self) -> Vec<String> {
        self.dead.lock().clone()
    }

    /// Forgets dead servers (`clear_deadservers`); answers those that were listed.
    pub fn clear_dead(&self, names: &[String]) -> Vec<String> {
        let mut dead = self.dead.lock();
        let cleared: Vec<String> = names.iter().filter(|n| dead.contains(n)).cloned().collect();
        dead.retain(|n| !names.contains(n));
        cleared
    }

    /// Whether `name` takes new regions: live, not stopping, not decommissioned.
    pub fn takes_regions(&self, server: &LiveServer) -> bool {
        server.accepting && !self.is_decommissioned(&server.name)
    }

    pub fn is_decommissioned(&self, name: &str) -> bool {
        self.decommissioned.lock().contains(name)
    }

    /// The decommissioned servers, sorted.
    pub fn decommissioned(&self) -> Vec<String> {
        self.decommissioned.lock().iter().cloned().collect()
    }

    /// Replaces the decommissioned set (a master becoming active reads the marks).
    pub fn set_decommissioned(&self, names: impl IntoIterator<Item = String>) {
        *self.decommissioned.lock() = names.into_iter().collect();
    }

    pub fn mark_decommissioned(&self, name: &str) {
        self.decommissioned.lock().insert(name.to_string());
    }

    /// Removes the mark; whether there was one.
    pub fn unmark_decommissioned(&self, name: &str) -> bool {
        self.decommissioned.lock().remove(name)
    }

    /// Stops sending regions to `name` (it is stopping).
    pub fn stop_accepting(&self, name: &str) {
        if let Some(server) = self.live.lock().get_mut(name) {
            server.accepting = false;
        }
    }

    /// The server named `name` or `host,port` (a `move` target may omit the start code).
    pub fn resolve(&self, name: &str) -> Option<LiveServer> {
        let live = self.live.lock();
        if let Some(server) = live.get(name) {
            return Some(server.clone());
        }
        let prefix = format!("{},", name.trim_end_matches(','));
        live.values()
            .find(|s| s.name.starts_with(&prefix) || s.address == name)
            .cloned()
    }

    async fn channel(&self, name: &str) -> Result<Channel> {
        if let Some(channel) = self.channels.lock().get(name) {
            return Ok(channel.clone());
        }
        let server = self
            .get(name)
            .ok_or_else(|| crate::error::io(format!("region server {name} is not live")))?;
        let channel = basalt_client::connector::channel(&server.address, Duration::from_secs(5))
            .await
            .map_err(crate::error::io)?;
        self.channels
            .lock()
            .insert(name.to_string(), channel.clone());
        Ok(channel)
    }

    pub async fn region_client(&self, name: &str) -> Result<RegionServerServiceClient<Channel>> {
        Ok(RegionServerServiceClient::new(self.channel(name).await?)
            .max_decoding_message_size(64 << 20))
    }

    pub async fn admin_client(&self, name: &str) -> Result<AdminServiceClient<Channel>> {
        Ok(AdminServiceClient::new(self.channel(name).await?))
    }

    /// The change a watch event makes, as a value (for logs).
    pub fn describe(change: &Change) -> Option<String> {
        match change {
            Change::Joined(name) => Some(format!("region server {name} joined")),
            Change::Left(name) => Some(format!("region server {name} left")),
            Change::None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_coord::local::LocalCoordinator;
    use basalt_coord::{Op, Txn};

    async fn register(coord: &LocalCoordinator, name: &str) {
        let mut props = std::collections::BTreeMap::new();
        props.insert("address".to_string(), "127.0.0.1:1".to_string());
        let value = basalt_db::meta::codec::encode_properties(&props);
        let txn = Txn {
            compares: vec![],
            success: vec![Op::put(layout::server(name), value)],
            failure: vec![],
        };
        coord.txn(txn).await.expect("register");
    }

    #[tokio::test]
    async fn a_server_gone_while_nothing_watched_leaves_at_the_next_listing() {
        let coord = LocalCoordinator::new();
        register(&coord, "a,1,1").await;
        register(&coord, "b,1,1").await;
        let servers = Servers::default();
        servers.list(&coord).await.expect("list");
        assert!(servers.is_live("a,1,1") && servers.is_live("b,1,1"));
        // b's key goes (its lease expired) while the watch was broken.
        let txn = Txn {
            compares: vec![],
            success: vec![Op::Delete {
                key: layout::server("b,1,1"),
            }],
            failure: vec![],
        };
        coord.txn(txn).await.expect("delete");
        let (_, gone) = servers.relist(&coord).await.expect("relist");
        assert_eq!(gone, vec![Change::Left("b,1,1".to_string())]);
        assert_eq!(servers.dead(), vec!["b,1,1".to_string()]);
        assert!(servers.is_live("a,1,1") && !servers.is_live("b,1,1"));
        let (_, again) = servers.relist(&coord).await.expect("relist");
        assert!(again.is_empty(), "told once");
    }
}
