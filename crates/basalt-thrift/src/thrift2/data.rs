//! `THBaseService`'s data methods.
//!
//! | method | arguments (id) |
//! |---|---|
//! | `exists` / `get` | table 1, TGet 2 |
//! | `existsAll` / `getMultiple` | table 1, `list<TGet>` 2 |
//! | `put` / `putMultiple` | table 1, TPut 2 / list 2 |
//! | `deleteSingle` / `deleteMultiple` | table 1, TDelete 2 / list 2 |
//! | `checkAndPut` / `checkAndDelete` | table 1, row 2, family 3, qualifier 4, value 5, TPut/TDelete 6 |
//! | `checkAndMutate` | table 1, row 2, family 3, qualifier 4, compareOperator 5, value 6, TRowMutations 7 |
//! | `mutateRow` | table 1, TRowMutations 2 |
//! | `increment` / `append` | table 1, TIncrement/TAppend 2 |
//! | `openScanner` | table 1, TScan 2 |
//! | `getScannerRows` | scannerId 1, numRows 2 (default 1) |
//! | `closeScanner` | scannerId 1 |
//! | `getScannerResults` | table 1, TScan 2, numRows 3 (default 1) |
//!
//! `deleteMultiple` answers the deletes that failed: none, as a failure fails the call. An
//! unset check value means "the column does not exist".

use super::{convert, mutations};
use crate::protocol::{Struct, TType, Value};
use crate::scanners::OpenScanner;
use crate::service::{table_name, CallResult, Failure, Service};
use basalt_api::Table;
use basalt_types::{CheckAndMutate, CompareOp, Mutation};
use std::sync::Arc;

/// The most rows one `getScannerRows` or `getScannerResults` returns, whatever it asks for.
const ROWS_PER_CALL_MAX: usize = 100_000;

pub const METHODS: &[&str] = &[
    "exists",
    "existsAll",
    "get",
    "getMultiple",
    "put",
    "putMultiple",
    "deleteSingle",
    "deleteMultiple",
    "checkAndPut",
    "checkAndDelete",
    "checkAndMutate",
    "mutateRow",
    "increment",
    "append",
    "openScanner",
    "getScannerRows",
    "closeScanner",
    "getScannerResults",
];

fn table(service: &Service, args: &Struct) -> Result<Arc<dyn Table>, Failure> {
    Ok(service.conn.table(&table_name(args, 1)?)?)
}

fn arg<'a>(args: &'a Struct, id: i16, what: &str) -> Result<&'a Struct, Failure> {
    args.structure(id)
        .ok_or_else(|| Failure::illegal(format!("missing argument {what}")))
}

fn each<'a, T>(
    args: &'a Struct,
    id: i16,
    what: &str,
    convert: impl Fn(&'a Struct) -> Result<T, Failure>,
) -> Result<Vec<T>, Failure> {
    args.list(id)
        .ok_or_else(|| Failure::illegal(format!("missing argument {what}")))?
        .iter()
        .map(|v| {
            v.as_struct()
                .ok_or_else(|| Failure::illegal(format!("{what} must hold structs")))
                .and_then(&convert)
        })
        .collect()
}

