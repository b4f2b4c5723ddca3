//! `PUT` / `POST /<table>/<row spec>`: write cells.
//!
//! A cell set body may hold many rows: a row's `key` (or, when it has none, the URL's row)
//! names the row, a cell's `column` (or the URL's first column) names the column, and a
//! cell's `timestamp` (or the URL's, or the server's time) stamps it. An octet-stream
//! body is one cell's value; `X-Row`, `X-Column` and `X-Timestamp` headers override the
//! URL. `?check=…` turns the write into a check-and-mutate (see [`super::check`]).

use super::check;
use crate::error::{RestError, Result};
use crate::gateway::{blocking, status, Gateway, Request};
use crate::model::cell_set::{CellModel, CellSet};
use crate::repr::{body_media, parse_json, xml, Media};
use crate::rowspec::{ColumnSpec, RowSpec, TimeSpec};
use axum::http::StatusCode;
use axum::response::Response;
use basalt_types::{Put, TableName, LATEST_TIMESTAMP};
use bytes::Bytes;
use std::sync::Arc;

/// Cell-set bodies the gateway reads.
pub const CELL_BODIES: &[Media] = &[Media::Xml, Media::Json, Media::Protobuf, Media::Octet];

pub async fn handle(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    raw: &str,
) -> Result<Response> {
    gw.check_writable()?;
    let spec = RowSpec::parse(raw, None)?;
    let media = body_media(&req.headers, CELL_BODIES)?;
    let set = match media {
        Media::Octet => octet_cell(req)?,
        Media::Json => CellSet::from_json(&parse_json(&req.body, "CellSet")?)?,
        Media::Xml => CellSet::from_xml(&xml::parse(&req.body)?)?,
        _ => CellSet::from_protobuf(&req.body)?,
    };
    set.check_size(gw.config.response_cells_max)?;
    match req.query.text("check")? {
        None => {}
        Some(kind) => return check::handle(gw, req, table, &spec, set, kind).await,
    }
    let puts = puts_of(&spec, &set)?;
    let handle = gw.table(table).await?;
    blocking(move || Ok(handle.put_many(&puts)?)).await?;
    Ok(status(StatusCode::OK))
}

/// The single cell of an octet-stream body.
fn octet_cell(req: &Request) -> Result<CellSet> {
    let key = match req.header("X-Row")? {
        Some(row) => Bytes::copy_from_slice(row.as_bytes()),
        None => Bytes::new(),
    };
    let column = match req.header("X-Column")? {
        Some(c) => Bytes::copy_from_slice(c.as_bytes()),
        None => Bytes::new(),
    };
    let timestamp = req
        .header("X-Timestamp")?
        .map(|t| {
            t.trim()
                .parse::<i64>()
                .ok()
                .filter(|ts| *ts >= 0)
                .ok_or_else(|| {
                    RestError::bad(format!("X-Timestamp '{t}' is not a non-negative number"))
                })
        })
        .transpose()?;
    Ok(CellSet {
        rows: vec![crate::model::cell_set::RowModel {
            key,
            cells: vec![CellModel {
                column,
                timestamp,
                value: req.body.clone(),
            }],
        }],
    })
}

/// The row a cell-set row writes: its own key, else the URL's single row.
pub fn row_key(key: &Bytes, spec: &RowSpec) -> Result<Bytes> {
    if !key.is_empty() {
        return Ok(key.clone());
    }
    spec.single_row().cloned().ok_or_else(|| {
        RestError::bad("a row in the body has no key and the URL names no single row")
    })
}

/// `family` and `qualifier` of a cell: its own column, else the URL's first.
pub fn cell_column(cell: &CellModel, spec: &RowSpec) -> Result<(Bytes, Bytes)> {
    let spec_column = if cell.column.is_empty() {
        spec.columns.first().cloned()
    } else {
        Some(ColumnSpec::parse(&cell.column)?)
    };
    match spec_column {
        Some(ColumnSpec {
            family,
            qualifier: Some(q),
        }) => Ok((family, q)),
        Some(ColumnSpec { family, .. }) => Err(RestError::bad(format!(
            "column '{}' names no qualifier: write to 'family:qualifier'",
            String::from_utf8_lossy(&family)
        ))),
        None => Err(RestError::bad(
            "a cell has no column and the URL names none",
        )),
    }
}

/// A cell's timestamp: its own, else the URL's, else the server's time.
pub fn cell_timestamp(cell: &CellModel, spec: &RowSpec) -> i64 {
    cell.timestamp.unwrap_or(match spec.time {
        Some(TimeSpec::At(ts)) => ts,
        _ => LATEST_TIMESTAMP,
    })
}

fn puts_of(spec: &RowSpec, set: &CellSet) -> Result<Vec<Put>> {
    if set.rows.is_empty() {
        return Err(RestError::bad("the cell set holds no rows"));
    }
    set.rows
        .iter()
        .map(|row| {
            if row.cells.is_empty() {
                return Err(RestError::bad("a row in the cell set holds no cells"));
            }
            let mut put = Put::new(row_key(&row.key, spec)?);
            for cell in &row.cells {
                let (family, qualifier) = cell_column(cell, spec)?;
                put = put.add_at(
                    family,
                    qualifier,
                    cell_timestamp(cell, spec),
                    cell.value.clone(),
                );
            }
            Ok(put)
        })
        .collect()
}
