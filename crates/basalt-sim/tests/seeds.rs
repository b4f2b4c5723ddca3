//! The master's coordination under the deterministic simulation, at a small scale (20
//! region servers, 2,000 regions, 1% of opens failing): a fixed set of seeds each
//! converges after table creation, the active master's death and the loss of a tenth of
//! the servers, never opening a region on two servers; and a seed replays its run byte for
//! byte.

use basalt_sim::{run, Scenario};

/// The seeds CI runs.
const SEEDS: [u64; 4] = [1, 2, 3, 4];

fn check(report: &basalt_sim::Report) {
    assert!(
        report.failure.is_none() && report.violations.is_empty(),
        "{report}\nlast trace lines:\n{}",
        report.trace[report.trace.len().saturating_sub(40)..].join("\n")
    );
    let names: Vec<&str> = report.phases.iter().map(|p| p.name).collect();
    assert_eq!(names, ["start", "create", "steady", "failover", "lose"]);
}

#[test]
fn every_seed_converges_through_failover_and_the_loss_of_a_tenth_of_the_servers() {
    for seed in SEEDS {
        let report = run(&Scenario::small(seed));
        check(&report);
        // The dead servers' leases run out, their regions reopen at once; an open that
        // fails waits for the next balancer run.
        let s = &report.scenario;
        let bound = s.lease_ttl + s.balancer_period + std::time::Duration::from_secs(5);
        for phase in &report.phases[3..] {
            assert!(
                phase.took <= bound,
                "seed {seed}: {} took {:?}",
                phase.name,
                phase.took
            );
        }
    }
}

#[test]
fn a_seed_replays_its_run_byte_for_byte_and_another_seed_differs() {
    let scenario = Scenario {
        servers: 8,
        regions: 300,
        ..Scenario::small(11)
    };
    let first = run(&scenario);
    let again = run(&scenario);
    check(&first);
    assert!(first.trace.len() > 300, "{} events", first.trace.len());
    if first.trace != again.trace {
        let at = first
            .trace
            .iter()
            .zip(&again.trace)
            .position(|(a, b)| a != b)
            .unwrap_or(first.trace.len().min(again.trace.len()));
        panic!(
            "the runs differ from event {at}:\n  {:?}\n  {:?}",
            first.trace.get(at),
            again.trace.get(at)
        );
    }
    assert_eq!(first.digest, again.digest);
    let other = run(&Scenario {
        seed: 12,
        ..scenario
    });
    check(&other);
    assert_ne!(first.digest, other.digest);
}
