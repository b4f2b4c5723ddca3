//! Get and MultiGet: read rows by key.
//!
//! `Get { table, get }` → `{ result }`; `MultiGet { table, gets[] }` → `{ results[] }` in
//! the order of the gets. An existence-only get answers in `result.exists`.
//!
//! A get reads one row: it runs inline on the async thread (see [`crate::shared`]); a
//! multi-get may read thousands and runs on a blocking thread.

use crate::error::status;
use crate::shared::Shared;
use basalt_proto::convert::required;
use basalt_proto::convert::schema::decode_table;
use basalt_proto::pb;
use basalt_types::Get;
use std::sync::Arc;
use tonic::Status;

pub fn get(shared: &Shared, req: pb::GetRequest) -> Result<pb::GetResponse, Status> {
    let table = decode_table(req.table).map_err(status)?;
    let get = Get::try_from(required(req.get, "get").map_err(status)?).map_err(status)?;
    let result = shared.run_inline(|s| {
        s.check_region(&table, &get.row, &req.region)?;
        s.conn.table(&table)?.get(&get)
    })?;
    Ok(pb::GetResponse {
        result: Some(result.into()),
    })
}

pub async fn multi_get(
    shared: &Arc<Shared>,
    req: pb::MultiGetRequest,
) -> Result<pb::MultiGetResponse, Status> {
    shared.check_actions(req.gets.len())?;
    let table = decode_table(req.table).map_err(status)?;
    let gets = req
        .gets
        .into_iter()
        .map(Get::try_from)
        .collect::<Result<Vec<_>, _>>()
        .map_err(status)?;
    let results = shared
        .run_blocking(move |s| s.conn.table(&table)?.get_many(&gets))
        .await?;
    Ok(pb::MultiGetResponse {
        results: results.into_iter().map(Into::into).collect(),
    })
}
