//! Rule two: each table's spread. A table whose regions number 2 more on one server than
//! on another is skewed (a new server, or a drain, leaves that behind); moving one of them
//! across lowers the sum of squared per-table counts, which is what this rule lowers.
//!
//! For each table it looks at the server holding most of its regions and the one holding
//! fewest (the fuller, then the emptier server overall, then the first name, when several
//! tie). When the first holds more regions overall than the second, one region goes
//! across; otherwise counts would grow apart, so a region of another table comes back in
//! exchange: the table most over-represented on the second server compared with the
//! first, when the exchange still lowers the per-table sum. Of all tables it takes the
//! step that lowers the sum most (a single move before a swap, then the first table).
//! Regions are chosen quietest first, then by name.
//!
//! | table `x` on a / b | table `y` on a / b | counts a / b | step                      |
//! |--------------------|--------------------|--------------|---------------------------|
//! | 4 / 0              | 0 / 4              | 4 / 4        | swap an `x` and a `y`     |
//! | 3 / 1              | 0 / 3              | 3 / 4        | swap: `x` 2 apart, `y` 3  |
//! | 3 / 1              | 0 / 2              | 3 / 3        | swap                      |
//! | 2 / 1              | 1 / 2              | 3 / 3        | none: no table 2 apart    |

use super::Step;
use crate::planner::state::State;
use std::cmp::Reverse;

/// The single move or swap that lowers the per-table spread most, if any.
pub(super) fn step(state: &State) -> Option<Step> {
    // (gain, moves, table, from, to, partner table)
    let mut best: Option<(usize, usize, usize, usize, usize, Option<usize>)> = None;
    for (table, counts) in state.table_counts.iter().enumerate() {
        let servers = 0..state.servers.len();
        let from = servers
            .clone()
            .max_by_key(|&s| (counts[s], state.servers[s].count, Reverse(s)))?;
        let to = servers.min_by_key(|&s| (counts[s], state.servers[s].count, s))?;
        let skew = counts[from] - counts[to];
        if skew < 2 {
            continue;
        }
        let candidate = if state.servers[from].count > state.servers[to].count {
            (skew - 1, 1, table, from, to, None)
        } else {
            let Some((partner, back)) = partner(state, table, from, to) else {
                continue;
            };
            if skew + back < 3 {
                continue;
            }
            (skew + back - 2, 2, table, from, to, Some(partner))
        };
        let better = best.is_none_or(|b| (candidate.0, Reverse(candidate.1)) > (b.0, Reverse(b.1)));
        if better {
            best = Some(candidate);
        }
    }
    let (_, _, table, from, to, partner) = best?;
    let mut step = vec![(quietest(state, table, from)?, to)];
    if let Some(partner) = partner {
        step.push((quietest(state, partner, to)?, from));
    }
    Some(step)
}

/// The table other than `table` most over-represented on `to` compared with `from`, and
/// by how much (at least 1).
fn partner(state: &State, table: usize, from: usize, to: usize) -> Option<(usize, usize)> {
    state
        .table_counts
        .iter()
        .enumerate()
        .filter(|(t, counts)| *t != table && counts[to] > counts[from])
        .map(|(t, counts)| (t, counts[to] - counts[from]))
        .max_by_key(|&(t, back)| (back, Reverse(t)))
}

/// The region of `table` on `server` with fewest requests, then the first name.
fn quietest(state: &State, table: usize, server: usize) -> Option<usize> {
    state
        .regions_on(server)
        .filter(|&r| state.regions[r].table == table)
        .min_by_key(|&r| {
            let region = state.regions[r].view;
            (region.requests, region.encoded.as_str())
        })
}
