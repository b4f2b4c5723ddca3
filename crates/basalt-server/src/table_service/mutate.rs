//! Single mutations: Mutate, MutateMany, MutateRow and CheckAndMutate.
//!
//! `Mutate { table, mutation, nonce_group, nonce }` applies one put, delete, increment or
//! append. A mutation with a non-zero nonce is applied at most once: a retry with the same
//! `(nonce_group, nonce)` gets the first call's result (see [`crate::nonce`]); so is
//! `MutateRow` when its mutations hold an increment or append, and every
//! `CheckAndMutate`. The nonce is also logged with the edit, so a retry after the region
//! moved is recognised by its next server (a put or delete is answered "done" there). `MutateMany` applies puts or deletes of many rows in order and stops
//! at the first failure, like `Table::put_many`.

use super::cells;
use crate::error::{invalid, status};
use crate::nonce::Begin;
use crate::shared::Shared;
use basalt_api::{ApiError, ErrorKind, Result as ApiResult, Table};
use basalt_proto::convert::batch::mutations_need_nonce;
use basalt_proto::convert::required;
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_proto::status::OPERATION_CONFLICT;
use basalt_types::{
    Action, ActionResult, CheckAndMutate, Delete, Mutation, Nonce, Put, RowMutations, RowResult,
};
use std::sync::Arc;
use tonic::Status;

/// Runs `op` once per nonce: a repeat gets the recorded result. `op` is given the nonce to
/// pass on to [`Table::apply_once`], which logs it with the edit, so that a retry reaching
/// the region's next server (after a crash) is not applied there again either.
pub fn once_per_nonce(
    shared: &Shared,
    key: Option<Nonce>,
    op: impl FnOnce(Option<Nonce>) -> ApiResult<ActionResult>,
) -> ApiResult<ActionResult> {
    let Some(key) = key else {
        return op(None);
    };
    match shared.nonces.begin(key) {
        Begin::Done(result) => Ok(result),
        Begin::Running => Err(ApiError::new(
            ErrorKind::Busy,
            OPERATION_CONFLICT,
            "the same operation (nonce) is still running",
        )),
        Begin::Run => match op(Some(key)) {
            Ok(result) => {
                shared.nonces.finish(key, result.clone());
                Ok(result)
            }
            Err(e) => {
                shared.nonces.forget(key);
                Err(e)
            }
        },
    }
}

/// `action` under `nonce` when there is one, else `plain`.
pub(crate) fn run_once(
    table: &dyn Table,
    action: impl FnOnce() -> Action,
    nonce: Option<Nonce>,
    plain: impl FnOnce() -> ApiResult<ActionResult>,
) -> ApiResult<ActionResult> {
    match nonce {
        Some(nonce) => table.apply_once(&action(), nonce),
        None => plain(),
    }
}

fn apply(table: &dyn Table, mutation: &Mutation) -> ApiResult<ActionResult> {
    Ok(match mutation {
        Mutation::Put(p) => {
            table.put(p)?;
            ActionResult::Done
        }
        Mutation::Delete(d) => {
            table.delete(d)?;
            ActionResult::Done
        }
        Mutation::Increment(i) => ActionResult::Row(table.increment(i)?),
        Mutation::Append(a) => ActionResult::Row(table.append(a)?),
    })
}

pub async fn mutate(
    shared: &Arc<Shared>,
    req: pb::MutateRequest,
) -> Result<pb::MutateResponse, Status> {
    let table = decode_table(req.table).map_err(status)?;
    let mutation =
        Mutation::try_from(required(req.mutation, "mutation").map_err(status)?).map_err(status)?;
    shared.check_cells(cells::mutation(&mutation))?;
    // Every kind: a put or a delete applied twice is as wrong as an increment (see
    // `Region::apply_once`). A client that sends no nonce (0) gets the plain path.
    let key = Nonce::from_wire(req.nonce_group, req.nonce);
    let region = req.region;
    let outcome = shared
        .run_blocking(move |s| {
            s.check_region(&table, mutation.row(), &region)?;
            let table = s.conn.table(&table)?;
            once_per_nonce(s, key, |nonce| {
                let action = || match mutation.clone() {
                    Mutation::Increment(i) => Action::Increment(i),
                    Mutation::Append(a) => Action::Append(a),
                    Mutation::Put(p) => Action::Put(p),
                    Mutation::Delete(d) => Action::Delete(d),
                };
                run_once(table.as_ref(), action, nonce, || {
                    apply(table.as_ref(), &mutation)
                })
            })
        })
        .await?;
    let result = match outcome {
        ActionResult::Row(row) => Some(row.into()),
        _ => None,
    };
    Ok(pb::MutateResponse { result })
}

