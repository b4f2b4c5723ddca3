//! Single mutations: Mutate, MutateMany, MutateRow and CheckAndMutate.
//!
//! `Mutate { table, mutation, nonce_group, nonce }` applies one put, delete, increment or
//! append. An increment or append with a non-zero nonce is applied at most once: a retry
//! with the same `(nonce_group, nonce)` gets the first call's result (see
//! [`crate::nonce`]); so are `MutateRow` and `CheckAndMutate` when their mutations hold
//! one. `MutateMany` applies puts or deletes of many rows in order and stops
//! at the first failure, like `Table::put_many`.

use super::cells;
use crate::error::{invalid, status};
use crate::nonce::{Begin, NonceKey};
use crate::shared::Shared;
use basalt_api::{ApiError, ErrorKind, Result as ApiResult, Table};
use basalt_proto::convert::batch::mutations_need_nonce;
use basalt_proto::convert::required;
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_proto::status::OPERATION_CONFLICT;
use basalt_types::{ActionResult, CheckAndMutate, Delete, Mutation, Put, RowMutations, RowResult};
use std::sync::Arc;
use tonic::Status;

/// Runs `op` once per nonce: a repeat gets the recorded result.
pub fn once_per_nonce(
    shared: &Shared,
    key: Option<NonceKey>,
    op: impl FnOnce() -> ApiResult<ActionResult>,
) -> ApiResult<ActionResult> {
    let Some(key) = key else {
        return op();
    };
    match shared.nonces.begin(key) {
        Begin::Done(result) => Ok(result),
        Begin::Running => Err(ApiError::new(
            ErrorKind::Busy,
            OPERATION_CONFLICT,
            "the same operation (nonce) is still running",
        )),
        Begin::Run => match op() {
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

pub(crate) fn nonce_key(group: u64, nonce: u64) -> Option<NonceKey> {
    (nonce != 0).then_some((group, nonce))
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
    let key = match mutation {
        Mutation::Increment(_) | Mutation::Append(_) => nonce_key(req.nonce_group, req.nonce),
        _ => None,
    };
    let region = req.region;
    let outcome = shared
        .run_blocking(move |s| {
            s.check_region(&table, mutation.row(), &region)?;
            let table = s.conn.table(&table)?;
            once_per_nonce(s, key, || apply(table.as_ref(), &mutation))
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
        .then(|| nonce_key(req.nonce_group, req.nonce))
        .flatten();
    let region = req.region;
    let outcome = shared
        .run_blocking(move |s| {
            s.check_region(&table, &mutations.row, &region)?;
            let table = s.conn.table(&table)?;
            once_per_nonce(s, key, || {
                table.mutate_row(&mutations).map(ActionResult::Row)
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
    let key = mutations_need_nonce(&check.mutations)
        .then(|| nonce_key(req.nonce_group, req.nonce))
        .flatten();
    let region = req.region;
    let outcome = shared
        .run_blocking(move |s| {
            s.check_region(&table, &check.row, &region)?;
            let table = s.conn.table(&table)?;
            once_per_nonce(s, key, || {
                let r = table.check_and_mutate(&check)?;
                Ok(ActionResult::CheckAndMutate {
                    succeeded: r.succeeded,
                    result: r.result,
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
