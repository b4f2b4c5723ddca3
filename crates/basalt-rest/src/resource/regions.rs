//! `/<table>/regions` (the table's regions and where they are) and `/<table>/exists`.

use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, status, Gateway, Request};
use crate::model::catalog::TableInfo;
use crate::repr::{negotiate, MODELS_TEXT_FIRST};
use axum::http::StatusCode;
use axum::response::Response;
use basalt_types::TableName;
use std::sync::Arc;

pub async fn regions(gw: &Arc<Gateway>, req: &Request, table: &TableName) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    let conn = gw.conn.clone();
    let name = table.clone();
    let regions = blocking(move || Ok(conn.admin().list_regions(&name)?)).await?;
    let info = TableInfo {
        name: table.to_string(),
        regions,
    };
    Ok(ok(&info, media))
}

pub async fn exists(gw: &Arc<Gateway>, table: &TableName) -> Result<Response> {
    let conn = gw.conn.clone();
    let name = table.clone();
    if blocking(move || Ok(conn.admin().table_exists(&name)?)).await? {
        Ok(status(StatusCode::OK))
    } else {
        Err(RestError::NotFound(format!("table {table} does not exist")))
    }
}
