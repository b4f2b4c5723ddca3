//! `sequentialRead`, `randomRead` and `multiGet`: gets of whole PE rows; a row not found
//! counts as a miss.

use super::{value_bytes, Client};
use crate::keys::pe_row;
use basalt_api::Result;
use basalt_types::Get;
use std::time::Instant;

pub fn sequential_read(client: &mut Client<'_>) -> Result<()> {
    for n in client.own_rows() {
        if client.stopped() {
            break;
        }
        let started = Instant::now();
        let row = client.table.get(&Get::new(pe_row(n)))?;
        client.record(None, started, value_bytes(&row), u64::from(row.is_empty()));
    }
    Ok(())
}

/// Single random gets, or batches of `--multi-get` random gets (one operation per batch).
pub fn random_read(client: &mut Client<'_>) -> Result<()> {
    let batch = client.options.multi_get.max(1) as usize;
    for _ in 0..client.options.rows_per_client {
        if client.stopped() {
            break;
        }
        if batch == 1 {
            let get = Get::new(pe_row(client.random_row()));
            let started = Instant::now();
            let row = client.table.get(&get)?;
            client.record(None, started, value_bytes(&row), u64::from(row.is_empty()));
            continue;
        }
        let gets: Vec<Get> = (0..batch)
            .map(|_| Get::new(pe_row(client.random_row())))
            .collect();
        let started = Instant::now();
        let rows = client.table.get_many(&gets)?;
        let bytes = rows.iter().map(value_bytes).sum();
        let misses = rows.iter().filter(|r| r.is_empty()).count() as u64;
        client.record(None, started, bytes, misses);
    }
    Ok(())
}
