//! `filterScan`: full-table scans keeping only rows whose `info0:0` equals a random value
//! (HBase PE's `FilteredScanTest`, a `SingleColumnValueFilter` with `EQUAL`). Random values
//! almost never match, so each scan reads the whole table and returns nothing: it measures
//! server-side filtering. As in PE, rows without `info0:0` pass (the filter's default
//! `filterIfMissing=false`). Each client runs `--rows / 100` scans (at least one).

use super::writes::pe_value;
use super::{value_bytes, Client};
use crate::keys::{pe_family, pe_qualifier};
use crate::options::PeOptions;
use basalt_api::Result;
use basalt_types::filter_spec::{Comparator, CompareSpec, SingleColumnValueSpec};
use basalt_types::{CompareOp, FilterSpec, Scan};
use std::time::Instant;

/// Scans each client runs.
pub fn scans_per_client(options: &PeOptions) -> u64 {
    (options.rows_per_client / 100).max(1)
}

pub fn filter_scan(client: &mut Client<'_>) -> Result<()> {
    for _ in 0..scans_per_client(client.options) {
        if client.stopped() {
            break;
        }
        let wanted = pe_value(&mut client.rng, client.options.value_size_bytes);
        let filter = FilterSpec::SingleColumnValue(SingleColumnValueSpec {
            family: pe_family(0).into(),
            qualifier: pe_qualifier(0).into(),
            compare: CompareSpec {
                op: CompareOp::Equal,
                comparator: Comparator::Binary(wanted.into()),
            },
            filter_if_missing: false,
            latest_version_only: true,
        });
        let scan = Scan::new().family(pe_family(0)).filter(filter);
        let started = Instant::now();
        let mut bytes = 0;
        for row in client.table.scan(&scan)? {
            bytes += value_bytes(&row?);
        }
        client.record(None, started, bytes, 0);
    }
    Ok(())
}
