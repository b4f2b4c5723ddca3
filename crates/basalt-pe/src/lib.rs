//! `basalt pe`: HBase's PerformanceEvaluation commands and YCSB's core workloads over any
//! [`basalt_api::Connection`] — a server's or an in-process database's.
//!
//! A run parses its options ([`options::PeArgs`] → [`options::PeOptions`]), creates the
//! table when it is missing, starts `--clients` threads that each run `--rows` operations
//! of the command through their own table handle, and merges what they measured into a
//! [`report::Report`]: ops/s, MB/s, latency percentiles and the process's peak memory.
//! It is a load generator, not a test: it checks nothing about the data it reads beyond
//! counting rows that were not there.
//!
//! ```no_run
//! # fn demo(conn: std::sync::Arc<dyn basalt_api::Connection>) -> Result<(), basalt_pe::PeError> {
//! use clap::Parser;
//! let args = basalt_pe::options::PeArgs::parse_from(["pe", "--rows", "1000", "randomWrite"]);
//! let report = basalt_pe::run(conn, &args.validate()?)?;
//! print!("{}", report.to_text());
//! # Ok(()) }
//! ```
//!
//! # Layout
//! - [`command`]: the command names (PE's and YCSB's).
//! - [`options`]: the command line and its checks.
//! - [`keys`]: PE's 26-digit row keys, YCSB's `user<fnv64>` keys, family and column names.
//! - [`rng`]: the seeded random stream of each client.
//! - [`zipfian`]: YCSB's zipfian, scrambled zipfian and latest distributions.
//! - [`workload`]: what each command does, one file per family of commands.
//! - [`table_setup`]: creating the table (families, options, pre-split).
//! - [`runner`]: client threads, progress bar, merging.
//! - [`histogram`]: log-linear latency histogram.
//! - [`stats`]: per-client counts.
//! - [`report`]: the text table and the JSON.
//! - [`memory`]: peak resident memory.
//! - [`error`]: the error type, [`PeError`].

pub mod command;
pub mod error;
pub mod histogram;
pub mod keys;
pub mod memory;
pub mod options;
pub mod report;
pub mod rng;
pub mod runner;
pub mod stats;
pub mod table_setup;
pub mod workload;
pub mod zipfian;

pub use command::Command;
pub use error::{PeError, Result};
pub use options::{PeArgs, PeOptions};
pub use report::Report;
pub use runner::{run, run_measuring};
