//! Grants: `Grant`, `Revoke`, `GetUserPermissions` and `SecurityCapabilities`, each the
//! hosted connection's `Admin` call (checked, when authorization is on, by the wrapper
//! the connection is served through).

use super::run_admin;
use crate::error::status;
use crate::shared::Shared;
use basalt_api::acl::grants::{decode_scope, encode_scope};
use basalt_api::{ApiError, PermissionQuery};
use basalt_proto::convert::acl::{from_wire, to_wire};
use basalt_proto::pb;
use std::sync::Arc;
use tonic::Status;

pub async fn grant(shared: &Arc<Shared>, req: pb::UserPermission) -> Result<pb::Empty, Status> {
    let p = from_wire(&req).map_err(status)?;
    run_admin(shared, move |a| a.grant(&p)).await?;
    Ok(pb::Empty {})
}

pub async fn revoke(shared: &Arc<Shared>, req: pb::UserPermission) -> Result<pb::Empty, Status> {
    let p = from_wire(&req).map_err(status)?;
    run_admin(shared, move |a| a.revoke(&p)).await?;
    Ok(pb::Empty {})
}

pub async fn get_user_permissions(
    shared: &Arc<Shared>,
    req: pb::PermissionQuery,
) -> Result<pb::UserPermissionList, Status> {
    let scope = req
        .scope
        .as_deref()
        .map(decode_scope)
        .transpose()
        .map_err(|e| status(ApiError::invalid(e)))?;
    let query = PermissionQuery {
        scope,
        user: req.user,
    };
    let list = run_admin(shared, move |a| a.get_user_permissions(&query)).await?;
    debug_assert!(list
        .iter()
        .all(|p| decode_scope(&encode_scope(&p.scope)).is_ok()));
    Ok(pb::UserPermissionList {
        permissions: list.iter().map(to_wire).collect(),
    })
}

pub async fn security_capabilities(shared: &Arc<Shared>) -> Result<pb::ServerNameList, Status> {
    let names = run_admin(shared, |a| a.security_capabilities()).await?;
    Ok(pb::ServerNameList { names })
}
