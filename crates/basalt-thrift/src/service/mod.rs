//! The `Hbase` service: each method's arguments in, its result or exception out.
//!
//! A method gets its argument struct as a [`Struct`] and answers a [`CallResult`]; the
//! caller wraps it in the method's result struct (field 0 = success, 1 = `IOError`,
//! 2 = `IllegalArgument`, 3 = `AlreadyExists`). An exception a method does not declare is
//! sent as `IOError`, as a generated client could not read it otherwise.
//!
//! # Layout
//! - [`admin`]: tables, families, regions, compactions.
//! - [`read`]: gets (`get*`, `getRow*`, `getRows*`).
//! - [`write`]: mutations, deletes, increments, appends, check-and-put.
//! - [`scan`]: opening, reading and closing scanners.
//! - [`convert`]: Thrift structs from and to Basalt's types; column strings.

mod admin;
pub mod convert;
mod read;
mod scan;
mod write;

use crate::config::Flavor;
use crate::protocol::{Struct, Value};
use crate::scanners::Scanners;
use basalt_api::{ApiError, Connection, ErrorKind, Table};
use basalt_types::TableName;
use bytes::Bytes;
use std::sync::Arc;

/// What a method answers: its value (`None` for `void`), or an exception.
pub type CallResult = Result<Option<Value>, Failure>;

/// An exception of the `Hbase` service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    Io {
        message: String,
        can_retry: bool,
    },
    IllegalArgument(String),
    AlreadyExists(String),
    /// Not a method of the service: answered with `TApplicationException`.
    UnknownMethod,
}

impl Failure {
    pub fn io(message: impl Into<String>) -> Self {
        Self::Io {
            message: message.into(),
            can_retry: false,
        }
    }

    pub fn illegal(message: impl Into<String>) -> Self {
        Self::IllegalArgument(message.into())
    }
}

/// As HBase's handler: Java's `IllegalArgumentException` becomes `IllegalArgument`, every
/// other error an `IOError` whose `canRetry` says whether retrying can help.
impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        match e.kind {
            ErrorKind::AlreadyExists => Self::AlreadyExists(e.to_string()),
            ErrorKind::InvalidRequest if e.short_name() == "IllegalArgumentException" => {
                Self::IllegalArgument(e.to_string())
            }
            ErrorKind::InvalidRequest => Self::io(e.to_string()),
            ErrorKind::RetryElsewhere | ErrorKind::Busy | ErrorKind::Unavailable => Self::Io {
                message: e.to_string(),
                can_retry: true,
            },
            ErrorKind::NotFound | ErrorKind::DataCorruption => Self::io(e.to_string()),
        }
    }
}

impl From<basalt_types::Error> for Failure {
    fn from(e: basalt_types::Error) -> Self {
        Self::IllegalArgument(e.to_string())
    }
}

/// The service over one Basalt connection, shared by every Thrift connection.
pub struct Service {
    pub(crate) conn: Arc<dyn Connection>,
    pub(crate) scanners: Scanners,
    flavor: Flavor,
}

impl Service {
    pub fn new(conn: Arc<dyn Connection>, scanners: Scanners, flavor: Flavor) -> Self {
        Self {
            conn,
            scanners,
            flavor,
        }
    }

    /// Runs method `name` for the Thrift connection `session`.
    pub fn call(&self, session: u64, name: &str, args: &Struct) -> CallResult {
        match self.flavor {
            Flavor::Thrift1 => self.call_hbase(session, name, args),
            Flavor::Thrift2 => crate::thrift2::call(self, session, name, args),
        }
    }

    /// The result struct of `method` for `result`, or `None` for an unknown method.
    pub fn result_struct(&self, method: &str, result: CallResult) -> Option<Struct> {
        match self.flavor {
            Flavor::Thrift1 => result_struct(method, result),
            Flavor::Thrift2 => crate::thrift2::result_struct(method, result),
        }
    }

    fn call_hbase(&self, session: u64, name: &str, args: &Struct) -> CallResult {
        match name {
            "enableTable"
            | "disableTable"
            | "isTableEnabled"
            | "compact"
            | "majorCompact"
            | "getTableNames"
            | "getTableNamesWithIsTableEnabled"
            | "getColumnDescriptors"
            | "getTableRegions"
            | "createTable"
            | "deleteTable"
            | "getThriftServerType"
            | "getClusterId" => admin::call(self, name, args),
            "get"
            | "getVer"
            | "getVerTs"
            | "getRow"
            | "getRowWithColumns"
            | "getRowTs"
            | "getRowWithColumnsTs"
            | "getRows"
            | "getRowsWithColumns"
            | "getRowsTs"
            | "getRowsWithColumnsTs" => read::call(self, name, args),
            "mutateRow" | "mutateRowTs" | "mutateRows" | "mutateRowsTs" | "atomicIncrement"
            | "deleteAll" | "deleteAllTs" | "deleteAllRow" | "deleteAllRowTs" | "increment"
            | "incrementRows" | "append" | "checkAndPut" => write::call(self, name, args),
            "scannerOpenWithScan"
            | "scannerOpen"
            | "scannerOpenWithStop"
            | "scannerOpenWithPrefix"
            | "scannerOpenTs"
            | "scannerOpenWithStopTs"
            | "scannerGet"
            | "scannerGetList"
            | "scannerClose" => scan::call(self, session, name, args),
            _ => Err(Failure::UnknownMethod),
        }
    }