pub async fn mutate_many(
    shared: &Arc<Shared>,
    req: pb::MutateManyRequest,
) -> Result<pb::MutateManyResponse, Status> {
    let table = decode_table(req.table).map_err(status)?;
    shared.check_actions(req.puts.len() + req.deletes.len())?;
    if !req.puts.is_empty() && !req.deletes.is_empty() {
        return Err(invalid("MutateMany takes puts or deletes, not both"));
    }
    let puts = req
        .puts
        .into_iter()
        .map(Put::try_from)
        .collect::<Result<Vec<_>, _>>()
        .map_err(status)?;
    let deletes = req
        .deletes
        .into_iter()
        .map(Delete::try_from)
        .collect::<Result<Vec<_>, _>>()
        .map_err(status)?;
    let cell_count = puts.iter().map(|p| p.cells.len()).sum::<usize>()
        + deletes.iter().map(|d| d.specs.len().max(1)).sum::<usize>();
    shared.check_cells(cell_count)?;
    shared
        .run_blocking(move |s| {
            let table = s.conn.table(&table)?;
            if puts.is_empty() {
                table.delete_many(&deletes)
            } else {
                table.put_many(&puts)
            }
        })
        .await?;
    Ok(pb::MutateManyResponse {})
}

pub async fn mutate_row(
    shared: &Arc<Shared>,
    req: pb::MutateRowRequest,
) -> Result<pb::RowResult, Status> {
    let table = decode_table(req.table).map_err(status)?;
    let mutations = RowMutations::try_from(required(req.mutations, "mutations").map_err(status)?)
        .map_err(status)?;
    shared.check_cells(cells::row_mutations(&mutations))?;
    let key = mutations_need_nonce(&mutations)
        .then(|| Nonce::from_wire(req.nonce_group, req.nonce))
        .flatten();
    let region = req.region;
    let outcome = shared
        .run_blocking(move |s| {
            s.check_region(&table, &mutations.row, &region)?;
            let table = s.conn.table(&table)?;
            once_per_nonce(s, key, |nonce| {
                let action = || Action::RowMutations(mutations.clone());
                run_once(table.as_ref(), action, nonce, || {
                    table.mutate_row(&mutations).map(ActionResult::Row)
                })
            })
        })
        .await?;
    let result = match outcome {
        ActionResult::Row(row) => row,
        _ => RowResult::default(),
    };
    Ok(result.into())
}

pub async fn check_and_mutate(
    shared: &Arc<Shared>,
    req: pb::CheckAndMutateRequest,
) -> Result<pb::CheckAndMutateResult, Status> {
    let table = decode_table(req.table).map_err(status)?;
    let check =
        CheckAndMutate::try_from(required(req.check, "check").map_err(status)?).map_err(status)?;
    shared.check_cells(cells::row_mutations(&check.mutations))?;
    // Even with puts only, a retried check-and-mutate that was applied would answer
    // "not applied" the second time: every one carries a nonce.
    let key = Nonce::from_wire(req.nonce_group, req.nonce);
    let region = req.region;
    let outcome = shared
        .run_blocking(move |s| {
            s.check_region(&table, &check.row, &region)?;
            let table = s.conn.table(&table)?;
            once_per_nonce(s, key, |nonce| {
                let action = || Action::CheckAndMutate(check.clone());
                run_once(table.as_ref(), action, nonce, || {
                    let r = table.check_and_mutate(&check)?;
                    Ok(ActionResult::CheckAndMutate {
                        succeeded: r.succeeded,
                        result: r.result,
                    })
                })
            })
        })
        .await?;
    let (succeeded, result) = match outcome {
        ActionResult::CheckAndMutate { succeeded, result } => (succeeded, result),
        _ => (false, None),
    };
    Ok(pb::CheckAndMutateResult {
        succeeded,
        result: result.map(Into::into),
    })
}
