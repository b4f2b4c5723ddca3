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
    for region in regions {
        let index = state.add(region);
        let table = state.regions[index].table;
        let Some(to) = (0..state.servers.len()).min_by_key(|&s| {
            let server = &state.servers[s];
            (state.table_counts[table][s], server.count, server.load, s)
        }) else {
            break;
        };
        state.place(index, to);
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
