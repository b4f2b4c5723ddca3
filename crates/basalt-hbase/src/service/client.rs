//! `ClientService`: Get and Mutate here, Scan in [`super::scan`], Multi in
//! [`super::multi`]; the region a call names is found by [`super::region`].
//! `hbase:meta,,1` is the synthesized catalog ([`crate::meta`]): readable, never written.

use super::convert;
use super::filter;
use super::nonces;
pub use super::region::{check_row, resolve, Target};
use super::{decode, unknown_or_unsupported, CallContext, Reply, Results, Service, ServiceKind};
use crate::meta::{self, MetaSnapshot};
use crate::pb;
use crate::RpcError;
use basalt_api::{ApiError, RegionReport, Table};
use basalt_types::{
    Action, ActionResult, Cell, CheckAndMutate, Condition, Mutation, RowMutations, RowResult,
};
use bytes::Bytes;
use std::sync::Arc;

const METHODS: &[&str] = &[
    "Get",
    "Mutate",
    "Scan",
    "BulkLoadHFile",
    "PrepareBulkLoad",
    "CleanupBulkLoad",
    "ExecService",
    "ExecRegionServerService",
    "Multi",
];

/// A data call's answer: its message and the cell block of its results.
pub type Answer = Result<Reply, RpcError>;

pub fn call(
    service: &Service,
    method: &str,
    param: &Bytes,
    cells: Vec<Cell>,
    ctx: CallContext,
) -> Answer {
    let out = Results::for_codec(ctx.codec);
    match method {
        "Get" => get(service, decode(param, "GetRequest")?, out),
        "Mutate" => mutate(service, decode(param, "MutateRequest")?, cells, out),
        "Scan" => super::scan::scan(service, decode(param, "ScanRequest")?, out, ctx),
        "Multi" => super::multi::multi(service, decode(param, "MultiRequest")?, cells, out),
        _ => Err(unknown_or_unsupported(ServiceKind::Client, method, METHODS)),
    }
}

/// A meta row's cells that `get` selects.
fn meta_row(service: &Service, get: &basalt_types::Get) -> Result<RowResult, RpcError> {
    // A row of meta is about one table: read that table alone.
    let tables: Vec<_> = meta::table_of_meta_row(&get.row).into_iter().collect();
    let snapshot =
        MetaSnapshot::read_tables(service.conn.as_ref(), service.topology.as_ref(), &tables)?;
    let cells = snapshot
        .rows
        .get(&get.row)
        .map(|cells| {
            cells
                .iter()
                .filter(|c| get.columns.is_all() || get.columns.wants(c.family(), c.qualifier()))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Ok(RowResult::new(cells))
}

fn get(service: &Service, request: pb::GetRequest, mut out: Results) -> Answer {
    let get = convert::get(&request.get)?;
    let result = match resolve(service, &request.region)? {
        Target::Meta => {
            let row = meta_row(service, &get)?;
            match get.check_existence_only {
                true => exists_only(!row.is_empty()),
                false => out.result(&row),
            }
        }
        Target::Region { table, region } => {
            check_row(&region, &get.row)?;
            match get.check_existence_only {
                true => exists_only(table.exists(&get)?),
                false => out.result(&table.get(&get)?),
            }
        }
    };
    Ok(out.reply(pb::GetResponse {
        result: Some(result),
    }))
}

fn exists_only(exists: bool) -> pb::Result {
    pb::Result {
        exists: Some(exists),
        ..Default::default()
    }
}

/// The region a data call writes to: never the synthesized catalog.
pub(crate) fn data_region(
    service: &Service,
    spec: &pb::RegionSpecifier,
) -> Result<(Arc<dyn Table>, RegionReport), RpcError> {
    match resolve(service, spec)? {
        Target::Region { table, region } => Ok((table, *region)),
        Target::Meta => Err(RpcError::do_not_retry(
            "hbase:meta is read-only in Basalt: it is synthesized from the catalog",
        )),
    }
}

pub(crate) fn condition(
    pb: &pb::Condition,
    mutations: RowMutations,
) -> Result<CheckAndMutate, RpcError> {
    let condition = match (&pb.filter, &pb.comparator) {
        (Some(f), _) => Condition::Filter(filter::spec(f)?),
        (None, Some(c)) => {
            let expected = match filter::comparator(c)? {
                basalt_types::filter_spec::Comparator::Binary(v) => Some(v),
                basalt_types::filter_spec::Comparator::Null => None,
                _ => {
                    return Err(RpcError::do_not_retry(format!(
                        "a check-and-mutate condition with {} is not supported by Basalt",
                        c.name
                    )))
                }
            };
            Condition::Column {
                family: pb.family.clone().unwrap_or_default(),
                qualifier: pb.qualifier.clone().unwrap_or_default(),
                op: filter::compare_op(pb.compare_type.unwrap_or(pb::CompareType::Equal as i32))?,
                expected,
            }
        }
        (None, None) => {
            return Err(RpcError::do_not_retry(
                "a condition without a comparator or filter",
            ))
        }
    };
    Ok(CheckAndMutate {
        row: pb.row.clone(),
        condition,
        time_range: convert::time_range(pb.time_range.as_ref())?,
        mutations,
    })
}

fn mutate(
    service: &Service,
    request: pb::MutateRequest,
    cells: Vec<Cell>,
    mut out: Results,
) -> Answer {
    let (table, region) = data_region(service, &request.region)?;
    let mutation = convert::mutation(&request.mutation, &mut cells.into_iter())?;
    check_row(&region, mutation.row())?;
    if let Some(cond) = &request.condition {
        let rows =
            RowMutations::new(mutation.row().clone(), vec![mutation]).map_err(ApiError::from)?;
        let outcome = table.check_and_mutate(&condition(cond, rows)?)?;
        let result = outcome.result.as_ref().map(|r| out.result(r));
        return Ok(out.reply(pb::MutateResponse {
            result,
            processed: Some(outcome.succeeded),
        }));
    }
    // Only increments and appends change with each run.
    let key = match &mutation {
        Mutation::Increment(_) | Mutation::Append(_) => {
            nonces::key(request.nonce_group, request.mutation.nonce)
        }
        Mutation::Put(_) | Mutation::Delete(_) => None,
    };
    let returns = |r: RowResult, wanted: bool| wanted.then_some(r);
    let apply = || {
        let result = match &mutation {
            Mutation::Put(put) => table.put(put).map(|()| None)?,
            Mutation::Delete(delete) => table.delete(delete).map(|()| None)?,
            Mutation::Increment(inc) => {
                let done = match key {
                    Some(nonce) => {
                        row_of(table.apply_once(&Action::Increment(inc.clone()), nonce)?)
                    }
                    None => table.increment(inc)?,
                };
                returns(done, inc.return_results)
            }
            Mutation::Append(append) => {
                let done = match key {
                    Some(nonce) => {
                        row_of(table.apply_once(&Action::Append(append.clone()), nonce)?)
                    }
                    None => table.append(append)?,
                };
                returns(done, append.return_results)
            }
        };
        let mut out = out.clone();
        let result = result.as_ref().map(|r| out.result(r));
        Ok(out.reply(pb::MutateResponse {
            result,
            processed: Some(true),
        }))
    };
    service.nonces.once(key, apply)
}

/// The row an applied increment or append answered.
fn row_of(result: ActionResult) -> RowResult {
    match result {
        ActionResult::Row(row) => row,
        _ => RowResult::default(),
    }
}
