//! Placing regions: [`assign`] for regions that need a server, [`drain`] for the regions
//! of a server that is stopping. Both spread the same way (see the module table in
//! [`super`]): fewest regions of the table, then fewest regions, then least load, then the
//! first name. Regions are placed in table order, then by encoded name, so the output is
//! stable and reads grouped by table.
//!
//! The kind of each decision follows where the region is now: open on a live server (one
//! that stopped accepting) gives a [`Decision::Move`], which closes it there first; on no
//! server, or on a server that is not live, an [`Decision::Assign`].

use super::state::State;
use super::view::{ClusterView, Decision, RegionView};
use std::collections::BTreeSet;

/// Places every region that is on no server, on a server that is not live, or on a live
/// server that no longer accepts regions (draining or stopping). Returns nothing when no
/// server accepts: the caller logs that regions wait for a server.
///
/// Moving regions off a server that stopped accepting here, and not only in [`drain`],
/// keeps the master level-triggered: a master that takes over half-way through a drain
/// finishes it on its first pass.
pub fn assign(view: &ClusterView) -> Vec<Decision> {
    let state = State::new(view, None);
    let mut seen = BTreeSet::new();
    let waiting: Vec<&RegionView> = view
        .regions
        .iter()
        .filter(|r| {
            seen.insert(r.encoded.as_str())
                && r.server
                    .as_deref()
                    .is_none_or(|s| state.server_index(s).is_none())
        })
        .collect();
    place(state, waiting)
}

/// Moves every region open on `server` to the other accepting servers, spread as
/// [`assign`] spreads (the server counts as not accepting, whatever the view says).
/// Returns nothing when no other server accepts: the caller logs that the server cannot be
/// drained and stops it only when told to.
pub fn drain(view: &ClusterView, server: &str) -> Vec<Decision> {
    let state = State::new(view, Some(server));
    let mut seen = BTreeSet::new();
    let leaving = view
        .regions
        .iter()
        .filter(|r| seen.insert(r.encoded.as_str()) && r.server.as_deref() == Some(server));
    place(state, leaving.collect())
}

/// Places `regions` one by one on the server that spreads them best.
fn place<'v>(mut state: State<'v>, mut regions: Vec<&'v RegionView>) -> Vec<Decision> {
    if state.servers.is_empty() {
        return Vec::new();
    }
    regions.sort_by(|a, b| (&a.table, &a.encoded).cmp(&(&b.table, &b.encoded)));
    let mut decisions = Vec::with_capacity(regions.len());
    let mut best = Best::new(&state);
    for region in regions {
        let index = state.add(region);
        let table = state.regions[index].table;
        let Some(to) = best.server_for(&state, table) else {
            break;
        };
        best.placing(&state, table, to);
        state.place(index, to);
        best.placed(&state, to);
        let to = state.servers[to].name.to_string();
        let region_name = region.encoded.clone();
        decisions.push(match region.server.as_deref() {
            Some(from) if state.is_live(from) => Decision::Move {
                region: region_name,
                from: from.to_string(),
                to,
            },
            _ => Decision::Assign {
                region: region_name,
                server: to,
            },
        });
    }
    decisions
}

/// The server each region goes to, found without looking at every server: the accepting
/// servers ordered by (regions, load, index), and for each table the fewest of its regions
/// any server holds. The best server for a region of table `t` — the least of (regions of
/// `t`, regions, load, index) — is the first in that order holding that fewest: the same
/// choice as comparing every server, at the cost of a walk that stops at the first server
/// not yet holding more of `t` than the emptiest (one or two steps as a table spreads).
struct Best {
    /// (regions, load, index) of every accepting server.
    order: BTreeSet<(usize, u128, usize)>,
    /// Per table: the fewest of its regions a server holds, and how many servers hold
    /// that few.
    fewest: Vec<(usize, usize)>,
}

impl Best {
    fn new(state: &State) -> Self {
        let order = state
            .servers
            .iter()
            .enumerate()
            .map(|(i, s)| (s.count, s.load, i))
            .collect();
        let fewest = state.table_counts.iter().map(|c| lowest(c)).collect();
        Self { order, fewest }
    }

    fn server_for(&self, state: &State, table: usize) -> Option<usize> {
        let (fewest, _) = self.fewest[table];
        self.order
            .iter()
            .map(|&(_, _, s)| s)
            .find(|&s| state.table_counts[table][s] == fewest)
    }

    /// Before a region of `table` goes to server `to`.
    fn placing(&mut self, state: &State, table: usize, to: usize) {
        let server = &state.servers[to];
        self.order.remove(&(server.count, server.load, to));
        let (fewest, at) = &mut self.fewest[table];
        if state.table_counts[table][to] == *fewest {
            *at -= 1;
            if *at == 0 {
                // Every server now holds more: the new fewest is one more, held by all
                // but those holding more still (counted once, over the servers).
                let mut counts = state.table_counts[table].clone();
                counts[to] += 1;
                self.fewest[table] = lowest(&counts);
            }
        }
    }

    /// After a region went to server `to`.
    fn placed(&mut self, state: &State, to: usize) {
        let server = &state.servers[to];
        self.order.insert((server.count, server.load, to));
    }
}

/// The least of `counts` and how many times it occurs.
fn lowest(counts: &[usize]) -> (usize, usize) {
    let least = counts.iter().copied().min().unwrap_or(0);
    (least, counts.iter().filter(|&&c| c == least).count())
}
