//! Grants on the wire: the scope in its words (`basalt_api::acl::grants`), the
//! permissions as letters.

use crate::pb;
use basalt_api::acl::grants::{decode_scope, encode_scope};
use basalt_api::{Actions, ApiError, Result, UserPermission};

pub fn to_wire(p: &UserPermission) -> pb::UserPermission {
    pb::UserPermission {
        user: p.user.clone(),
        scope: encode_scope(&p.scope),
        actions: p.actions.to_string(),
    }
}

pub fn from_wire(p: &pb::UserPermission) -> Result<UserPermission> {
    let scope = decode_scope(&p.scope).map_err(ApiError::invalid)?;
    let actions = Actions::parse(&p.actions).map_err(ApiError::invalid)?;
    Ok(UserPermission::new(p.user.clone(), scope, actions))
}
