//! Rule three: request load. It acts when the busiest server's load is above the mean
//! times `1 + slop`, or the idlest's below the mean times `1 - slop`, and moves load from
//! the busiest to the idlest (the first name when several tie) without spreading region
//! counts or tables further apart:
//! - one region across, when the busiest holds more regions than the idlest and the
//!   region's table is not less present there;
//! - or a busy region swapped with a quieter one of the idlest, counts unchanged.
//!
//! Of those it takes the one that leaves the two servers' loads closest (the gap shrinks
//! by twice the load moved, so the best moves half of it), then a single move before a
//! swap, then the first names. A step that would not narrow the gap is no step.
//!
//! | loads a / b | a's regions | b's regions | step                            |
//! |-------------|-------------|-------------|---------------------------------|
//! | 900 / 100   | 600, 300    | 100         | 300 across: 600 / 400           |
//! | 900 / 100   | 900         | 100         | none: a swap would only reverse |

use super::Step;
use crate::planner::state::State;
use std::cmp::Reverse;

pub(super) fn step(state: &State, slop: f64) -> Option<Step> {
    let servers = 0..state.servers.len();
    let total: u128 = state.servers.iter().map(|s| s.load).sum();
    if total == 0 {
        return None;
    }
    let from = servers
        .clone()
        .max_by_key(|&s| (state.servers[s].load, Reverse(s)))?;
    let to = servers.min_by_key(|&s| (state.servers[s].load, s))?;
    let mean = total as f64 / state.servers.len() as f64;
    let (busy, idle) = (state.servers[from].load, state.servers[to].load);
    if (busy as f64) <= mean * (1.0 + slop) && (idle as f64) >= mean * (1.0 - slop) {
        return None;
    }
    let gap = busy - idle;
    let counts = &state.table_counts;
    let region = |r: usize| &state.regions[r];
    let load_of = |r: usize| u128::from(region(r).view.requests);
    let mut best = None;
    let single_fits = state.servers[from].count > state.servers[to].count;
    let idle_regions: Vec<usize> = state.regions_on(to).collect();
    for r in state.regions_on(from) {
        let t = region(r).table;
        let name = region(r).view.encoded.as_str();
        if single_fits && counts[t][from] > counts[t][to] {
            let key = (1, name, "");
            consider(&mut best, gap, load_of(r), key, vec![(r, to)]);
        }
        for &back in &idle_regions {
            let u = region(back).table;
            // The sum of squared per-table counts may not grow: in units of 2 it changes by
            // (counts[t][to] - counts[t][from] + 1) + (counts[u][from] - counts[u][to] + 1).
            let table_fits =
                t == u || counts[t][to] + counts[u][from] + 2 <= counts[t][from] + counts[u][to];
            if table_fits && load_of(r) > load_of(back) {
                let key = (2, name, region(back).view.encoded.as_str());
                let step = vec![(r, to), (back, from)];
                consider(&mut best, gap, load_of(r) - load_of(back), key, step);
            }
        }
    }
    best.map(|(_, step)| step)
}

/// The ranking of a candidate: the distance left between the two loads, then the number
/// of moves, then the names of the regions; smaller is better.
type Rank<'a> = (u128, usize, &'a str, &'a str);

/// Keeps the step that moves `moved` requests across a `gap` if it narrows the gap and
/// ranks before `best`.
fn consider<'a>(
    best: &mut Option<(Rank<'a>, Step)>,
    gap: u128,
    moved: u128,
    (moves, first, second): (usize, &'a str, &'a str),
    step: Step,
) {
    if moved == 0 || moved >= gap {
        return;
    }
    let rank = (gap.abs_diff(2 * moved), moves, first, second);
    if best.as_ref().is_none_or(|(b, _)| rank < *b) {
        *best = Some((rank, step));
    }
}
