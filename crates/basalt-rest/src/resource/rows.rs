//! `GET /<table>/<row spec>` reads a row or a range of rows; `DELETE` deletes a row or
//! some of its columns.
//!
//! A GET with `Accept: application/octet-stream` returns the raw value of one cell with
//! its timestamp in `X-Timestamp`; the spec must name exactly one column.
//! DELETE maps as HBase's: no columns → the whole row; `f` → DeleteFamily; `f:q` →
//! DeleteColumn (every version); a `/<ts>` limits either to versions ≤ ts.

use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, status, Gateway, Request};
use crate::model::cell_set::CellSet;
use crate::repr::{negotiate, Media, CELLS};
use crate::rowspec::{ColumnSpec, RowSpec, RowsSpec, TimeSpec};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use basalt_types::{
    Delete, DeleteSpec, Get, RowResult, Scan, TableName, TimeRange, LATEST_TIMESTAMP,
};
use std::sync::Arc;

/// The time range a spec reads. One timestamp reads `[0, ts)`: HBase's `RowSpec` takes a
/// lone timestamp as the end time and its `RowResultGenerator` reads
/// `setTimeRange(startTime = 0, endTime)`, so the version at `ts` itself is not read.
pub fn time_range(time: Option<TimeSpec>) -> Result<TimeRange> {
    Ok(match time {
        None => TimeRange::ALL,
        Some(TimeSpec::At(ts)) => TimeRange::new(0, ts)?,
        Some(TimeSpec::Range { start, end }) => TimeRange::new(start, end)?,
    })
}

/// The get of one row with the spec's columns, time and versions.
pub fn get_of(row: bytes::Bytes, spec: &RowSpec) -> Result<Get> {
    let mut get = Get::new(row)
        .versions(spec.max_versions.unwrap_or(1))
        .time_range(time_range(spec.time)?);
    for ColumnSpec { family, qualifier } in &spec.columns {
        match qualifier {
            Some(q) => get.columns.add_column(family.clone(), q.clone()),
            None => get.columns.add_family(family.clone()),
        }
    }
    Ok(get)
}

fn scan_of(spec: &RowSpec) -> Result<Scan> {
    let mut scan = match &spec.rows {
        RowsSpec::One(row) => Scan::from_get(&get_of(row.clone(), spec)?),
        RowsSpec::Range { start, end } => Scan::new().start(start.clone()).stop(end.clone()),
        RowsSpec::Prefix(prefix) => Scan::new().prefix(prefix.clone()),
    };
    scan.max_versions = spec.max_versions.unwrap_or(1);
    scan.time_range = time_range(spec.time)?;
    for ColumnSpec { family, qualifier } in &spec.columns {
        match qualifier {
            Some(q) => scan.columns.add_column(family.clone(), q.clone()),
            None => scan.columns.add_family(family.clone()),
        }
    }
    Ok(scan)
}

/// Rows of a scan, failing past `cells_max` cells.
pub fn collect(
    rows: impl Iterator<Item = basalt_api::Result<RowResult>>,
    cells_max: usize,
) -> Result<Vec<RowResult>> {
    let mut out = Vec::new();
    let mut cells = 0usize;
    for row in rows {
        let row = row?;
        cells += row.cells.len();
        if cells > cells_max {
            return Err(RestError::bad(format!(
                "the answer holds more than {cells_max} cells; narrow the request or use a scanner"
            )));
        }
        out.push(row);
    }
    Ok(out)
}

pub async fn get(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    raw: &str,
) -> Result<Response> {
    let spec = RowSpec::parse(raw, req.query.text("v")?)?;
    let media = negotiate(&req.headers, CELLS)?;
    if media == Media::Octet && (spec.single_row().is_none() || spec.columns.len() != 1) {
        return Err(RestError::bad(
            "an octet-stream GET names one row and exactly one column",
        ));
    }
    let handle = gw.table(table).await?;
    let cells_max = gw.config.response_cells_max;
    let rows = blocking(move || match spec.single_row() {
        Some(row) => Ok(vec![handle.get(&get_of(row.clone(), &spec)?)?]),
        None => collect(handle.scan(&scan_of(&spec)?)?, cells_max),
    })
    .await?;
    let set = CellSet::from_results(rows.iter().filter(|r| !r.is_empty()));
    if set.rows.is_empty() {
        return Err(RestError::NotFound(String::new()));
    }
    if media == Media::Octet {
        let cell = &set.rows[0].cells[0];
        let stamp = cell.timestamp.unwrap_or(LATEST_TIMESTAMP).to_string();
        let mut response = (StatusCode::OK, cell.value.clone()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(Media::Octet.content_type()),
        );
        if let Ok(v) = HeaderValue::from_str(&stamp) {
            headers.insert("X-Timestamp", v);
        }
        return Ok(response);
    }
    Ok(ok(&set, media))
}

pub async fn delete(gw: &Arc<Gateway>, table: &TableName, raw: &str) -> Result<Response> {
    gw.check_writable()?;
    let spec = RowSpec::parse(raw, None)?;
    let row = spec
        .single_row()
        .ok_or_else(|| RestError::bad("DELETE names one row, not a range or prefix"))?
        .clone();
    let ts = match spec.time {
        None => LATEST_TIMESTAMP,
        Some(TimeSpec::At(ts)) => ts,
        Some(TimeSpec::Range { .. }) => {
            return Err(RestError::bad("DELETE takes one timestamp, not a range"))
        }
    };
    let mut delete = Delete::new(row);
    if spec.columns.is_empty() {
        delete = delete.at(ts);
    }
    for ColumnSpec { family, qualifier } in &spec.columns {
        delete = delete.spec(match qualifier {
            None => DeleteSpec::Family {
                family: family.clone(),
                timestamp: ts,
            },
            Some(q) => DeleteSpec::Columns {
                family: family.clone(),
                qualifier: q.clone(),
                timestamp: ts,
            },
        });
    }
    let handle = gw.table(table).await?;
    blocking(move || Ok(handle.delete(&delete)?)).await?;
    Ok(status(StatusCode::OK))
}
