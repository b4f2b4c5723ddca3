//! `sequentialWrite` and `randomWrite`: PE rows of `--families` × `--columns` cells of
//! `--value-size` random letters, at `--durability`, direct or buffered (`--auto-flush`).

use super::writer::Writer;
use super::Client;
use crate::keys::{pe_family, pe_qualifier, pe_row};
use crate::rng::Rng;
use basalt_api::Result;
use basalt_types::Put;
use std::time::Instant;

/// A value as PE's `generateData` makes it: 8-byte runs of one random capital letter (so it
/// compresses about as well as PE's values do), the tail a run of one more.
pub fn pe_value(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut value = Vec::with_capacity(len);
    while value.len() < len {
        let run = (len - value.len()).min(8);
        let letter = b'A' + rng.below(26) as u8;
        value.extend(std::iter::repeat_n(letter, run));
    }
    value
}

/// PE's row `n`: every family and column, each with a fresh random value.
pub fn pe_put(client: &mut Client<'_>, n: u64) -> (Put, u64) {
    let options = client.options;
    let mut put = Put::new(pe_row(n)).durability(options.durability);
    for family in 0..options.families {
        for column in 0..options.columns {
            let value = pe_value(&mut client.rng, options.value_size_bytes);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_values_are_runs_of_eight_capitals() {
        let mut rng = Rng::new(2);
        for len in [0, 1, 8, 9, 1024] {
            let value = pe_value(&mut rng, len);
            assert_eq!(value.len(), len);
            assert!(value.iter().all(u8::is_ascii_uppercase));
            for run in value.chunks(8) {
                assert!(run.iter().all(|b| *b == run[0]), "{run:?}");
            }
        }
    }
}
