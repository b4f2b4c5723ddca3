//! `increment`, `append` and `checkAndPut`: read-modify-writes in the column PE names after
//! the test (`IncrementTest`, …). As in HBase's PE, every client works on the same rows
//! `0..--rows`, so clients contend for the same row locks; increments and appends touch that
//! column in every family, check-and-put only in `info0`.

use super::Client;
use crate::keys::{pe_family, pe_row};
use basalt_api::Result;
use basalt_types::{Append, CheckAndMutate, CompareOp, Increment, Mutation, Put};
use std::time::Instant;

pub const INCREMENT_QUALIFIER: &str = "IncrementTest";
pub const APPEND_QUALIFIER: &str = "AppendTest";
pub const CHECK_AND_PUT_QUALIFIER: &str = "CheckAndPutTest";

/// The rows every client works on.
fn shared_rows(client: &Client<'_>) -> std::ops::Range<u64> {
    0..client.options.rows_per_client
}

/// Adds 1 to the counter of each row, in every family.
pub fn increment(client: &mut Client<'_>) -> Result<()> {
    let families = client.options.families;
    for n in shared_rows(client) {
        if client.stopped() {
            break;
        }
        let mut increment = Increment::new(pe_row(n));
        for family in 0..families {
            increment = increment.add(pe_family(family), INCREMENT_QUALIFIER, 1);
        }
        increment.durability = client.options.durability;
        increment.return_results = false;
        let started = Instant::now();
        client.table.increment(&increment)?;
        client.record(None, started, 8 * u64::from(families), 0);
    }
    Ok(())
}

/// Appends the row key to each row, in every family.
pub fn append(client: &mut Client<'_>) -> Result<()> {
    let families = client.options.families;
    for n in shared_rows(client) {
        if client.stopped() {
            break;
        }
        let row = pe_row(n);
        let bytes = row.len() as u64 * u64::from(families);
        let mut append = Append::new(row.clone());
        for family in 0..families {
            append = append.add(pe_family(family), APPEND_QUALIFIER, row.clone());
        }
        append.durability = client.options.durability;
        append.return_results = false;
        let started = Instant::now();
        client.table.append(&append)?;
        client.record(None, started, bytes, 0);
    }
    Ok(())
}

/// Puts the row key, then check-and-puts it again on the condition that it is there.
pub fn check_and_put(client: &mut Client<'_>) -> Result<()> {
    for n in shared_rows(client) {
        if client.stopped() {
            break;
        }
        let row = pe_row(n);
        let put = Put::new(row.clone())
            .add(pe_family(0), CHECK_AND_PUT_QUALIFIER, row.clone())
            .durability(client.options.durability);
        let check = CheckAndMutate::column(
            row.clone(),
            pe_family(0),
            CHECK_AND_PUT_QUALIFIER,
            CompareOp::Equal,
            Some(row.clone().into()),
            Mutation::Put(put.clone()),
        )?;
        let started = Instant::now();
        client.table.put(&put)?;
        let outcome = client.table.check_and_mutate(&check)?;
        client.record(
            None,
            started,
            2 * row.len() as u64,
            u64::from(!outcome.succeeded),
        );
    }
    Ok(())
}
