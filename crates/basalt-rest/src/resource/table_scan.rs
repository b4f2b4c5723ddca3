//! The stateless scan: `GET /<table>/<prefix>*` (`*` alone: the whole table) with
//! parameters `startrow`, `endrow`, `column` (repeatable), `starttime`, `endtime`,
//! `maxversions`, `limit`, `reversed`, `cacheblocks` and `filter` (a filter-language
//! string, e.g. `PrefixFilter('a')`). Returns one cell set.

use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, Gateway, Request};
use crate::model::cell_set::CellSet;
use crate::model::scanner::add_column;
use crate::repr::{negotiate, MODELS};
use crate::resource::rows::collect;
use crate::url::percent_decode;
use axum::response::Response;
use basalt_types::{Scan, TableName, TimeRange};
use bytes::Bytes;
use std::sync::Arc;

pub async fn get(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    raw: &str,
) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS)?;
    let scan = scan_of(req, raw)?;
    let handle = gw.table(table).await?;
    let cells_max = gw.config.response_cells_max;
    let rows = blocking(move || collect(handle.scan(&scan)?, cells_max)).await?;
    Ok(ok(&CellSet::from_results(&rows), media))
}

fn scan_of(req: &Request, raw: &str) -> Result<Scan> {
    let prefix_raw = raw.strip_suffix('*').unwrap_or(raw);
    if prefix_raw.contains('/') {
        return Err(RestError::bad(format!(
            "a scan names rows by '<prefix>*' only, not '{raw}'"
        )));
    }
    let prefix = Bytes::from(percent_decode(prefix_raw, false)?);
    let q = &req.query;
    let mut scan = if prefix.is_empty() {
        Scan::new()
    } else {
        Scan::new().prefix(prefix)
    };
    if let Some(start) = q.get("startrow") {
        scan.start_row = Bytes::copy_from_slice(start);
    }
    if let Some(end) = q.get("endrow") {
        scan.stop_row = Bytes::copy_from_slice(end);
    }
    for column in q.all("column") {
        add_column(&mut scan, column)?;
    }
    let start = q.number::<i64>("starttime")?.unwrap_or(0);
    let end = q.number::<i64>("endtime")?.unwrap_or(i64::MAX);
    if start != 0 || end != i64::MAX {
        scan.time_range = TimeRange::new(start, end)?;
    }
    if let Some(v) = q.number::<u32>("maxversions")? {
        if v == 0 {
            return Err(RestError::bad("maxversions must be positive"));
        }
        scan.max_versions = v;
    }
    if let Some(limit) = q.number::<u64>("limit")? {
        scan.limit = Some(limit);
    }
    if let Some(batch) = q.number::<u32>("batchsize")? {
        if batch == 0 {
            return Err(RestError::bad("batchsize must be positive"));
        }
        scan.caching = Some(batch);
    }
    scan.reversed = q.flag("reversed")?.unwrap_or(false);
    scan.cache_blocks = q.flag("cacheblocks")?.unwrap_or(true);
    // The filter is bytes once percent-decoded (`%82` is the byte 0x82), as the filter
    // strings of HBase's shell and Thrift gateway are.
    if let Some(filter) = q.get("filter").filter(|f| !f.trim_ascii().is_empty()) {
        let spec = basalt_filter::parse(filter).map_err(|e| {
            let shown = basalt_types::escape::to_string_binary(filter);
            RestError::bad(format!("bad filter '{shown}': {e}"))
        })?;
        scan.filter = Some(spec);
    }
    Ok(scan)
}
