//! Namespaces: `CreateNamespace(descriptor)`, `DeleteNamespace(name)`,
//! `DescribeNamespace(name)`, `ModifyNamespace(descriptor)`, `ListNamespaces()`.

use super::{read_admin, run_admin};
use crate::error::status;
use crate::shared::Shared;
use basalt_proto::pb;
use basalt_types::NamespaceDescriptor;
use std::sync::Arc;
use tonic::Status;

pub async fn create(
    shared: &Arc<Shared>,
    req: pb::NamespaceDescriptor,
) -> Result<pb::Empty, Status> {
    let ns = NamespaceDescriptor::try_from(req).map_err(status)?;
    run_admin(shared, move |a| a.create_namespace(&ns)).await?;
    Ok(pb::Empty {})
}

pub async fn delete(shared: &Arc<Shared>, req: pb::NamespaceName) -> Result<pb::Empty, Status> {
    run_admin(shared, move |a| a.delete_namespace(&req.name)).await?;
    Ok(pb::Empty {})
}

pub fn describe(
    shared: &Shared,
    req: pb::NamespaceName,
) -> Result<pb::NamespaceDescriptor, Status> {
    let ns = read_admin(shared, |a| a.describe_namespace(&req.name))?;
    Ok((&ns).into())
}

pub async fn modify(
    shared: &Arc<Shared>,
    req: pb::NamespaceDescriptor,
) -> Result<pb::Empty, Status> {
    let ns = NamespaceDescriptor::try_from(req).map_err(status)?;
    run_admin(shared, move |a| a.modify_namespace(&ns)).await?;
    Ok(pb::Empty {})
}

pub fn list(shared: &Shared) -> Result<pb::NamespaceList, Status> {
    let all = read_admin(shared, |a| a.list_namespaces())?;
    Ok(pb::NamespaceList {
        namespaces: all.iter().map(Into::into).collect(),
    })
}
