//! The filter golden file (`tests/golden/filters.txt`), run through the reference scan loop.
//! Every case's filter also round-trips through the printer and the wire form.
//! `BLESS=1 cargo test -p basalt-filter --test golden` rewrites the expectations.

mod support;

use basalt_filter::build;
use basalt_types::{Cell, FilterSpec};
use support::scan::{self, ScanSettings};

fn reference_scan(
    cells: &[Cell],
    spec: Option<&FilterSpec>,
    settings: &ScanSettings,
) -> Result<Vec<Cell>, String> {
    let filter = spec.map(build).transpose().map_err(|e| e.to_string())?;
    Ok(scan::run(cells, filter, settings))
}

#[test]
fn golden_filters() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/filters.txt");
    support::golden::check_file(path, &reference_scan);
}
