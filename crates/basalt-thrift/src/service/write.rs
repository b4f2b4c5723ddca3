//! Writes: row mutations, deletes, counters, appends and check-and-put.
//!
//! | method | arguments (id) |
//! |---|---|
//! | `mutateRow[Ts]` | table 1, row 2, mutations 3, (ts 4) |
//! | `mutateRows[Ts]` | table 1, batches 2, (ts 3) |
//! | `atomicIncrement` | table 1, row 2, column 3, value 4 |
//! | `deleteAll[Ts]` / `deleteAllRow[Ts]` | table 1, row 2, (column 3), (ts 4 / 3) |
//! | `increment` / `incrementRows` | TIncrement 1 / list 1 |
//! | `append` | TAppend 1 |
//! | `checkAndPut` | table 1, row 2, column 3, value 5, mput 6 |
//!
//! A `Mutation{1:isDelete, 2:column, 3:value, 4:writeToWAL}` on `cf` deletes the family
//! and on `cf:q` every version of the column, both up to the timestamp; a put needs
//! `cf:q`; `writeToWAL = false` writes with `SKIP_WAL`. `mutateRow` applies a row's
//! deletes then its puts; `mutateRows` applies every put, then every delete.

use super::convert::{tcells, Column};
use super::{required, CallResult, Failure, Service};
use crate::protocol::{Struct, Value};
use basalt_api::Table;
use basalt_types::{
    Append, CheckAndMutate, CompareOp, Delete, DeleteSpec, Durability, Increment, Mutation, Put,
    LATEST_TIMESTAMP,
};
use bytes::Bytes;
use std::sync::Arc;

pub(super) fn call(service: &Service, name: &str, args: &Struct) -> CallResult {
    match name {
        "increment" => {
            let spec = args
                .structure(1)
                .ok_or_else(|| Failure::illegal("missing argument increment"))?;
            increment(service, spec)?;
            return Ok(None);
        }
        "incrementRows" => {
            for item in args.list(1).unwrap_or_default() {
                let spec = item
                    .as_struct()
                    .ok_or_else(|| Failure::illegal("increments must hold TIncrements"))?;
                increment(service, spec)?;
            }
            return Ok(None);
        }
        "append" => {
            let spec = args
                .structure(1)
                .ok_or_else(|| Failure::illegal("missing argument append"))?;
            return append(service, spec);
        }
        _ => {}
    }
    let table = service.table(args, 1)?;
    match name {
        "mutateRow" | "mutateRowTs" => {
            let row = required(args, 2, "row")?;
            let ts = if name == "mutateRowTs" {
                args.i64(4).unwrap_or(LATEST_TIMESTAMP)
            } else {
                LATEST_TIMESTAMP
            };
            let (put, delete) = row_ops(row, args.list(3).unwrap_or_default(), ts)?;
            if let Some(delete) = delete {
                table.delete(&delete)?;
            }
            if let Some(put) = put {
                table.put(&put)?;
            }
            Ok(None)
        }
        "mutateRows" | "mutateRowsTs" => {
            let ts = if name == "mutateRowsTs" {
                args.i64(3).unwrap_or(LATEST_TIMESTAMP)
            } else {
                LATEST_TIMESTAMP
            };
            let (mut puts, mut deletes) = (Vec::new(), Vec::new());
            for batch in args.list(2).unwrap_or_default() {
                let batch = batch
                    .as_struct()
                    .ok_or_else(|| Failure::illegal("rowBatches must hold BatchMutations"))?;
                let row = required(batch, 1, "row")?;
                let (put, delete) = row_ops(row, batch.list(2).unwrap_or_default(), ts)?;
                puts.extend(put);
                deletes.extend(delete);
            }
            if !puts.is_empty() {
                table.put_many(&puts)?;
            }
            if !deletes.is_empty() {
                table.delete_many(&deletes)?;
            }
            Ok(None)
        }
        "atomicIncrement" => {
            let row = required(args, 2, "row")?;
            let column = Column::parse(required(args, 3, "column")?);
            let amount = args.i64(4).unwrap_or(0);
            let value = increment_column(&table, row, column, amount)?;
            Ok(Some(Value::I64(value)))
        }
        "deleteAll" | "deleteAllTs" => {
            let row = required(args, 2, "row")?;
            let column = Column::parse(required(args, 3, "column")?);
            let ts = match name {
                "deleteAllTs" => args.i64(4).unwrap_or(LATEST_TIMESTAMP),
                _ => LATEST_TIMESTAMP,
            };
            let delete = Delete::new(row.clone())
                .at(ts)
                .spec(delete_spec(column, ts));
            table.delete(&delete)?;
            Ok(None)
        }
        "deleteAllRow" | "deleteAllRowTs" => {
            let row = required(args, 2, "row")?;
            let ts = match name {
                "deleteAllRowTs" => args.i64(3).unwrap_or(LATEST_TIMESTAMP),
                _ => LATEST_TIMESTAMP,
            };
            table.delete(&Delete::new(row.clone()).at(ts))?;
            Ok(None)
        }
        "checkAndPut" => check_and_put(&table, args),
        _ => Err(Failure::UnknownMethod),
    }
}

