//! A deterministic simulation of a cluster's coordination: the master's real code (its
//! election, reconciliation, `servers/` watch, crash handling, assignment and balancer)
//! run against simulated region servers, over the in-process coordinator, on one thread,
//! in simulated time, every random choice drawn from one seed.
//!
//! Why: the assignment and recovery logic is a set of tasks racing through a coordinator;
//! a real cluster shows one interleaving per run and cannot be made to show it again. Here
//! a seed names a run: the same seed gives the same trace, byte for byte, so a failure a
//! seed finds is replayed at will; CI runs a fixed set of seeds. And the simulation plans
//! past one machine: a thousand servers and a hundred thousand regions run in seconds
//! of wall time, printing the coordinator's load (what an etcd must carry).
//!
//! How it stays the real code and deterministic:
//! - the master reaches region servers only through `basalt_master::hosts::RegionHosts`;
//!   here [`fleet::SimHosts`] answers for simulated servers, with latencies and failures
//!   drawn from the seed, and the master's wall clock is the simulated one;
//! - the runtime is tokio's single-threaded one with its clock paused: time jumps to the
//!   next timer whenever every task waits, so a run of minutes takes what its work costs;
//!   the in-process coordinator's leases and the lease keeper count on tokio's clock, so
//!   they expire in simulated time;
//! - nothing reads randomness or the system clock but through the seed: the cluster id is
//!   written before any master starts, region ids come from the simulated wall clock, the
//!   master's catalog iterates in key order, and the `select!`s the master and the
//!   coordinator wait in are biased (tokio picks a random branch otherwise).
//!
//! A run ([`scenario::run`]) goes through start, table creation, a steady spell, the
//! active master's death and the loss of a tenth of the servers at once, and checks after
//! each that every region is open exactly once, on a live server, where the catalog (in
//! memory and in the coordinator) says; and at every open that no other live server holds
//! the region.
//!
//! `cargo run --release -p basalt-sim --example scale -- --servers 1000 --regions 100000`
//! prints the figures `docs/performance.md` quotes.
//!
//! # Layout
//! - [`scenario`]: a run's settings ([`scenario::Scenario`]), its phases and its
//!   [`scenario::Report`].
//! - [`cluster`]: masters, servers and the coordinator together; the convergence checks.
//! - [`fleet`]: the simulated region servers and the masters' seam to them.
//! - [`counting`]: the coordinator decorator counting the load by who asks.
//! - [`report`]: the report as text.
//! - [`trace`]: the run's events and their digest.
//! - [`rng`]: the seeded random numbers.

pub mod cluster;
pub mod counting;
pub mod fleet;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod trace;

pub use scenario::{run, Report, Scenario};
