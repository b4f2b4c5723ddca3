//! Rule one: region counts. It acts when a server holds more regions than the mean times
//! `1 + slop` (rounded up) or fewer than the mean times `1 - slop` (rounded down), and then
//! keeps going until every server holds the mean rounded down or up, as HBase's
//! `SimpleLoadBalancer` does: a cluster a little off is left alone, one far off is evened
//! out fully so that it is not touched again at the next run.
//!
//! A step moves one region from the server with most regions (the busiest first when
//! several tie) to the one with fewest (the idlest first). Of the source's regions it
//! takes the one whose table is most over-represented there compared with the target,
//! then the one with fewest requests (the least felt by clients), then the first name.

use super::{count_bounds, Step};
use crate::planner::state::State;
use std::cmp::Reverse;

/// Whether some server's count is outside the slop bounds.
pub(super) fn triggered(state: &State, slop: f64) -> bool {
    let (low, high) = count_bounds(state.placed(), state.servers.len(), slop);
    state
        .servers
        .iter()
        .any(|s| s.count < low || s.count > high)
}

/// One move from the fullest server to the emptiest, while they differ by 2 or more.
pub(super) fn step(state: &State) -> Option<Step> {
    let servers = 0..state.servers.len();
    let from = servers.clone().max_by_key(|&s| {
        let server = &state.servers[s];
        (server.count, server.load, Reverse(s))
    })?;
    let to = servers.min_by_key(|&s| {
        let server = &state.servers[s];
        (server.count, server.load, s)
    })?;
    if state.servers[from].count < state.servers[to].count + 2 {
        return None;
    }
    let region = state.regions_on(from).min_by_key(|&r| {
        let region = &state.regions[r];
        let counts = &state.table_counts[region.table];
        let skew = counts[from] as i64 - counts[to] as i64;
        (
            Reverse(skew),
            region.view.requests,
            region.view.encoded.as_str(),
        )
    })?;
    Some(vec![(region, to)])
}
