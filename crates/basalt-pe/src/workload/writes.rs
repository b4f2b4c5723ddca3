//! `sequentialWrite` and `randomWrite`: PE rows of `--families` × `--columns` cells of
//! `--value-size` random letters, at `--durability`, direct or buffered (`--auto-flush`).

use super::writer::Writer;
use super::Client;
use crate::keys::{pe_family, pe_qualifier, pe_row};
use basalt_api::Result;
use basalt_types::Put;
use std::time::Instant;

/// PE's row `n`: every family and column, each with a fresh random value.
pub fn pe_put(client: &mut Client<'_>, n: u64) -> (Put, u64) {
    let options = client.options;
    let mut put = Put::new(pe_row(n)).durability(options.durability);
    for family in 0..options.families {
        for column in 0..options.columns {
            let value = client.rng.letters(options.value_size_bytes);
            put = put.add(pe_family(family), pe_qualifier(column), value);
        }
    }
    let bytes =
        options.value_size_bytes as u64 * u64::from(options.families) * u64::from(options.columns);
    (put, bytes)
}

fn write_rows(
    client: &mut Client<'_>,
    mut next_row: impl FnMut(&mut Client<'_>, u64) -> u64,
) -> Result<()> {
    let mut writer = Writer::new(&client.table, client.options.auto_flush);
    for i in 0..client.options.rows_per_client {
        if client.stopped() {
            break;
        }
        let n = next_row(client, i);
        let (put, bytes) = pe_put(client, n);
        let started = Instant::now();
        writer.put(put)?;
        client.record(None, started, bytes, 0);
    }
    writer.close()
}

pub fn sequential_write(client: &mut Client<'_>) -> Result<()> {
    let first = client.first_row();
    write_rows(client, |_, i| first + i)
}

pub fn random_write(client: &mut Client<'_>) -> Result<()> {
    write_rows(client, |client, _| client.random_row())
}
