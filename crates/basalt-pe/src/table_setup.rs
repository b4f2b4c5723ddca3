//! The table a run works on: created when missing, as PE's options describe it.
//!
//! PE tables have families `info0`… with `--compress`, `--bloom`, `--block-encoding` and
//! `--in-memory`; YCSB tables have the one family `family` with the same options. An
//! existing table is used as it is.
//!
//! `--presplit N` cuts a new table into N regions of equal key share: PE tables at rows
//! `k × total / N` (PE's own split points); YCSB tables, whose keys are `user` + a decimal
//! hash mostly 18–19 digits long, at `user` + four-digit prefixes spread over 1000–9999.

use crate::error::{PeError, Result};
use crate::keys::{pe_family, pe_row, YCSB_FAMILY};
use crate::options::PeOptions;
use basalt_api::{Connection, PreSplit, Table};
use basalt_types::{FamilyDescriptor, Scan, TableDescriptor};
use bytes::Bytes;

/// The descriptor of a new table for `options`.
pub fn descriptor(options: &PeOptions) -> Result<TableDescriptor> {
    let names: Vec<String> = if options.command.is_ycsb() {
        vec![YCSB_FAMILY.to_string()]
    } else {
        (0..options.families).map(pe_family).collect()
    };
    let families = names
        .into_iter()
        .map(|name| {
            let mut family = FamilyDescriptor::new(name).map_err(|e| PeError::Option {
                option: "--families",
                message: e.to_string(),
            })?;
            family.compression = options.compression;
            family.bloom_filter = options.bloom;
            family.data_block_encoding = options.block_encoding;
            family.in_memory = options.in_memory;
            Ok(family)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TableDescriptor::new(options.table.clone(), families))
}

/// The split keys of a new table for `options`.
pub fn presplit(options: &PeOptions) -> PreSplit {
    let regions = u64::from(options.presplit_regions);
    if regions < 2 {
        return PreSplit::None;
    }
    let mut keys: Vec<Bytes> = (1..regions)
        .map(|i| {
            if options.command.is_ycsb() {
                Bytes::from(format!("user{}", 1000 + i * 9000 / regions))
            } else {
                Bytes::from(pe_row(i * (options.total_rows() / regions)))
            }
        })
        .collect();
    keys.dedup();
    PreSplit::Keys(keys)
}

/// Creates the table when it does not exist; returns whether it did.
pub fn ensure_table(conn: &dyn Connection, options: &PeOptions) -> Result<bool> {
    let admin = conn.admin();
    let table_error = |source| PeError::Table {
        table: options.table.to_string(),
        source,
    };
    if admin.table_exists(&options.table).map_err(table_error)? {
        return Ok(false);
    }
    let descriptor = descriptor(options)?;
    admin
        .create_table(&descriptor, &presplit(options))
        .map_err(table_error)?;
    tracing::info!(table = %options.table, regions = options.presplit_regions.max(1), "created table");
    Ok(true)
}

/// Whether the table holds no row.
pub fn is_empty(table: &dyn Table) -> basalt_api::Result<bool> {
    let mut rows = table.scan(&Scan::new().limit(1))?;
    Ok(rows.next().transpose()?.is_none())
}
