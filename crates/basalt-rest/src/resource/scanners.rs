//! Stateful scanners: `PUT`/`POST /<table>/scanner` with a `Scanner` model opens one
//! (201 Created, `Location: …/<table>/scanner/<id>`); `GET …/<id>` returns the next batch
//! as a cell set (204 No Content once exhausted), or with `Accept:
//! application/octet-stream` the next single cell with `X-Row`, `X-Column` (base64) and
//! `X-Timestamp`; `DELETE …/<id>` closes it.

use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, status, Gateway, Request};
use crate::model::cell_set::{column_of, CellSet};
use crate::model::scanner::ScannerModel;
use crate::repr::{b64, body_media, negotiate, parse_json, xml, Media, CELLS, MODELS};
use crate::router::not_allowed;
use crate::scanners::Asker;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use basalt_types::TableName;
use std::sync::Arc;

/// Who names a scanner in `req`.
fn asker(req: &Request) -> Asker<'_> {
    Asker {
        user: req.principal.as_ref().map(|p| p.name()),
        client: req.client,
    }
}

pub async fn handle(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    id: &str,
) -> Result<Response> {
    match (id.is_empty(), &req.method) {
        (true, &Method::PUT | &Method::POST) => open(gw, req, table).await,
        (false, &Method::GET) => next(gw, req, table, id).await,
        (false, &Method::DELETE) => {
            gw.scanners.close(table, id, &asker(req))?;
            Ok(status(StatusCode::OK))
        }
        _ => Err(not_allowed(req)),
    }
}

async fn open(gw: &Arc<Gateway>, req: &Request, table: &TableName) -> Result<Response> {
    let model = match body_media(&req.headers, MODELS)? {
        Media::Json => ScannerModel::from_json(&parse_json(&req.body, "Scanner")?)?,
        Media::Xml => ScannerModel::from_xml(&xml::parse(&req.body)?)?,
        _ => ScannerModel::from_protobuf(&req.body)?,
    };
    let scan = model.to_scan()?;
    let batch = model.batch_cells(gw.config.scanner_batch_default)?;
    let handle = gw.table(table).await?;
    let rows = blocking(move || Ok(handle.scan(&scan)?)).await?;
    let owner = req.principal.as_ref().map(|p| p.name().to_string());
    let id = gw
        .scanners
        .open(table.clone(), req.client, owner, batch, rows)?;
    let host = req.header("host")?.unwrap_or("localhost");
    // Clients follow it (hbase-rest-py does): over TLS it must say https.
    let scheme = if gw.config.tls.is_on() {
        "https"
    } else {
        "http"
    };
    let location = format!("{scheme}://{host}/{table}/scanner/{id}");
    let mut response = status(StatusCode::CREATED);
    let value = HeaderValue::from_str(&location)
        .map_err(|_| RestError::bad("the Host header cannot be part of a Location"))?;
    response.headers_mut().insert(header::LOCATION, value);
    Ok(response)
}

async fn next(gw: &Arc<Gateway>, req: &Request, table: &TableName, id: &str) -> Result<Response> {
    let media = negotiate(&req.headers, CELLS)?;
    let scanner = gw.scanners.get(table, id, &asker(req))?;
    let max = if media == Media::Octet {
        1
    } else {
        let limit = req.query.number::<usize>("n")?.unwrap_or(usize::MAX);
        (scanner.batch_cells as usize)
            .min(limit)
            .min(gw.config.response_cells_max)
    };
    let cells = blocking(move || scanner.next_cells(max)).await?;
    if cells.is_empty() {
        return Ok(status(StatusCode::NO_CONTENT));
    }
    if media == Media::Octet {
        let cell = &cells[0];
        let mut response = (StatusCode::OK, cell.value_bytes()).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(Media::Octet.content_type()),
        );
        for (name, value) in [
            ("X-Row", b64::encode(cell.row())),
            ("X-Column", b64::encode(&column_of(cell))),
            ("X-Timestamp", cell.timestamp().to_string()),
        ] {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        }
        return Ok(response);
    }
    let mut set = CellSet::default();
    set.push_cells(&cells);
    Ok(ok(&set, media))
}
