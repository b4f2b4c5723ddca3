//! Metrics for machines, rendered from a [`Snapshot`](crate::snapshot::Snapshot).
//!
//! # Layout
//! - [`prometheus`]: `/metrics` and `/prometheus`, Prometheus text exposition 0.0.4.
//! - [`jmx`]: `/jmx`, HBase's JMX JSON dump with its bean and metric names.

pub mod jmx;
pub mod prometheus;