pub(super) fn call(service: &Service, session: u64, name: &str, args: &Struct) -> CallResult {
    match name {
        "getScannerRows" => {
            let id = args
                .i32(1)
                .ok_or_else(|| Failure::illegal("missing argument scannerId"))?;
            let wanted = rows_wanted(args.i32(2));
            let scanner = service.scanners.get(session, id)?;
            let mut scanner = scanner.lock();
            let mut rows = Vec::new();
            while rows.len() < wanted {
                match scanner.rows.next() {
                    Some(result) => rows.push(result?),
                    None => break,
                }
            }
            return Ok(Some(convert::results(&rows)));
        }
        "closeScanner" => {
            let id = args
                .i32(1)
                .ok_or_else(|| Failure::illegal("missing argument scannerId"))?;
            service.scanners.close(session, id)?;
            return Ok(None);
        }
        _ => {}
    }
    let table = table(service, args)?;
    match name {
        "exists" => {
            let get = convert::get(arg(args, 2, "tget")?)?;
            Ok(Some(Value::Bool(table.exists(&get)?)))
        }
        "existsAll" => {
            let gets = each(args, 2, "tgets", convert::get)?;
            let mut found = Vec::with_capacity(gets.len());
            for get in &gets {
                found.push(Value::Bool(table.exists(get)?));
            }
            Ok(Some(Value::List(TType::Bool, found)))
        }
        "get" => {
            let get = convert::get(arg(args, 2, "tget")?)?;
            Ok(Some(convert::result(&table.get(&get)?)))
        }
        "getMultiple" => {
            let gets = each(args, 2, "tgets", convert::get)?;
            Ok(Some(convert::results(&table.get_many(&gets)?)))
        }
        "put" => {
            table.put(&mutations::put(arg(args, 2, "tput")?)?)?;
            Ok(None)
        }
        "putMultiple" => {
            let puts = each(args, 2, "tputs", mutations::put)?;
            if !puts.is_empty() {
                table.put_many(&puts)?;
            }
            Ok(None)
        }
        "deleteSingle" => {
            table.delete(&mutations::delete(arg(args, 2, "tdelete")?)?)?;
            Ok(None)
        }
        "deleteMultiple" => {
            let deletes = each(args, 2, "tdeletes", mutations::delete)?;
            if !deletes.is_empty() {
                table.delete_many(&deletes)?;
            }
            Ok(Some(Value::List(TType::Struct, Vec::new())))
        }
        "checkAndPut" | "checkAndDelete" => {
            let mutation = match name {
                "checkAndPut" => Mutation::Put(mutations::put(arg(args, 6, "tput")?)?),
                _ => Mutation::Delete(mutations::delete(arg(args, 6, "tdelete")?)?),
            };
            check(
                &table,
                args,
                CompareOp::Equal,
                args.binary(5).cloned(),
                |check| {
                    check.mutations.mutations = vec![mutation];
                    Ok(())
                },
            )
        }
        "checkAndMutate" => {
            let op = convert::compare_op(args.i32(5))?;
            let mutations = mutations::row_mutations(arg(args, 7, "rowMutations")?)?;
            check(&table, args, op, args.binary(6).cloned(), |check| {
                check.mutations = mutations;
                Ok(())
            })
        }
        "mutateRow" => {
            let mutations = mutations::row_mutations(arg(args, 2, "trowMutations")?)?;
            table.mutate_row(&mutations)?;
            Ok(None)
        }
        "increment" => {
            let increment = mutations::increment(arg(args, 2, "tincrement")?)?;
            Ok(Some(convert::result(&table.increment(&increment)?)))
        }
        "append" => {
            let append = mutations::append(arg(args, 2, "tappend")?)?;
            Ok(Some(convert::result(&table.append(&append)?)))
        }
        "openScanner" => {
            let scan = convert::scan(arg(args, 2, "tscan")?)?;
            let rows = table.scan(&scan)?;
            let id = service.scanners.open(
                session,
                OpenScanner {
                    rows,
                    sort_columns: false,
                },
            )?;
            Ok(Some(Value::I32(id)))
        }
        "getScannerResults" => {
            let wanted = rows_wanted(args.i32(3));
            let scan = convert::scan(arg(args, 2, "tscan")?)?.limit(wanted as u64);
            let mut rows = Vec::new();
            for result in table.scan(&scan)?.take(wanted) {
                rows.push(result?);
            }
            Ok(Some(convert::results(&rows)))
        }
        _ => Err(Failure::UnknownMethod),
    }
}

/// `numRows`, defaulting to 1 and capped.
fn rows_wanted(asked: Option<i32>) -> usize {
    usize::try_from(asked.unwrap_or(1))
        .unwrap_or(0)
        .min(ROWS_PER_CALL_MAX)
}

/// A check on `family 3 : qualifier 4` of `row 2` with the mutations `fill` sets.
fn check(
    table: &Arc<dyn Table>,
    args: &Struct,
    op: CompareOp,
    expected: Option<bytes::Bytes>,
    fill: impl FnOnce(&mut CheckAndMutate) -> Result<(), Failure>,
) -> CallResult {
    let row = args
        .binary(2)
        .ok_or_else(|| Failure::illegal("missing argument row"))?;
    let family = args
        .binary(3)
        .ok_or_else(|| Failure::illegal("missing argument family"))?;
    let qualifier = args
        .binary(4)
        .ok_or_else(|| Failure::illegal("missing argument qualifier"))?;
    // Built with a placeholder, then given the real mutations (whose rows must match).
    let placeholder = Mutation::Delete(basalt_types::Delete::new(row.clone()));
    let mut check = CheckAndMutate::column(
        row.clone(),
        family.clone(),
        qualifier.clone(),
        op,
        expected,
        placeholder,
    )?;
    fill(&mut check)?;
    if let Some(other) = check.mutations.mutations.iter().find(|m| m.row() != row) {
        return Err(Failure::io(format!(
            "the mutation's row {:?} is not the checked row {:?}",
            String::from_utf8_lossy(other.row()),
            String::from_utf8_lossy(row)
        )));
    }
    if check.mutations.row != *row {
        return Err(Failure::io("the row mutations' row is not the checked row"));
    }
    Ok(Some(Value::Bool(table.check_and_mutate(&check)?.succeeded)))
}
