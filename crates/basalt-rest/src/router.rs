//! From a path to a resource. Table-level paths take the first segment as the table:
//!
//! ```text
//! /                                  table list            resource::root
//! /version[/rest] /version/cluster   versions              resource::root
//! /status/cluster                    cluster status        resource::root
//! /namespaces[/<ns>[/tables]]        namespaces            resource::namespaces
//! /<table>/schema                    schema                resource::schema
//! /<table>/regions /<table>/exists   regions, existence    resource::regions
//! /<table>/scanner[/<id>]            stateful scanners     resource::scanners
//! /<table>/multiget[/<columns>]      multi-get             resource::multiget
//! /<table>/<anything>*   (GET)       stateless scan        resource::table_scan
//! /<table>/<row spec>                rows                  resource::rows / write / check
//! ```

use crate::error::{RestError, Result};
use crate::gateway::{Gateway, Request};
use crate::resource::{
    multiget, namespaces, regions, root, rows, scanners, schema, table_scan, write,
};
use crate::url::decode_text;
use axum::http::Method;
use axum::response::Response;
use basalt_types::TableName;
use std::sync::Arc;

pub async fn route(gw: Arc<Gateway>, req: Request) -> Result<Response> {
    let path = req.path.trim_start_matches('/').to_string();
    let (first, rest) = path.split_once('/').unwrap_or((path.as_str(), ""));
    match first {
        "" => {
            get_only(&req)?;
            root::tables(&gw, &req).await
        }
        "version" => match rest {
            "" | "rest" => {
                get_only(&req)?;
                root::version(&req)
            }
            "cluster" => {
                get_only(&req)?;
                root::cluster_version(&req)
            }
            _ => Err(not_found(&req)),
        },
        "status" if rest == "cluster" => {
            get_only(&req)?;
            root::status(&gw, &req).await
        }
        "namespaces" => namespaces::handle(&gw, &req, rest).await,
        table => {
            let table = TableName::parse(&decode_text(table)?)?;
            let (resource, tail) = rest.split_once('/').unwrap_or((rest, ""));
            match resource {
                "schema" => schema::handle(&gw, &req, &table).await,
                "regions" => {
                    get_only(&req)?;
                    regions::regions(&gw, &req, &table).await
                }
                "exists" => {
                    get_only(&req)?;
                    regions::exists(&gw, &table).await
                }
                "scanner" => scanners::handle(&gw, &req, &table, tail).await,
                "multiget" => {
                    get_only(&req)?;
                    multiget::get(&gw, &req, &table, tail).await
                }
                "" => Err(RestError::bad(format!(
                    "/{table}/ needs a row spec, schema, regions, exists, scanner or multiget"
                ))),
                _ if rest.ends_with('*') && req.method == Method::GET => {
                    table_scan::get(&gw, &req, &table, rest).await
                }
                _ => match req.method {
                    Method::GET => rows::get(&gw, &req, &table, rest).await,
                    Method::PUT | Method::POST => write::handle(&gw, &req, &table, rest).await,
                    Method::DELETE => rows::delete(&gw, &table, rest).await,
                    _ => Err(not_allowed(&req)),
                },
            }
        }
    }
}

/// 405 for any method but GET.
fn get_only(req: &Request) -> Result<()> {
    if req.method == Method::GET {
        Ok(())
    } else {
        Err(not_allowed(req))
    }
}

pub fn not_allowed(req: &Request) -> RestError {
    RestError::MethodNotAllowed {
        method: req.method.to_string(),
        path: req.path.clone(),
    }
}

fn not_found(req: &Request) -> RestError {
    RestError::NotFound(format!("no resource at {}", req.path))
}