/// The put and the delete that a row's mutations make.
fn row_ops(
    row: &Bytes,
    mutations: &[Value],
    ts: i64,
) -> Result<(Option<Put>, Option<Delete>), Failure> {
    let mut put = Put::new(row.clone());
    let mut delete = Delete::new(row.clone()).at(ts);
    for mutation in mutations {
        let m = mutation
            .as_struct()
            .ok_or_else(|| Failure::illegal("mutations must hold Mutations"))?;
        let column = Column::parse(required(m, 2, "column")?);
        let durability = match m.bool(4).unwrap_or(true) {
            true => Durability::UseDefault,
            false => Durability::SkipWal,
        };
        if m.bool(1).unwrap_or(false) {
            delete = delete.spec(delete_spec(column, ts));
            delete.durability = durability;
        } else {
            let qualifier = column
                .qualifier
                .ok_or_else(|| Failure::illegal("Invalid famAndQf provided."))?;
            let value = m.binary(3).cloned().unwrap_or_default();
            put = put.add_at(column.family, qualifier, ts, value);
            put.durability = durability;
        }
    }
    let put = (!put.cells.is_empty()).then_some(put);
    let delete = (!delete.specs.is_empty()).then_some(delete);
    Ok((put, delete))
}

/// `cf` deletes the family, `cf:q` every version of the column, up to `ts`.
fn delete_spec(column: Column, ts: i64) -> DeleteSpec {
    match column.qualifier {
        Some(qualifier) => DeleteSpec::Columns {
            family: column.family,
            qualifier,
            timestamp: ts,
        },
        None => DeleteSpec::Family {
            family: column.family,
            timestamp: ts,
        },
    }
}

/// Adds `amount` to a counter (`cf` alone means the empty qualifier); the new value.
fn increment_column(
    table: &Arc<dyn Table>,
    row: &Bytes,
    column: Column,
    amount: i64,
) -> Result<i64, Failure> {
    let qualifier = column.qualifier.unwrap_or_default();
    let increment =
        Increment::new(row.clone()).add(column.family.clone(), qualifier.clone(), amount);
    let result = table.increment(&increment)?;
    let value = result
        .value(&column.family, &qualifier)
        .ok_or_else(|| Failure::io("the increment returned no value"))?;
    let bytes: [u8; 8] = value
        .as_ref()
        .try_into()
        .map_err(|_| Failure::io("the counter is not an 8-byte value"))?;
    Ok(i64::from_be_bytes(bytes))
}

/// `TIncrement{1:table, 2:row, 3:column, 4:ammount}`.
fn increment(service: &Service, spec: &Struct) -> Result<(), Failure> {
    let table = service.table(spec, 1)?;
    let row = required(spec, 2, "row")?;
    let column = Column::parse(required(spec, 3, "column")?);
    increment_column(&table, row, column, spec.i64(4).unwrap_or(0))?;
    Ok(())
}

/// `TAppend{1:table, 2:row, 3:columns, 4:values}` → the appended cells.
fn append(service: &Service, spec: &Struct) -> CallResult {
    let table = service.table(spec, 1)?;
    let row = required(spec, 2, "row")?;
    let columns = spec.binary_list(3).unwrap_or_default();
    let values = spec.binary_list(4).unwrap_or_default();
    if columns.len() != values.len() {
        return Err(Failure::io(format!(
            "append has {} columns but {} values",
            columns.len(),
            values.len()
        )));
    }
    let mut append = Append::new(row.clone());
    for (column, value) in columns.iter().zip(values) {
        let column = Column::parse(column);
        append = append.add(column.family, column.qualifier.unwrap_or_default(), value);
    }
    let result = table.append(&append)?;
    Ok(Some(tcells(&result.cells)))
}

/// Puts `mput` if the column holds `value` (or, with `value` unset, does not exist).
fn check_and_put(table: &Arc<dyn Table>, args: &Struct) -> CallResult {
    let row = required(args, 2, "row")?;
    let column = Column::parse(required(args, 3, "column")?);
    let expected = args.binary(5).cloned();
    let mput = args
        .structure(6)
        .ok_or_else(|| Failure::illegal("missing argument mput"))?;
    let (put, _) = row_ops(row, &[Value::Struct(mput.clone())], LATEST_TIMESTAMP)?;
    let put = put.ok_or_else(|| Failure::illegal("mput must be a put"))?;
    let check = CheckAndMutate::column(
        row.clone(),
        column.family,
        column.qualifier.unwrap_or_default(),
        CompareOp::Equal,
        expected,
        Mutation::Put(put),
    )?;
    Ok(Some(Value::Bool(table.check_and_mutate(&check)?.succeeded)))
}
