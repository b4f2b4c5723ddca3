//! `?check=put|delete|increment|append` on a row write (reference §6.1).
//!
//! | check | body | answer |
//! |---|---|---|
//! | `put` | one row; the **last** cell is the expected value of its column, which must also be among the cells to put | 200, or 304 when the check fails |
//! | `delete` | one row; the last cell is the expected value; earlier cells name families / columns to delete (none: the checked column) | 200, or 304 when the check fails |
//! | `increment` | one row; each cell's value is a decimal delta | 200 (+ the new values with `returnResult=true`) |
//! | `append` | one row; each cell's value is appended | 200 (+ the new values with `returnResult=true`) |
//!
//! HBase writes `Value not Modified` / ` Delete check failed.` after its 304, but HTTP
//! forbids a body on 304 and clients never see one; Basalt sends none.

use super::write::{cell_column, cell_timestamp, row_key};
use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, status, Gateway, Request};
use crate::model::cell_set::{CellModel, CellSet};
use crate::repr::{negotiate, MODELS};
use crate::rowspec::{ColumnSpec, RowSpec};
use axum::http::StatusCode;
use axum::response::Response;
use basalt_types::{
    Append, CheckAndMutate, CompareOp, Delete, DeleteSpec, Increment, Mutation, Put, TableName,
    LATEST_TIMESTAMP,
};
use std::sync::Arc;

pub async fn handle(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    spec: &RowSpec,
    set: CellSet,
    kind: &str,
) -> Result<Response> {
    if set.rows.len() != 1 {
        return Err(RestError::bad(format!(
            "check={kind} takes exactly one row, not {}",
            set.rows.len()
        )));
    }
    let row = &set.rows[0];
    let key = row_key(&row.key, spec)?;
    let handle = gw.table(table).await?;
    match kind {
        "put" | "delete" => {
            let Some((expected, rest)) = row.cells.split_last() else {
                return Err(RestError::bad(format!(
                    "check={kind} needs the cell to check"
                )));
            };
            let (family, qualifier) = cell_column(expected, spec)?;
            let mutation = if kind == "put" {
                Mutation::Put(check_put(&key, rest, spec, &family, &qualifier)?)
            } else {
                Mutation::Delete(check_delete(&key, rest, spec, &family, &qualifier)?)
            };
            let check = CheckAndMutate::column(
                key,
                family,
                qualifier,
                CompareOp::Equal,
                Some(expected.value.clone()),
                mutation,
            )?;
            let done = blocking(move || Ok(handle.check_and_mutate(&check)?)).await?;
            Ok(status(if done.succeeded {
                StatusCode::OK
            } else {
                StatusCode::NOT_MODIFIED
            }))
        }
        "increment" | "append" => {
            if row.cells.is_empty() {
                return Err(RestError::bad(format!(
                    "check={kind} needs at least one cell"
                )));
            }
            let return_result = req.query.flag("returnResult")?.unwrap_or(false);
            let media = if return_result {
                Some(negotiate(&req.headers, MODELS)?)
            } else {
                None
            };
            let result = if kind == "increment" {
                let mut inc = Increment::new(key);
                for cell in &row.cells {
                    let (family, qualifier) = cell_column(cell, spec)?;
                    inc = inc.add(family, qualifier, decimal(cell)?);
                }
                inc.return_results = return_result;
                blocking(move || Ok(handle.increment(&inc)?)).await?
            } else {
                let mut append = Append::new(key);
                for cell in &row.cells {
                    let (family, qualifier) = cell_column(cell, spec)?;
                    append = append.add(family, qualifier, cell.value.clone());
                }
                append.return_results = return_result;
                blocking(move || Ok(handle.append(&append)?)).await?
            };
            Ok(match media {
                Some(media) => ok(&CellSet::from_results([&result]), media),
                None => status(StatusCode::OK),
            })
        }
        other => Err(RestError::bad(format!(
            "unknown check '{other}': use put, delete, increment or append"
        ))),
    }
}

/// An increment's delta: the cell's value as a decimal number.
fn decimal(cell: &CellModel) -> Result<i64> {
    std::str::from_utf8(&cell.value)
        .ok()
        .and_then(|t| t.trim().parse::<i64>().ok())
        .ok_or_else(|| {
            RestError::bad(format!(
                "increment value '{}' is not a decimal number",
                String::from_utf8_lossy(&cell.value)
            ))
        })
}

fn check_put(
    key: &bytes::Bytes,
    cells: &[CellModel],
    spec: &RowSpec,
    family: &[u8],
    qualifier: &[u8],
) -> Result<Put> {
    let mut put = Put::new(key.clone());
    let mut checked_column_put = false;
    for cell in cells {
        let (f, q) = cell_column(cell, spec)?;
        checked_column_put |= f.as_ref() == family && q.as_ref() == qualifier;
        put = put.add_at(f, q, cell_timestamp(cell, spec), cell.value.clone());
    }
    if !checked_column_put {
        return Err(RestError::bad(
            "The column to put and check do not match: the checked column must be among the cells to put",
        ));
    }
    Ok(put)
}

fn check_delete(
    key: &bytes::Bytes,
    cells: &[CellModel],
    spec: &RowSpec,
    family: &bytes::Bytes,
    qualifier: &bytes::Bytes,
) -> Result<Delete> {
    let mut delete = Delete::new(key.clone());
    for cell in cells {
        let column = ColumnSpec::parse(&cell.column)?;
        let timestamp = cell.timestamp.unwrap_or(LATEST_TIMESTAMP);
        delete = delete.spec(match column.qualifier {
            None => DeleteSpec::Family {
                family: column.family,
                timestamp,
            },
            Some(q) => DeleteSpec::Columns {
                family: column.family,
                qualifier: q,
                timestamp,
            },
        });
    }
    if cells.is_empty() {
        let targets: Vec<ColumnSpec> = if spec.columns.len() > 1 {
            spec.columns.clone()
        } else {
            vec![ColumnSpec {
                family: family.clone(),
                qualifier: Some(qualifier.clone()),
            }]
        };
        for t in targets {
            delete = delete.spec(match t.qualifier {
                None => DeleteSpec::Family {
                    family: t.family,
                    timestamp: LATEST_TIMESTAMP,
                },
                Some(q) => DeleteSpec::Columns {
                    family: t.family,
                    qualifier: q,
                    timestamp: LATEST_TIMESTAMP,
                },
            });
        }
    }
    Ok(delete)
}
