//! Runs one simulated cluster and prints what it cost the coordinator.
//!
//! `cargo run --release -p basalt-sim --example scale -- [--seed N] [--servers N]
//!  [--regions N] [--open-failure P] [--timeline] [--trace]`
//! (defaults: seed 1, 1,000 servers, 100,000 regions, no failed opens).

use basalt_sim::Scenario;
use std::time::{Duration, Instant};

fn main() {
    let mut scenario = Scenario {
        servers: 1_000,
        regions: 100_000,
        open_failure: 0.0,
        keep_trace: false,
        converge_limit: Duration::from_secs(600),
        check_every: Duration::from_secs(1),
        ..Scenario::small(1)
    };
    let (mut timeline, mut trace) = (false, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match arg.as_str() {
            "--seed" => scenario.seed = value().parse().unwrap_or(1),
            "--servers" => scenario.servers = value().parse().unwrap_or(1_000),
            "--regions" => scenario.regions = value().parse().unwrap_or(100_000),
            "--open-failure" => scenario.open_failure = value().parse().unwrap_or(0.0),
            "--timeline" => timeline = true,
            "--trace" => {
                trace = true;
                scenario.keep_trace = true;
            }
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let wall = Instant::now();
    let report = basalt_sim::run(&scenario);
    let wall = wall.elapsed();
    if trace {
        for line in &report.trace {
            println!("{line}");
        }
    }
    print!("{report}");
    if timeline {
        print!("\n{}", report.timeline());
    }
    println!("wall time: {:.1}s", wall.as_secs_f64());
    if report.failure.is_some() || !report.violations.is_empty() {
        std::process::exit(1);
    }
}
