//! `/` lists user tables; `/version` and `/version/cluster` report versions;
//! `/status/cluster` reports regions per server.

use crate::error::Result;
use crate::gateway::{blocking, ok, Gateway, Request};
use crate::model::catalog::TableList;
use crate::model::status::{ClusterStatus, ClusterVersion, Version, HBASE_VERSION};
use crate::repr::{negotiate, MODELS_TEXT_FIRST};
use axum::response::Response;
use std::collections::BTreeMap;
use std::sync::Arc;

pub async fn tables(gw: &Arc<Gateway>, req: &Request) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    let conn = gw.conn.clone();
    let names = blocking(move || Ok(conn.admin().list_tables(None)?)).await?;
    let list = TableList(
        names
            .iter()
            .filter(|n| !n.is_system())
            .map(ToString::to_string)
            .collect(),
    );
    Ok(ok(&list, media))
}

pub fn version(req: &Request) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    Ok(ok(&Version::current(), media))
}

pub fn cluster_version(req: &Request) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    Ok(ok(&ClusterVersion(HBASE_VERSION.to_string()), media))
}

pub async fn status(gw: &Arc<Gateway>, req: &Request) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    let conn = gw.conn.clone();
    let status = blocking(move || {
        let admin = conn.admin();
        let mut by_server: BTreeMap<String, Vec<_>> = BTreeMap::new();
        for table in admin.list_tables(None)? {
            for region in admin.list_regions(&table)? {
                by_server
                    .entry(region.server.clone())
                    .or_default()
                    .push(region);
            }
        }
        Ok(ClusterStatus {
            nodes: by_server.into_iter().collect(),
        })
    })
    .await?;
    Ok(ok(&status, media))
}
