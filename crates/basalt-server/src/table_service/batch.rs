//! Batch: mixed actions on many rows, each with its own result or error.
//!
//! `Batch { table, actions[], nonce_group }` → `{ results[] }`, one per action in order.
//! Actions holding an increment or append and carrying a nonce are applied at most once,
//! as in `Mutate`.
//! A malformed action fails the whole request (nothing runs); a failing action fails
//! only its own result.

use super::cells;
use super::mutate::once_per_nonce;
use crate::error::status;
use crate::shared::Shared;
use basalt_api::Result as ApiResult;
use basalt_proto::convert::batch::{action_needs_nonce, decode_action, encode_action_result};
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_types::{Action, ActionResult, Nonce};
use std::sync::Arc;
use tonic::Status;

pub async fn batch(
    shared: &Arc<Shared>,
    req: pb::BatchRequest,
) -> Result<pb::BatchResponse, Status> {
    shared.check_actions(req.actions.len())?;
    let table = decode_table(req.table).map_err(status)?;
    let actions = req
        .actions
        .into_iter()
        .map(decode_action)
        .collect::<Result<Vec<_>, _>>()
        .map_err(status)?;
    shared.check_cells(actions.iter().map(|(a, _)| cells::action(a)).sum())?;
    let group = req.nonce_group;
    let results = shared
        .run_blocking(move |s| {
            let table = s.conn.table(&table)?;
            Ok(run_actions(s, table.as_ref(), group, &actions))
        })
        .await?;
    Ok(pb::BatchResponse {
        results: results.iter().map(encode_action_result).collect(),
    })
}

/// Actions without a nonce run together in one `Table::batch`; those with one run alone,
/// under their nonce.
fn run_actions(
    shared: &Shared,
    table: &dyn basalt_api::Table,
    group: u64,
    actions: &[(Action, u64)],
) -> Vec<ApiResult<ActionResult>> {
    let plain: Vec<Action> = actions
        .iter()
        .filter(|(a, n)| !takes_nonce(a, *n))
        .map(|(a, _)| a.clone())
        .collect();
    let mut plain_results = table.batch(&plain).into_iter();
    actions
        .iter()
        .map(|(action, nonce)| {
            if takes_nonce(action, *nonce) {
                let key = Nonce::from_wire(group, *nonce);
                once_per_nonce(shared, key, |nonce| match nonce {
                    // A batch answers row mutations "done", as `Table::batch` does.
                    Some(nonce) => table.apply_once(action, nonce).map(|r| match action {
                        Action::RowMutations(_) => ActionResult::Done,
                        _ => r,
                    }),
                    None => table
                        .batch(std::slice::from_ref(action))
                        .pop()
                        .unwrap_or_else(|| Err(missing_result())),
                })
            } else {
                plain_results
                    .next()
                    .unwrap_or_else(|| Err(missing_result()))
            }
        })
        .collect()
}

fn takes_nonce(action: &Action, nonce: u64) -> bool {
    nonce != 0 && action_needs_nonce(action)
}

fn missing_result() -> basalt_api::ApiError {
    basalt_api::ApiError::new(
        basalt_api::ErrorKind::Unavailable,
        "java.io.IOException",
        "the table returned fewer results than actions",
    )
}
