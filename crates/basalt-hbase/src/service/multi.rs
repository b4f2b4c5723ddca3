//! `ClientService` Multi: actions grouped by region, each answered on its own (its result
//! or its exception), or applied atomically as one row's mutations (with a condition:
//! check-and-mutate of a row).

use super::client::Answer;
use super::client::{check_row, condition, data_region};
use super::{convert, Results, Service};
use crate::pb;
use crate::RpcError;
use basalt_api::ApiError;
use basalt_types::{Action, ActionResult, Cell, Mutation, RowMutations};
use bytes::Bytes;

fn exception(e: &RpcError) -> pb::NameBytesPair {
    pb::NameBytesPair {
        name: e.class.clone(),
        value: Some(Bytes::from(format!("{}: {}", e.class, e.message))),
    }
}

pub fn multi(
    service: &Service,
    request: pb::MultiRequest,
    cells: Vec<Cell>,
    mut out: Results,
) -> Answer {
    let mut cells = cells.into_iter();
    let mut response = pb::MultiResponse::default();
    for action in &request.region_action {
        let result = region_action(service, action, &mut cells, &mut out).unwrap_or_else(|e| {
            pb::RegionActionResult {
                exception: Some(exception(&e)),
                ..Default::default()
            }
        });
        if action.condition.is_some() {
            response.processed = result.processed;
        }
        response.region_action_result.push(result);
    }
    Ok(out.reply(response))
}

fn region_action(
    service: &Service,
    action: &pb::RegionAction,
    cells: &mut dyn Iterator<Item = Cell>,
    out_cells: &mut Results,
) -> Result<pb::RegionActionResult, RpcError> {
    let (table, region) = data_region(service, &action.region)?;
    let atomic = action.atomic.unwrap_or(false) || action.condition.is_some();
    if atomic {
        let mut mutations = Vec::new();
        for a in &action.action {
            let m = a
                .mutation
                .as_ref()
                .ok_or_else(|| RpcError::do_not_retry("an atomic region action holds a Get"))?;
            mutations.push(convert::mutation(m, cells)?);
        }
        let row = mutations
            .first()
            .map(|m| m.row().clone())
            .unwrap_or_default();
        check_row(&region, &row)?;
        let rows = RowMutations::new(row, mutations).map_err(ApiError::from)?;
        let processed = match &action.condition {
            Some(cond) => table.check_and_mutate(&condition(cond, rows)?)?.succeeded,
            None => {
                table.mutate_row(&rows)?;
                true
            }
        };
        return Ok(pb::RegionActionResult {
            result_or_exception: action
                .action
                .iter()
                .map(|a| pb::ResultOrException {
                    index: a.index,
                    result: Some(pb::Result::default()),
                    exception: None,
                })
                .collect(),
            exception: None,
            processed: Some(processed),
        });
    }
    let mut out = Vec::with_capacity(action.action.len());
    let mut batch = Vec::new();
    let mut slots = Vec::new();
    for a in &action.action {
        let converted = match (&a.get, &a.mutation) {
            (Some(get), _) => convert::get(get).map(Action::Get),
            (None, Some(m)) => convert::mutation(m, cells).map(|m| match m {
                Mutation::Put(p) => Action::Put(p),
                Mutation::Delete(d) => Action::Delete(d),
                Mutation::Increment(i) => Action::Increment(i),
                Mutation::Append(a) => Action::Append(a),
            }),
            (None, None) => Err(RpcError::do_not_retry(
                "an action with neither get nor mutation",
            )),
        };
        let converted = converted.and_then(|act| {
            check_row(&region, Action::row(&act))?;
            Ok(act)
        });
        match converted {
            Ok(act) => {
                slots.push((a.index, out.len()));
                batch.push(act);
                out.push(None);
            }
            Err(e) => out.push(Some(pb::ResultOrException {
                index: a.index,
                result: None,
                exception: Some(exception(&e)),
            })),
        }
    }
    let results = table.batch(&batch);
    for ((index, slot), result) in slots.into_iter().zip(results) {
        out[slot] = Some(match result {
            Ok(ActionResult::Row(row)) => pb::ResultOrException {
                index,
                result: Some(out_cells.result(&row)),
                exception: None,
            },
            Ok(ActionResult::Done) => pb::ResultOrException {
                index,
                result: Some(pb::Result::default()),
                exception: None,
            },
            Ok(ActionResult::CheckAndMutate { result, .. }) => pb::ResultOrException {
                index,
                result: Some(
                    result
                        .as_ref()
                        .map(|r| out_cells.result(r))
                        .unwrap_or_default(),
                ),
                exception: None,
            },
            Err(e) => pb::ResultOrException {
                index,
                result: None,
                exception: Some(exception(&e.into())),
            },
        });
    }
    Ok(pb::RegionActionResult {
        result_or_exception: out.into_iter().flatten().collect(),
        exception: None,
        processed: None,
    })
}
