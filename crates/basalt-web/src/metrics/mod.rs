//! Metrics for machines, rendered from a [`Snapshot`](crate::snapshot::Snapshot) (a
//! standalone server, a region server) or a master's
//! [`ClusterView`](crate::remote::master::ClusterView).
//!
//! # Layout
//! - [`prometheus`]: `/metrics` and `/prometheus`, Prometheus text exposition 0.0.4.
//! - [`cluster`]: a master's `/metrics`: servers, dead servers, regions, transitions.
//! - [`jmx`]: `/jmx`, HBase's JMX JSON dump with its bean and metric names.
//! - [`process`]: the process's CPU time on every server's `/metrics`
//!   (`process_cpu_seconds_total`).

pub mod cluster;
pub mod jmx;
pub mod process;
pub mod prometheus;
