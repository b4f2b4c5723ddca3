//! Properties of the planner over random cluster views: what every decision may and may
//! not do, and what the cluster looks like once the decisions are carried out
//! ([`ClusterView::apply`]).

use basalt_master::planner::{
    assign, balance, drain, BalanceConfig, ClusterView, Decision, RegionView, ServerView,
};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

const DEAD: &str = "dead,16020,1";

fn server_name(i: usize) -> String {
    format!("s{i},16020,{i}")
}

/// 1 to 6 servers (most accepting), up to 40 regions of up to 4 tables on a server, on
/// none, or on a dead one.
fn views() -> impl Strategy<Value = ClusterView> {
    (1usize..=6).prop_flat_map(|n| {
        let servers = prop::collection::vec((prop::bool::weighted(0.8), 0u64..2000), n);
        let regions = prop::collection::vec((0usize..4, 0..n + 2, 0u64..500), 0..40);
        (servers, regions).prop_map(move |(servers, regions)| ClusterView {
            servers: servers
                .into_iter()
                .enumerate()
                .map(|(i, (accepting, requests))| ServerView {
                    name: server_name(i),
                    accepting,
                    requests,
                })
                .collect(),
            regions: regions
                .into_iter()
                .enumerate()
                .map(|(i, (table, on, requests))| RegionView {
                    encoded: format!("r{i:02}"),
                    table: format!("t{table}"),
                    server: match on {
                        on if on < n => Some(server_name(on)),
                        on if on == n => None,
                        _ => Some(DEAD.to_string()),
                    },
                    requests,
                })
                .collect(),
        })
    })
}

fn accepting(view: &ClusterView) -> BTreeSet<&str> {
    view.servers
        .iter()
        .filter(|s| s.accepting)
        .map(|s| s.name.as_str())
        .collect()
}

/// Regions per accepting server.
fn counts(view: &ClusterView) -> BTreeMap<&str, usize> {
    let mut counts: BTreeMap<&str, usize> = accepting(view).into_iter().map(|s| (s, 0)).collect();
    for region in &view.regions {
        if let Some(n) = region.server.as_deref().and_then(|s| counts.get_mut(s)) {
            *n += 1;
        }
    }
    counts
}

/// Whether every count is within the mean times `1 ∓ slop`, rounded out.
fn within_slop(view: &ClusterView, slop: f64) -> bool {
    let counts = counts(view);
    let mean = counts.values().sum::<usize>() as f64 / counts.len().max(1) as f64;
    let (low, high) = ((mean * (1.0 - slop)).floor(), (mean * (1.0 + slop)).ceil());
    counts
        .values()
        .all(|&c| (c as f64) >= low && (c as f64) <= high)
}

fn one_decision_per_region(decisions: &[Decision]) -> bool {
    let regions: BTreeSet<&str> = decisions.iter().map(Decision::region).collect();
    regions.len() == decisions.len()
}

proptest! {
    #[test]
    fn after_assign_every_region_is_on_an_accepting_server(view in views()) {
        let decisions = assign(&view);
        let accepting = accepting(&view);
        prop_assert!(one_decision_per_region(&decisions));
        prop_assert!(decisions.iter().all(|d| accepting.contains(d.target())));
        let mut after = view.clone();
        after.apply(&decisions);
        if accepting.is_empty() {
            prop_assert!(decisions.is_empty());
        } else {
            for region in &after.regions {
                let on = region.server.as_deref().unwrap_or("none");
                prop_assert!(accepting.contains(on), "{} on {on}", region.encoded);
            }
        }
        prop_assert_eq!(assign(&after), vec![]);
    }

    #[test]
    fn assign_spreads_a_new_table_within_one_region(view in views()) {
        let mut view = view;
        for region in &mut view.regions {
            region.server = None;
        }
        let mut after = view.clone();
        after.apply(&assign(&view));
        let accepting = accepting(&view);
        let mut per_table: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for region in &after.regions {
            if let Some(server) = region.server.as_deref() {
                *per_table.entry((&region.table, server)).or_default() += 1;
            }
        }
        for table in after.regions.iter().map(|r| r.table.as_str()).collect::<BTreeSet<_>>() {
            let spread: Vec<usize> = accepting
                .iter()
                .map(|s| per_table.get(&(table, *s)).copied().unwrap_or(0))
                .collect();
            let (min, max) = (spread.iter().min(), spread.iter().max());
            prop_assert!(max.zip(min).is_none_or(|(max, min)| max - min <= 1), "{table}: {spread:?}");
        }
    }

    #[test]
    fn balance_ends_within_slop_and_again_gives_nothing(view in views(), slop in 0.0f64..0.5) {
        let config = BalanceConfig { max_move_fraction: 1000.0, slop };
        let decisions = balance(&view, &config);
        let accepting = accepting(&view);
        prop_assert!(one_decision_per_region(&decisions));
        for decision in &decisions {
            let Decision::Move { region, from, to } = decision else {
                panic!("balance only moves: {decision}");
            };
            prop_assert!(accepting.contains(from.as_str()) && accepting.contains(to.as_str()));
            let before = view.regions.iter().find(|r| &r.encoded == region).expect("a known region");
            prop_assert_eq!(before.server.as_ref(), Some(from));
        }
        let mut after = view.clone();
        after.apply(&decisions);
        prop_assert!(within_slop(&after, slop), "{:?}", counts(&after));
        prop_assert_eq!(balance(&after, &config), vec![]);
    }

    #[test]
    fn capped_runs_stay_under_the_cap_and_converge(view in views(), fraction in 0.05f64..0.5) {
        let config = BalanceConfig { max_move_fraction: fraction, slop: 0.2 };
        let mut view = view;
        for _ in 0..200 {
            let considered: usize = counts(&view).values().sum();
            let decisions = balance(&view, &config);
            prop_assert!(decisions.len() as f64 <= (considered as f64 * fraction).ceil());
            if decisions.is_empty() {
                prop_assert!(within_slop(&view, 0.2), "{:?}", counts(&view));
                return Ok(());
            }
            view.apply(&decisions);
        }
        prop_assert!(false, "no rest after 200 runs");
    }

    #[test]
    fn drain_empties_the_server(view in views(), which in 0usize..6) {
        let server = server_name(which % view.servers.len());
        let decisions = drain(&view, &server);
        let others: BTreeSet<&str> = accepting(&view).into_iter().filter(|s| *s != server).collect();
        prop_assert!(decisions.iter().all(|d| others.contains(d.target())));
        let mut after = view.clone();
        after.apply(&decisions);
        let left = after.regions.iter().filter(|r| r.server.as_deref() == Some(&server)).count();
        if others.is_empty() {
            prop_assert!(decisions.is_empty());
        } else {
            prop_assert_eq!(left, 0);
        }
        let moved: BTreeSet<&str> = decisions.iter().map(Decision::region).collect();
        for region in &view.regions {
            prop_assert_eq!(moved.contains(region.encoded.as_str()), region.server.as_deref() == Some(&server) && !others.is_empty());
        }
    }
}
