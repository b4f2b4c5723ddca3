//! `GET /<table>/multiget[/<columns>]?row=<row spec>&row=…[&v=N]`: many rows in one
//! request. Each `row` is itself a row spec (`r1`, `r1/cf:a`); columns in the path apply
//! to rows that name none. Rows not found are left out; none found is 404
//! `No rows found.`.

use super::rows::get_of;
use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, Gateway, Request};
use crate::model::cell_set::CellSet;
use crate::repr::{negotiate, MODELS};
use crate::rowspec::RowSpec;
use axum::response::Response;
use basalt_types::TableName;
use std::sync::Arc;

pub async fn get(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    columns: &str,
) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS)?;
    let versions = req.query.text("v")?;
    let path_columns = if columns.is_empty() {
        Vec::new()
    } else {
        RowSpec::parse(&format!("x/{columns}"), None)?.columns
    };
    let mut gets = Vec::new();
    for raw in req.query.all("row") {
        let raw =
            std::str::from_utf8(raw).map_err(|_| RestError::bad("a multiget row is not UTF-8"))?;
        let mut spec = RowSpec::parse(&escape_percent(raw), versions)?;
        let row = spec
            .single_row()
            .cloned()
            .ok_or_else(|| RestError::bad(format!("multiget row '{raw}' is not a single row")))?;
        if spec.columns.is_empty() {
            spec.columns = path_columns.clone();
        }
        gets.push(get_of(row, &spec)?);
    }
    if gets.is_empty() {
        return Err(RestError::bad(
            "multiget needs at least one row=<key> parameter",
        ));
    }
    if gets.len() > gw.config.response_cells_max {
        return Err(RestError::bad(format!(
            "multiget asks for {} rows, over the limit of {}",
            gets.len(),
            gw.config.response_cells_max
        )));
    }
    let handle = gw.table(table).await?;
    let results = blocking(move || Ok(handle.get_many(&gets)?)).await?;
    let set = CellSet::from_results(results.iter().filter(|r| !r.is_empty()));
    if set.rows.is_empty() {
        return Err(RestError::NotFound("No rows found.".to_string()));
    }
    set.check_size(gw.config.response_cells_max)?;
    Ok(ok(&set, media))
}

/// The query value is already decoded; re-escape `%` so the row-spec parser's decoding
/// leaves it as it is.
fn escape_percent(raw: &str) -> String {
    raw.replace('%', "%25")
}
