//! `increment`, `append` and `checkAndPut`: single-column read-modify-writes on each of the
//! client's rows, in the column PE names after the test (`info0:IncrementTest`, …).

use super::Client;
use crate::keys::{pe_family, pe_row};
use basalt_api::Result;
use basalt_types::{Append, CheckAndMutate, CompareOp, Increment, Mutation, Put};
use std::time::Instant;

pub const INCREMENT_QUALIFIER: &str = "IncrementTest";
pub const APPEND_QUALIFIER: &str = "AppendTest";
pub const CHECK_AND_PUT_QUALIFIER: &str = "CheckAndPutTest";

/// Adds 1 to the counter of each of the client's rows.
pub fn increment(client: &mut Client<'_>) -> Result<()> {
    for n in client.own_rows() {
        if client.stopped() {
            break;
        }
        let mut increment = Increment::new(pe_row(n)).add(pe_family(0), INCREMENT_QUALIFIER, 1);
        increment.durability = client.options.durability;
        increment.return_results = false;
        let started = Instant::now();
        client.table.increment(&increment)?;
        client.record(None, started, 8, 0);
    }
    Ok(())
}

/// Appends the row key to each of the client's rows.
pub fn append(client: &mut Client<'_>) -> Result<()> {
    for n in client.own_rows() {
        if client.stopped() {
            break;
        }
        let row = pe_row(n);
        let bytes = row.len() as u64;
        let mut append = Append::new(row.clone()).add(pe_family(0), APPEND_QUALIFIER, row);
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
    for n in client.own_rows() {
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
