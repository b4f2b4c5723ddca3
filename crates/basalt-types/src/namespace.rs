//! Namespace descriptors.

use crate::error::Result;
use crate::name::validate_namespace;
use std::collections::BTreeMap;

/// A namespace and its properties (`create_namespace 'ns', {'k' => 'v'}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceDescriptor {
    pub name: String,
    pub properties: BTreeMap<String, String>,
}

impl NamespaceDescriptor {
    pub fn new(name: &str) -> Result<Self> {
        validate_namespace(name)?;
        Ok(Self {
            name: name.to_string(),
            properties: BTreeMap::new(),
        })
    }
}
