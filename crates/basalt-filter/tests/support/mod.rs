//! Test support shared by the integration tests: a reference scan loop and the golden-file
//! format. Engine-independent: the storage crate can load the same golden file and run its
//! real region scanner instead of [`scan::run`].

#![allow(
    dead_code,
    reason = "each test binary uses a different part of the support module"
)]

pub mod golden;
pub mod scan;