    /// Scanners open now, over every connection.
    pub fn open_scanners(&self) -> usize {
        self.scanners.len()
    }

    /// Forgets the scanners a closed connection left open.
    pub fn end_session(&self, session: u64) {
        self.scanners.close_session(session);
    }

    fn table(&self, args: &Struct, id: i16) -> Result<Arc<dyn Table>, Failure> {
        let name = table_name(args, id)?;
        Ok(self.conn.table(&name)?)
    }
}

/// Whether `method` declares `IllegalArgument` in its `throws`.
fn declares_illegal_argument(method: &str) -> bool {
    matches!(
        method,
        "createTable"
            | "mutateRow"
            | "mutateRowTs"
            | "mutateRows"
            | "mutateRowsTs"
            | "atomicIncrement"
            | "scannerGet"
            | "scannerGetList"
            | "scannerClose"
            | "checkAndPut"
    )
}

/// The result struct of `method` for `result`, or `None` for an unknown method.
pub fn result_struct(method: &str, result: CallResult) -> Option<Struct> {
    let exception = |message: String| Value::Struct(Struct::new().with(1, Value::binary(message)));
    Some(match result {
        Ok(None) => Struct::new(),
        Ok(Some(value)) => Struct::new().with(0, value),
        Err(Failure::UnknownMethod) => return None,
        Err(Failure::AlreadyExists(message)) if method == "createTable" => {
            Struct::new().with(3, exception(message))
        }
        Err(Failure::IllegalArgument(message)) if declares_illegal_argument(method) => {
            Struct::new().with(2, exception(message))
        }
        Err(Failure::Io { message, can_retry }) => Struct::new().with(
            1,
            Value::Struct(
                Struct::new()
                    .with(1, Value::binary(message))
                    .with(2, Value::Bool(can_retry)),
            ),
        ),
        Err(Failure::AlreadyExists(message) | Failure::IllegalArgument(message)) => Struct::new()
            .with(
                1,
                Value::Struct(
                    Struct::new()
                        .with(1, Value::binary(message))
                        .with(2, Value::Bool(false)),
                ),
            ),
    })
}

/// A required binary argument.
fn required<'a>(args: &'a Struct, id: i16, name: &str) -> Result<&'a Bytes, Failure> {
    args.binary(id)
        .ok_or_else(|| Failure::illegal(format!("missing argument {name}")))
}

/// The table name in argument `id`.
pub(crate) fn table_name(args: &Struct, id: i16) -> Result<TableName, Failure> {
    let raw = required(args, id, "tableName")?;
    let text =
        std::str::from_utf8(raw).map_err(|_| Failure::illegal("the table name is not UTF-8"))?;
    Ok(TableName::parse(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceptions_go_where_the_method_declares_them() {
        let ia = || Err(Failure::illegal("bad"));
        assert!(result_struct("mutateRows", ia())
            .expect("known")
            .structure(2)
            .is_some());
        // getRow declares only IOError: an IllegalArgument travels as one.
        let s = result_struct("getRow", ia()).expect("known");
        assert_eq!(s.structure(1).and_then(|e| e.bool(2)), Some(false));
        let ae = Err(Failure::AlreadyExists("x".into()));
        assert!(result_struct("createTable", ae.clone())
            .expect("known")
            .structure(3)
            .is_some());
        assert!(result_struct("enableTable", ae)
            .expect("known")
            .structure(1)
            .is_some());
        assert_eq!(result_struct("x", Err(Failure::UnknownMethod)), None);
        assert_eq!(result_struct("enableTable", Ok(None)), Some(Struct::new()));
    }

    #[test]
    fn api_errors_map_like_hbase() {
        let retry = ApiError::new(
            ErrorKind::Busy,
            "org.apache.hadoop.hbase.RegionTooBusyException",
            "busy",
        );
        assert!(matches!(
            Failure::from(retry),
            Failure::Io {
                can_retry: true,
                ..
            }
        ));
        assert!(matches!(
            Failure::from(ApiError::invalid("x")),
            Failure::IllegalArgument(_)
        ));
        let family = ApiError::new(
            ErrorKind::InvalidRequest,
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
            "nope",
        );
        assert!(matches!(
            Failure::from(family),
            Failure::Io {
                can_retry: false,
                ..
            }
        ));
    }
}
