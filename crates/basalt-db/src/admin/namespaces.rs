//! Namespaces: create, delete (only when empty), describe, list.

use crate::database::Database;
use crate::error::{CONSTRAINT, NAMESPACE_EXISTS, NAMESPACE_NOT_FOUND};
use crate::meta;
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_types::name::{DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use basalt_types::NamespaceDescriptor;

pub fn create(db: &Database, ns: &NamespaceDescriptor) -> Result<()> {
    basalt_types::name::validate_namespace(&ns.name)?;
    let _ddl = db.ddl.write();
    db.catalog.read().require_meta()?;
    if db.catalog.read().namespaces.contains_key(&ns.name) {
        return Err(ApiError::new(
            ErrorKind::AlreadyExists,
            NAMESPACE_EXISTS,
            ns.name.clone(),
        ));
    }
    db.meta.commit(vec![meta::put_namespace(ns)])?;
    db.catalog
        .write()
        .namespaces
        .insert(ns.name.clone(), ns.clone());
    Ok(())
}

pub fn modify(db: &Database, ns: &NamespaceDescriptor) -> Result<()> {
    let _ddl = db.ddl.write();
    if !db.catalog.read().namespaces.contains_key(&ns.name) {
        return Err(not_found(&ns.name));
    }
    db.meta.commit(vec![meta::put_namespace(ns)])?;
    db.catalog
        .write()
        .namespaces
        .insert(ns.name.clone(), ns.clone());
    Ok(())
}

pub fn delete(db: &Database, name: &str) -> Result<()> {
    let _ddl = db.ddl.write();
    if name == DEFAULT_NAMESPACE || name == SYSTEM_NAMESPACE {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            CONSTRAINT,
            format!("Reserved namespace {name} cannot be removed."),
        ));
    }
    {
        let catalog = db.catalog.read();
        if !catalog.namespaces.contains_key(name) {
            return Err(not_found(name));
        }
        let tables = catalog
            .tables
            .keys()
            .filter(|t| t.namespace() == name)
            .count();
        if tables > 0 {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                CONSTRAINT,
                format!(
                    "Only empty namespaces can be removed. Namespace {name} has {tables} tables"
                ),
            ));
        }
    }
    db.meta.commit(vec![meta::delete_namespace(name)])?;
    db.catalog.write().namespaces.remove(name);
    crate::acl::drop_namespace(db, name)
}

pub fn describe(db: &Database, name: &str) -> Result<NamespaceDescriptor> {
    db.catalog
        .read()
        .namespaces
        .get(name)
        .cloned()
        .ok_or_else(|| not_found(name))
}

pub fn list(db: &Database) -> Vec<NamespaceDescriptor> {
    db.catalog.read().namespaces.values().cloned().collect()
}

pub fn not_found(name: &str) -> ApiError {
    ApiError::new(ErrorKind::NotFound, NAMESPACE_NOT_FOUND, name.to_string())
}
