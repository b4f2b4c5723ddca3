//! Where regions go: a pure function from a view of the cluster to decisions.
//!
//! The master gathers a [`ClusterView`] (the live region servers, each region and where it
//! is open, request counts of the last period), asks the planner, and carries out the
//! [`Decision`]s it gets back (open, or close-then-open elsewhere). The planner does no I/O,
//! reads no clock and draws no random numbers: the same view always gives the same
//! decisions, ties broken by name, so every rule is pinned by a golden file
//! (`tests/golden/planner/`).
//!
//! Three questions, three functions:
//! - [`assign`]: which accepting server opens each region that has none.
//! - [`balance`]: which regions move so that region counts, then each table's spread, then
//!   request load even out (HBase's balancer chore).
//! - [`drain`]: where the regions of a server that is stopping go.
//!
//! # Spreading (`assign` and `drain`)
//! Each region to place goes to the accepting server that holds the fewest regions **of
//! its table**, then the fewest regions overall, then the least request load, then the
//! first name. The table's spread wins over the overall count: a new table's pre-split
//! regions land on every server, even on servers already busy with other tables, so that
//! its first writes do not all hit one machine; the overall count is the balancer's job.
//! Twelve regions of a new table `t` over three servers that hold 6, 0 and 3 regions of
//! other tables:
//!
//! | region | `t` on a/b/c | all on a/b/c | goes to | why                          |
//! |--------|--------------|--------------|---------|------------------------------|
//! | t1     | 0 / 0 / 0    | 6 / 0 / 3    | b       | table tie, b holds fewest    |
//! | t2     | 0 / 1 / 0    | 6 / 1 / 3    | c       | a and c hold no `t`; c fewer |
//! | t3     | 0 / 1 / 1    | 6 / 1 / 4    | a       | only a holds no `t`          |
//! | t4     | 1 / 1 / 1    | 7 / 1 / 4    | b       | table tie, b holds fewest    |
//! | …      |              |              |         | ends 4 / 4 / 4 of `t`        |
//!
//! # Balancing
//! See [`balance`]: counts first (nothing moves while every server is within `slop` of
//! the mean, as HBase's `hbase.regions.slop`), then per-table skew, then request load,
//! every step making the cluster strictly better, so a balanced cluster gets no decision
//! and running again on the result gives nothing.
//!
//! # Cost
//! Placing a region does not compare it against every server: the accepting servers are
//! kept ordered by (regions, load, name) and, per table, the fewest of its regions any
//! server holds; the best server is the first in that order holding that fewest (see
//! `spread`), which makes [`assign`] about O(regions × log servers) instead of
//! O(regions × servers). The balancer keeps each server's regions indexed, so a step costs
//! what the two servers hold, not every region. The decisions are the same as the plain
//! scans' (the golden files did not change). `cargo run --release -p basalt-master --bin
//! planner-timing` prints the wall time at 10,000 and 100,000 regions over 100 and 1,000
//! servers (`docs/performance.md`).
//!
//! # Layout
//! - [`view`]: the input ([`ClusterView`] and its parts), the output ([`Decision`]) and
//!   [`ClusterView::apply`], which plays decisions on a view.
//! - `state`: the working copy the rules share: per-server counts, per-table counts, loads.
//! - `spread`: [`assign`] and [`drain`].
//! - `balance`: [`balance`] and [`BalanceConfig`]; its three rules in `balance::count`,
//!   `balance::table` and `balance::load`.

mod balance;
mod spread;
mod state;
pub mod view;

pub use balance::{balance, BalanceConfig};
pub use spread::{assign, drain};
pub use view::{ClusterView, Decision, RegionView, ServerView};
