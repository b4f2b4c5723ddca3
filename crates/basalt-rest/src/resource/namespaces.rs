//! `/namespaces` lists namespaces; `/namespaces/<ns>` reads (GET), creates (POST, 201),
//! alters (PUT) and drops (DELETE) one; `/namespaces/<ns>/tables` lists its tables.

use crate::error::{RestError, Result};
use crate::gateway::{blocking, ok, status, text, Gateway, Request};
use crate::model::catalog::{NamespaceProperties, Namespaces, TableList};
use crate::repr::{body_media, negotiate, parse_json, xml, Media, MODELS, MODELS_TEXT_FIRST};
use crate::router::not_allowed;
use crate::url::decode_text;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use basalt_api::ErrorKind;
use basalt_types::NamespaceDescriptor;
use std::sync::Arc;

pub async fn handle(gw: &Arc<Gateway>, req: &Request, rest: &str) -> Result<Response> {
    let mut parts = rest.splitn(3, '/');
    let ns = parts.next().unwrap_or("");
    let sub = parts.next();
    if parts.next().is_some() {
        return Err(RestError::NotFound(format!("no resource at {}", req.path)));
    }
    if ns.is_empty() {
        if req.method != Method::GET {
            return Err(not_allowed(req));
        }
        return list(gw, req).await;
    }
    let ns = decode_text(ns)?;
    match (sub, &req.method) {
        (Some("tables"), &Method::GET) => tables(gw, req, ns).await,
        (Some(_), _) => Err(RestError::NotFound(format!("no resource at {}", req.path))),
        (None, &Method::GET) => describe(gw, req, ns).await,
        (None, &Method::POST) => create(gw, req, ns).await,
        (None, &Method::PUT) => alter(gw, req, ns).await,
        (None, &Method::DELETE) => drop(gw, ns).await,
        _ => Err(not_allowed(req)),
    }
}

async fn list(gw: &Arc<Gateway>, req: &Request) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    let conn = gw.conn.clone();
    let names = blocking(move || {
        Ok(conn
            .admin()
            .list_namespaces()?
            .into_iter()
            .map(|n| n.name)
            .collect())
    })
    .await?;
    Ok(ok(&Namespaces(names), media))
}

async fn describe_or_none(gw: &Arc<Gateway>, ns: &str) -> Result<Option<NamespaceDescriptor>> {
    let conn = gw.conn.clone();
    let name = ns.to_string();
    blocking(move || match conn.admin().describe_namespace(&name) {
        Ok(d) => Ok(Some(d)),
        Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    })
    .await
}

async fn describe(gw: &Arc<Gateway>, req: &Request, ns: String) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    let d = describe_or_none(gw, &ns)
        .await?
        .ok_or_else(|| RestError::NotFound(format!("namespace '{ns}' does not exist")))?;
    let props = NamespaceProperties {
        name: d.name,
        properties: d.properties,
    };
    Ok(ok(&props, media))
}

async fn tables(gw: &Arc<Gateway>, req: &Request, ns: String) -> Result<Response> {
    let media = negotiate(&req.headers, MODELS_TEXT_FIRST)?;
    if describe_or_none(gw, &ns).await?.is_none() {
        return Err(RestError::NotFound(format!(
            "namespace '{ns}' does not exist"
        )));
    }
    let conn = gw.conn.clone();
    let names = blocking(move || Ok(conn.admin().list_tables(None)?)).await?;
    let list = TableList(
        names
            .iter()
            .filter(|n| n.namespace() == ns)
            .map(|n| n.qualifier().to_string())
            .collect(),
    );
    Ok(ok(&list, media))
}

/// The properties in the body; an empty body means none.
fn read_properties(req: &Request, ns: &str) -> Result<NamespaceDescriptor> {
    let mut descriptor = NamespaceDescriptor::new(ns)?;
    if req.body.is_empty() {
        return Ok(descriptor);
    }
    let props = match body_media(&req.headers, MODELS)? {
        Media::Json => {
            NamespaceProperties::from_json(&parse_json(&req.body, "NamespaceProperties")?, ns)?
        }
        Media::Xml => NamespaceProperties::from_xml(&xml::parse(&req.body)?, ns)?,
        _ => NamespaceProperties::from_protobuf(&req.body, ns)?,
    };
    descriptor.properties = props.properties;
    Ok(descriptor)
}

async fn create(gw: &Arc<Gateway>, req: &Request, ns: String) -> Result<Response> {
    gw.check_writable()?;
    let descriptor = read_properties(req, &ns)?;
    if describe_or_none(gw, &ns).await?.is_some() {
        return Ok(text(
            StatusCode::FORBIDDEN,
            &format!(
                "Namespace '{ns}' already exists.  Use REST PUT to alter the existing namespace.\r\n"
            ),
        ));
    }
    let conn = gw.conn.clone();
    blocking(move || Ok(conn.admin().create_namespace(&descriptor)?)).await?;
    Ok(status(StatusCode::CREATED))
}

async fn alter(gw: &Arc<Gateway>, req: &Request, ns: String) -> Result<Response> {
    gw.check_writable()?;
    let descriptor = read_properties(req, &ns)?;
    if describe_or_none(gw, &ns).await?.is_none() {
        return Ok(text(
            StatusCode::FORBIDDEN,
            &format!("Namespace '{ns}' does not exist. Use REST POST to create the namespace.\r\n"),
        ));
    }
    let conn = gw.conn.clone();
    blocking(move || Ok(conn.admin().modify_namespace(&descriptor)?)).await?;
    Ok(status(StatusCode::OK))
}

async fn drop(gw: &Arc<Gateway>, ns: String) -> Result<Response> {
    gw.check_writable()?;
    if describe_or_none(gw, &ns).await?.is_none() {
        return Err(RestError::NotFound(format!(
            "Namespace '{ns}' does not exists.  Cannot drop namespace."
        )));
    }
    let conn = gw.conn.clone();
    blocking(move || Ok(conn.admin().delete_namespace(&ns)?)).await?;
    Ok(status(StatusCode::OK))
}
