//! `/<table>/schema`: GET describes; PUT replaces (creating when absent, 201); POST creates
//! when absent (201) or adds and alters the families it lists (200); DELETE drops.

use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, status, Gateway, Request};
use crate::model::schema::TableSchema;
use crate::repr::{body_media, negotiate, parse_json, xml, Media, MODELS, MODELS_TEXT_FIRST};
use crate::router::not_allowed;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use basalt_api::PreSplit;
use basalt_types::TableName;
use std::sync::Arc;

pub async fn handle(gw: &Arc<Gateway>, req: &Request, table: &TableName) -> Result<Response> {
    match req.method {
        Method::GET => describe(gw, req, table).await,
        Method::PUT => write(gw, req, table, true).await,
        Method::POST => write(gw, req, table, false).await,
        Method::DELETE => drop(gw, table).await,
        _ => Err(not_allowed(req)),
    }
}

async fn describe(gw: &Arc<Gateway>, req: &Request, table: &TableName) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    let conn = gw.conn.clone();
    let name = table.clone();
    let descriptor = blocking(move || Ok(conn.admin().describe_table(&name)?)).await?;
    Ok(ok(&TableSchema::from_descriptor(&descriptor), media))
}

fn read_schema(req: &Request) -> Result<TableSchema> {
    match body_media(&req.headers, MODELS)? {
        Media::Json => TableSchema::from_json(&parse_json(&req.body, "TableSchema")?),
        Media::Xml => TableSchema::from_xml(&xml::parse(&req.body)?),
        _ => TableSchema::from_protobuf(&req.body),
    }
}

async fn write(
    gw: &Arc<Gateway>,
    req: &Request,
    table: &TableName,
    replace: bool,
) -> Result<Response> {
    gw.check_writable()?;
    let descriptor = read_schema(req)?.to_descriptor(table)?;
    let conn = gw.conn.clone();
    let created = blocking(move || {
        let admin = conn.admin();
        if !admin.table_exists(&descriptor.name)? {
            admin.create_table(&descriptor, &PreSplit::None)?;
            return Ok(true);
        }
        if replace {
            admin.modify_table(&descriptor)?;
        } else {
            let current = admin.describe_table(&descriptor.name)?;
            for family in &descriptor.families {
                if current.family(&family.name).is_some() {
                    admin.modify_family(&descriptor.name, family)?;
                } else {
                    admin.add_family(&descriptor.name, family)?;
                }
            }
        }
        Ok(false)
    })
    .await?;
    Ok(status(if created || replace {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    }))
}

async fn drop(gw: &Arc<Gateway>, table: &TableName) -> Result<Response> {
    gw.check_writable()?;
    let conn = gw.conn.clone();
    let name = table.clone();
    blocking(move || {
        let admin = conn.admin();
        if !admin.table_exists(&name)? {
            return Err(RestError::NotFound(format!("table {name} does not exist")));
        }
        if admin.is_table_enabled(&name)? {
            admin.disable_table(&name)?;
        }
        admin.delete_table(&name)?;
        Ok(())
    })
    .await?;
    Ok(status(StatusCode::OK))
}
