//! HBase's server-side filters, evaluated inside Basalt's region scanner.
//!
//! A scan carries its filter as plain data ([`basalt_types::FilterSpec`]); [`build`] turns
//! that into a [`Filter`], a stateful evaluator the scanner consults for every row and cell.
//!
//! # Layout
//! - [`filter`]: the [`Filter`] trait and HBase's [`ReturnCode`]s.
//! - [`build`]: from spec to evaluator.
//! - one module per filter.

pub mod filter;
mod first_key_only;
mod key_only;
mod list;
mod page;
mod prefix;

pub use filter::{Filter, ReturnCode};

use basalt_types::FilterSpec;

/// Builds a fresh evaluator for `spec` (one per scan: filters keep per-scan state).
pub fn build(spec: &FilterSpec) -> Box<dyn Filter> {
    match spec {
        FilterSpec::Prefix(prefix) => Box::new(prefix::PrefixFilter::new(prefix.clone())),
        FilterSpec::FirstKeyOnly => Box::new(first_key_only::FirstKeyOnlyFilter::default()),
        FilterSpec::KeyOnly { length_as_value } => {
            Box::new(key_only::KeyOnlyFilter::new(*length_as_value))
        }
        FilterSpec::Page(rows) => Box::new(page::PageFilter::new(*rows)),
        FilterSpec::List {
            must_pass_all,
            filters,
        } => Box::new(list::FilterList::new(
            *must_pass_all,
            filters.iter().map(build).collect(),
        )),
    }
}
