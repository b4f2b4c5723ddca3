//! The master of a Basalt cluster.
//!
//! # Layout
//! - [`planner`]: where regions go (assignment, balancing, draining), decisions as data.

pub mod planner;
