//! The master's errors as API errors with HBase's exception names.

use basalt_api::{ApiError, ErrorKind};
use basalt_types::TableName;

pub use basalt_db::error::{
    CONSTRAINT, DO_NOT_RETRY, IO, NAMESPACE_EXISTS, NAMESPACE_NOT_FOUND, TABLE_EXISTS,
    TABLE_NOT_DISABLED, TABLE_NOT_ENABLED, TABLE_NOT_FOUND,
};
pub const NOT_RUNNING_YET: &str = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException";
pub const NOT_SERVING: &str = "org.apache.hadoop.hbase.NotServingRegionException";
pub const IN_TRANSITION: &str = "org.apache.hadoop.hbase.exceptions.RegionInTransitionException";
pub const NO_SERVER_FOR_REGION: &str = "org.apache.hadoop.hbase.client.NoServerForRegionException";
pub const CLOCK_OUT_OF_SYNC: &str = "org.apache.hadoop.hbase.ClockOutOfSyncException";

pub fn table_not_found(name: &TableName) -> ApiError {
    ApiError::new(ErrorKind::NotFound, TABLE_NOT_FOUND, name.to_string())
}

pub fn coordinator(e: &basalt_coord::CoordError) -> ApiError {
    ApiError::new(ErrorKind::Unavailable, IO, format!("coordinator: {e}"))
}

/// This master is not (or no longer) the active one: the client asks again where it is.
pub fn not_active(active: Option<&str>) -> ApiError {
    let message = match active {
        Some(active) => format!("this master is standing by; the active master is {active}"),
        None => "this master is standing by; no master is active yet".to_string(),
    };
    ApiError::new(ErrorKind::RetryElsewhere, NOT_RUNNING_YET, message)
}

pub fn in_transition(message: String) -> ApiError {
    ApiError::new(ErrorKind::RetryElsewhere, IN_TRANSITION, message)
}

pub fn io(message: String) -> ApiError {
    ApiError::new(ErrorKind::Unavailable, IO, message)
}

pub fn invalid_state(exception: &'static str, message: String) -> ApiError {
    ApiError::new(ErrorKind::InvalidRequest, exception, message)
}
