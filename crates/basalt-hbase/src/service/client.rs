//! `ClientService` Get, Mutate and Multi, and finding the region a call names.
//!
//! A call names its region by full name (`table,start,id.encoded.`, as read from
//! `hbase:meta`) or by encoded name. A region that is gone (split, merged, its table
//! deleted) or closed answers `NotServingRegionException`, so clients look it up again; a
//! row outside the named region answers `WrongRegionException`. `hbase:meta,,1` is the
//! synthesized catalog ([`crate::meta`]).

use super::convert;
use super::filter;
use super::nonces;
use super::{answer, decode, unknown_or_unsupported, Answer, Service, ServiceKind};
use crate::error::WRONG_REGION;
use crate::meta::{self, MetaSnapshot};
use crate::pb;
use crate::RpcError;
use basalt_api::{ApiError, RegionReport, RegionState, Table};
use basalt_types::{
    Action, ActionResult, Cell, CheckAndMutate, Condition, Mutation, RowMutations, RowResult,
    TableName,
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

pub fn call(service: &Service, method: &str, param: &Bytes, cells: Vec<Cell>) -> Answer {
    match method {
        "Get" => get(service, decode(param, "GetRequest")?),
        "Mutate" => mutate(service, decode(param, "MutateRequest")?, cells),
        "Scan" => super::scan::scan(service, decode(param, "ScanRequest")?),
        "Multi" => multi(service, decode(param, "MultiRequest")?, cells),
        _ => Err(unknown_or_unsupported(ServiceKind::Client, method, METHODS)),
    }
}

/// The region a call names.
pub enum Target {
    Meta,
    Region {
        table: Arc<dyn Table>,
        region: Box<RegionReport>,
    },
}

fn encoded_of(name: &[u8]) -> &[u8] {
    let body = name.strip_suffix(b".").unwrap_or(name);
    match body.iter().rposition(|b| *b == b'.') {
        Some(dot) => &body[dot + 1..],
        None => body,
    }
}

fn printable(name: &[u8]) -> String {
    basalt_types::escape::to_string_binary(name)
}

pub fn resolve(service: &Service, spec: &pb::RegionSpecifier) -> Result<Target, RpcError> {
    let value = spec.value.as_ref();
    let by_name =
        spec.r#type != pb::region_specifier::RegionSpecifierType::EncodedRegionName as i32;
    if value == meta::META_REGION_NAME || value == meta::META_ENCODED_NAME {
        return Ok(Target::Meta);
    }
    let encoded = match by_name {
        true => encoded_of(value),
        false => value,
    };
    let admin = service.conn.admin();
    let tables: Vec<TableName> = match by_name {
        true => meta::table_of_region_name(value).into_iter().collect(),
        false => admin.list_tables(None)?,
    };
    for table in tables {
        let regions = match admin.list_regions(&table) {
            Ok(regions) => regions,
            Err(e) if e.kind == basalt_api::ErrorKind::NotFound => continue,
            Err(e) => return Err(e.into()),
        };
        let Some(region) = regions
            .into_iter()
            .find(|r| r.encoded_name.as_bytes() == encoded)
        else {
            continue;
        };
        if region.state != RegionState::Open {
            return Err(RpcError::not_serving(&printable(value)));
        }
        let table = service.conn.table(&table)?;
        return Ok(Target::Region {
            table,
            region: Box::new(region),
        });
    }
    Err(RpcError::not_serving(&printable(value)))
}

pub fn check_row(region: &RegionReport, row: &[u8]) -> Result<(), RpcError> {
    match region.contains(row) {
        true => Ok(()),
        false => Err(RpcError::new(
            WRONG_REGION,
            format!(
                "row {} is not in region {}",
                printable(row),
                region.region_name
            ),
            false,
        )),
    }
}

trait Contains {
    fn contains(&self, row: &[u8]) -> bool;
}

impl Contains for RegionReport {
    fn contains(&self, row: &[u8]) -> bool {
        row >= self.start_key.as_ref() && (self.end_key.is_empty() || row < self.end_key.as_ref())
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
                .filter(|c| get.columns.is_all() || get.columns.wants(&c.family, &c.qualifier))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Ok(RowResult::new(cells))
}

fn get(service: &Service, request: pb::GetRequest) -> Answer {
    let get = convert::get(&request.get)?;
    let result = match resolve(service, &request.region)? {
        Target::Meta => {
            let row = meta_row(service, &get)?;
            match get.check_existence_only {
                true => exists_only(!row.is_empty()),
                false => convert::result(&row),
            }
        }
        Target::Region { table, region } => {
            check_row(&region, &get.row)?;
            match get.check_existence_only {
                true => exists_only(table.exists(&get)?),
                false => convert::result(&table.get(&get)?),
            }
        }
    };
    answer(pb::GetResponse {
        result: Some(result),
    })
}

fn exists_only(exists: bool) -> pb::Result {
    pb::Result {
        exists: Some(exists),
        ..Default::default()
    }
}

/// The region a data call writes to: never the synthesized catalog.
fn data_region(
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

fn condition(pb: &pb::Condition, mutations: RowMutations) -> Result<CheckAndMutate, RpcError> {
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

fn mutate(service: &Service, request: pb::MutateRequest, cells: Vec<Cell>) -> Answer {
    let (table, region) = data_region(service, &request.region)?;
    let mutation = convert::mutation(&request.mutation, &mut cells.into_iter())?;
    check_row(&region, mutation.row())?;
    if let Some(cond) = &request.condition {
        let rows =
            RowMutations::new(mutation.row().clone(), vec![mutation]).map_err(ApiError::from)?;
        let outcome = table.check_and_mutate(&condition(cond, rows)?)?;
        return answer(pb::MutateResponse {
            result: outcome.result.as_ref().map(convert::result),
            processed: Some(outcome.succeeded),
        });
    }
    let returns = |r: RowResult, wanted: bool| wanted.then_some(r);
    let apply = || {
        let result = match &mutation {
            Mutation::Put(put) => table.put(put).map(|()| None)?,
            Mutation::Delete(delete) => table.delete(delete).map(|()| None)?,
            Mutation::Increment(inc) => returns(table.increment(inc)?, inc.return_results),
            Mutation::Append(append) => returns(table.append(append)?, append.return_results),
        };
        answer(pb::MutateResponse {
            result: result.as_ref().map(convert::result),
            processed: Some(true),
        })
    };
    // Only increments and appends change with each run.
    let key = match &mutation {
        Mutation::Increment(_) | Mutation::Append(_) => {
            nonces::key(request.nonce_group, request.mutation.nonce)
        }
        Mutation::Put(_) | Mutation::Delete(_) => None,
    };
    service.nonces.once(key, apply)
}

fn exception(e: &RpcError) -> pb::NameBytesPair {
    pb::NameBytesPair {
        name: e.class.clone(),
        value: Some(Bytes::from(format!("{}: {}", e.class, e.message))),
    }
}

fn multi(service: &Service, request: pb::MultiRequest, cells: Vec<Cell>) -> Answer {
    let mut cells = cells.into_iter();
    let mut response = pb::MultiResponse::default();
    for action in &request.region_action {
        let result =
            region_action(service, action, &mut cells).unwrap_or_else(|e| pb::RegionActionResult {
                exception: Some(exception(&e)),
                ..Default::default()
            });
        if action.condition.is_some() {
            response.processed = result.processed;
        }
        response.region_action_result.push(result);
    }
    answer(response)
}

fn region_action(
    service: &Service,
    action: &pb::RegionAction,
    cells: &mut dyn Iterator<Item = Cell>,
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
            check_row(&region, action_row(&act))?;
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
                result: Some(convert::result(&row)),
                exception: None,
            },
            Ok(ActionResult::Done) => pb::ResultOrException {
                index,
                result: Some(pb::Result::default()),
                exception: None,
            },
            Ok(ActionResult::CheckAndMutate { result, .. }) => pb::ResultOrException {
                index,
                result: Some(result.as_ref().map(convert::result).unwrap_or_default()),
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

fn action_row(action: &Action) -> &[u8] {
    match action {
        Action::Get(g) => &g.row,
        Action::Put(p) => &p.row,
        Action::Delete(d) => &d.row,
        Action::Increment(i) => &i.row,
        Action::Append(a) => &a.row,
        Action::RowMutations(r) => &r.row,
        Action::CheckAndMutate(c) => &c.row,
    }
}
