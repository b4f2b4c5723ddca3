//! Messages to and from `basalt-types`.
//!
//! # Layout
//! - [`cell`]: cells, row results, time ranges, column selections, small enums.
//! - [`read`]: Get and Scan (filters travel in `basalt_filter`'s binary form).
//! - [`mutation`]: Put, Delete, Increment, Append, row mutations, check-and-mutate.
//! - [`batch`]: batch actions and their per-action results.
//! - [`schema`]: table names, namespaces, descriptors, pre-splits and region reports.
//! - [`health`]: the cluster health report (failed regions, quarantine, inconsistencies).
//! - [`slowlog`]: slow log records and queries.
//! - [`acl`]: grants: the scope in its words, the permissions as letters.

pub mod acl;
pub mod batch;
pub mod cell;
pub mod health;
pub mod mutation;
pub mod read;
#[cfg(test)]
mod robustness;
pub mod schema;
pub mod slowlog;

use basalt_api::ApiError;

/// Why a message does not decode into a valid operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("missing field {0}")]
    Missing(&'static str),
    #[error("invalid value {value} for {field}")]
    BadEnum { field: &'static str, value: i64 },
    #[error("invalid filter: {0}")]
    Filter(#[from] basalt_filter::DecodeError),
    #[error("{0}")]
    CellBlock(#[from] crate::cellblock::CellBlockError),
    #[error("{0}")]
    Invalid(String),
}

impl From<basalt_types::Error> for ConvertError {
    fn from(e: basalt_types::Error) -> Self {
        Self::Invalid(e.to_string())
    }
}

impl From<ConvertError> for ApiError {
    fn from(e: ConvertError) -> Self {
        ApiError::invalid(e.to_string())
    }
}

/// The value of a required message field.
pub fn required<T>(value: Option<T>, field: &'static str) -> Result<T, ConvertError> {
    value.ok_or(ConvertError::Missing(field))
}

/// A protobuf enum field's value as the generated enum.
pub(crate) fn enum_value<E: TryFrom<i32>>(
    value: i32,
    field: &'static str,
) -> Result<E, ConvertError> {
    E::try_from(value).map_err(|_| ConvertError::BadEnum {
        field,
        value: i64::from(value),
    })
}
