//! The balancer: which regions move so that the accepting servers share the work.
//!
//! Only regions open on accepting servers take part; regions on no server, on a dead
//! server or on a draining one are [`super::assign`]'s, and a draining server gets
//! nothing. The master runs it when no region is in transition, as HBase's balancer chore
//! does.
//!
//! A run plays moves on a working copy, one step at a time, each step the first of three
//! rules that finds one:
//!
//! | rule | acts when | a step | never |
//! |------|-----------|--------|-------|
//! | [`count`] | a server's region count is outside `slop` of the mean (HBase's `hbase.regions.slop`), and then until every count is the mean rounded down or up | one region from the server with most regions to the one with fewest | - |
//! | [`table`] | some table has 2 regions more on one server than on another | a region of that table over, or swapped with a region of another table coming back | raises a count spread |
//! | [`load`] | the busiest or idlest server is outside `slop` of the mean request load | a region from the busiest server to the idlest, or a busy one swapped with a quieter one | raises a count or table spread |
//!
//! Each step lowers, strictly, the sum of squared region counts, or keeps it and lowers
//! the sum of squared per-table counts, or keeps both and lowers the sum of squared loads.
//! So a run cannot cycle, it stops where no rule finds a step, and a second run on the
//! result finds none either: a balanced cluster gets no decision.
//!
//! A run makes at most `max_move_fraction` of the regions it considers, rounded up, in
//! steps (HBase's `hbase.master.balancer.maxRitPercent` bounds regions in transition the
//! same way); the rest waits for the next run. A region moved twice in a run is reported
//! once, from where it was to where it ends; one that comes back is not reported.
//!
//! # Layout
//! - [`count`], [`table`], [`load`]: the three rules.

mod count;
mod load;
mod table;

use super::state::State;
use super::view::{ClusterView, Decision};

/// How hard the balancer works.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BalanceConfig {
    /// The most regions one run moves, as a fraction of the regions on accepting servers
    /// (rounded up; 0, a negative number or NaN: nothing moves). Default 0.1.
    pub max_move_fraction: f64,
    /// How far from the mean a server's region count (and request load) may be before
    /// the balancer acts, as a fraction of the mean (HBase's `hbase.regions.slop`; a
    /// negative number or NaN counts as 0). Default 0.2, HBase's `SimpleLoadBalancer`'s.
    pub slop: f64,
}

impl Default for BalanceConfig {
    fn default() -> Self {
        Self {
            max_move_fraction: 0.1,
            slop: 0.2,
        }
    }
}

/// One step: regions (by index) and the server (by index) each goes to.
type Step = Vec<(usize, usize)>;

/// The moves that even out the accepting servers of `view`, by three rules tried in order
/// at each step: region counts (only once a server is outside `slop` of the mean, and then
/// to the mean rounded down or up), each table's spread (a table 2 regions apart on two
/// servers), request load (the busiest or idlest server outside `slop` of the mean load).
/// No step spreads what an earlier rule evened out, so a run cannot cycle and running
/// again on its result gives nothing. At most `max_move_fraction` of the regions move.
/// Only regions open on accepting servers move, and only to accepting servers.
pub fn balance(view: &ClusterView, config: &BalanceConfig) -> Vec<Decision> {
    let mut state = State::new(view, None);
    if state.servers.len() < 2 {
        return Vec::new();
    }
    let slop = if config.slop > 0.0 { config.slop } else { 0.0 };
    let mut budget = move_budget(state.regions.len(), config.max_move_fraction);
    let origins: Vec<Option<usize>> = state.regions.iter().map(|r| r.on).collect();
    let mut order = Vec::new();
    let mut moved = vec![false; state.regions.len()];
    let mut counting = false;
    loop {
        counting = counting || count::triggered(&state, slop);
        let mut step = if counting { count::step(&state) } else { None };
        counting = step.is_some();
        if step.is_none() {
            step = table::step(&state).or_else(|| load::step(&state, slop));
        }
        let Some(step) = step else { break };
        if step.len() > budget {
            break;
        }
        budget -= step.len();
        for (region, to) in step {
            if !std::mem::replace(&mut moved[region], true) {
                order.push(region);
            }
            state.place(region, to);
        }
    }
    order
        .into_iter()
        .filter_map(|index| {
            let region = &state.regions[index];
            let (from, to) = (origins[index]?, region.on?);
            (from != to).then(|| Decision::Move {
                region: region.view.encoded.clone(),
                from: state.servers[from].name.to_string(),
                to: state.servers[to].name.to_string(),
            })
        })
        .collect()
}

/// `fraction` of `regions`, rounded up; 0 for a fraction that is not positive.
fn move_budget(regions: usize, fraction: f64) -> usize {
    if fraction > 0.0 {
        // A float-to-integer `as` saturates: an infinite fraction is no limit.
        (regions as f64 * fraction).ceil() as usize
    } else {
        0
    }
}

/// The bounds region counts must stay within: the mean times `1 - slop` rounded down and
/// times `1 + slop` rounded up, as HBase's `SimpleLoadBalancer`.
pub(super) fn count_bounds(regions: usize, servers: usize, slop: f64) -> (usize, usize) {
    let mean = regions as f64 / servers.max(1) as f64;
    let low = (mean * (1.0 - slop)).floor().max(0.0) as usize;
    let high = (mean * (1.0 + slop)).ceil() as usize;
    (low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_rounds_up_and_a_bad_fraction_moves_nothing() {
        assert_eq!(move_budget(12, 0.1), 2);
        assert_eq!(move_budget(5, 0.1), 1);
        assert_eq!(move_budget(0, 0.1), 0);
        assert_eq!(move_budget(12, 0.0), 0);
        assert_eq!(move_budget(12, -1.0), 0);
        assert_eq!(move_budget(12, f64::NAN), 0);
        assert_eq!(move_budget(12, f64::INFINITY), usize::MAX);
    }

    #[test]
    fn count_bounds_follow_the_slop() {
        assert_eq!(count_bounds(12, 4, 0.2), (2, 4));
        assert_eq!(count_bounds(12, 3, 0.0), (4, 4));
        assert_eq!(count_bounds(10, 3, 0.0), (3, 4));
        assert_eq!(count_bounds(0, 3, 0.2), (0, 0));
    }
}
