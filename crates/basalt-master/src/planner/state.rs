//! The working copy every rule reads and changes: the accepting servers (sorted by name, so
//! that an index order is a name order and "first index" breaks ties by name), the regions
//! placed on them, how many regions of each table each server holds, and each server's
//! request load.
//!
//! A server's load starts as its own request count, or the sum of its regions' counts when
//! that is larger; a region's count moves with the region, the rest stays with the server.

use super::view::{ClusterView, RegionView};
use std::collections::{BTreeMap, BTreeSet};

/// An accepting server.
pub(super) struct Server<'v> {
    pub name: &'v str,
    /// Regions placed on it.
    pub count: usize,
    /// Requests of the last period.
    pub load: u128,
}

/// A region the rules may place or move.
pub(super) struct Region<'v> {
    pub view: &'v RegionView,
    /// Index into [`State::tables`].
    pub table: usize,
    /// Index into [`State::servers`]; `None` until placed.
    pub on: Option<usize>,
}

pub(super) struct State<'v> {
    pub servers: Vec<Server<'v>>,
    pub tables: Vec<&'v str>,
    pub regions: Vec<Region<'v>>,
    /// `table_counts[table][server]`: regions of the table on the server.
    pub table_counts: Vec<Vec<usize>>,
    /// The regions placed on each server, by index (so [`State::regions_on`] costs what
    /// the server holds, not every region of the cluster).
    on_server: Vec<BTreeSet<usize>>,
    /// Every live server's name, accepting or not.
    live: BTreeSet<&'v str>,
}

impl<'v> State<'v> {
    /// The accepting servers of `view` except `excluded`, with the regions already open on
    /// them; regions elsewhere are left out (see [`State::add`]).
    pub fn new(view: &'v ClusterView, excluded: Option<&str>) -> Self {
        let mut own_requests: BTreeMap<&str, u64> = BTreeMap::new();
        let mut live = BTreeSet::new();
        for server in &view.servers {
            if !live.insert(server.name.as_str()) {
                continue;
            }
            if server.accepting && Some(server.name.as_str()) != excluded {
                own_requests.insert(&server.name, server.requests);
            }
        }
        let servers: Vec<Server<'v>> = own_requests
            .keys()
            .map(|name| Server {
                name,
                count: 0,
                load: 0,
            })
            .collect();
        let tables: Vec<&str> = view
            .regions
            .iter()
            .map(|r| r.table.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let table_counts = vec![vec![0; servers.len()]; tables.len()];
        let on_server = vec![BTreeSet::new(); servers.len()];
        let mut state = State {
            servers,
            tables,
            regions: Vec::new(),
            table_counts,
            on_server,
            live,
        };
        let mut seen = BTreeSet::new();
        for region in &view.regions {
            if !seen.insert(region.encoded.as_str()) {
                continue;
            }
            if let Some(server) = region.server.as_deref().and_then(|s| state.server_index(s)) {
                let index = state.add(region);
                state.place(index, server);
            }
        }
        for server in &mut state.servers {
            let own = own_requests.get(server.name).copied().unwrap_or(0);
            server.load = server.load.max(u128::from(own));
        }
        state
    }

    /// Whether `name` is a live server (accepting or not).
    pub fn is_live(&self, name: &str) -> bool {
        self.live.contains(name)
    }

    /// The index of the accepting server `name`.
    pub fn server_index(&self, name: &str) -> Option<usize> {
        self.servers.binary_search_by(|s| s.name.cmp(name)).ok()
    }

    /// Adds `region`, not yet placed; returns its index.
    pub fn add(&mut self, region: &'v RegionView) -> usize {
        // Every table of the view is in `tables`, so the search finds it.
        let table = self
            .tables
            .binary_search(&region.table.as_str())
            .unwrap_or_default();
        self.regions.push(Region {
            view: region,
            table,
            on: None,
        });
        self.regions.len() - 1
    }

    /// Puts region `index` on server `to`, taking it off its current server if any.
    pub fn place(&mut self, index: usize, to: usize) {
        let region = &mut self.regions[index];
        let requests = u128::from(region.view.requests);
        let table = region.table;
        if let Some(from) = region.on.replace(to) {
            let server = &mut self.servers[from];
            server.count -= 1;
            server.load = server.load.saturating_sub(requests);
            self.table_counts[table][from] -= 1;
            self.on_server[from].remove(&index);
        }
        let server = &mut self.servers[to];
        server.count += 1;
        server.load += requests;
        self.table_counts[table][to] += 1;
        self.on_server[to].insert(index);
    }

    /// The indexes of the regions on server `server`, in index order.
    pub fn regions_on(&self, server: usize) -> impl Iterator<Item = usize> + '_ {
        self.on_server[server].iter().copied()
    }

    /// Regions placed on some server.
    pub fn placed(&self) -> usize {
        self.servers.iter().map(|s| s.count).sum()
    }
}
