//! Scanners: merging sorted sources and deciding per cell.

pub mod matcher;
