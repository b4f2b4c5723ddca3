//! HBase's Thrift2 service, `THBaseService` (`thrift2/hbase.thrift`): each method's
//! arguments in, its result or exception out, over the same codec, listener, workers and
//! scanner registry as the Thrift1 service.
//!
//! A result struct holds the success in field 0 and `TIOError{1:message, 2:canRetry}` in
//! field 1; only `getScannerRows` and `closeScanner` also declare
//! `TIllegalArgument{1:message}` (field 2), which they answer for an unknown, closed or
//! expired scanner. Every other failure travels as a `TIOError`, as HBase's handler sends
//! it.
//!
//! # Layout
//! - [`convert`]: `TGet`, `TScan`, `TResult`, compare operators; the struct field table.
//! - [`mutations`]: `TPut`, `TDelete`, `TIncrement`, `TAppend`, `TRowMutations`.
//! - [`data`]: reads, writes, check-and-mutate, counters, scanners.
//! - [`schema`]: `TTableName`, `TTableDescriptor`, `TColumnFamilyDescriptor`,
//!   `TNamespaceDescriptor` from and to Basalt's descriptors.
//! - [`admin`]: tables, families and namespaces.
//! - [`regions`]: region locations (`THRegionLocation`).

pub mod admin;
pub mod convert;
pub mod data;
pub mod mutations;
pub mod regions;
pub mod schema;

use crate::protocol::{Struct, Value};
use crate::service::{CallResult, Failure, Service};

/// Runs method `name` of `THBaseService` for connection `session`.
pub fn call(service: &Service, session: u64, name: &str, args: &Struct) -> CallResult {
    if data::METHODS.contains(&name) {
        data::call(service, session, name, args)
    } else if admin::METHODS.contains(&name) {
        admin::call(service, name, args)
    } else if regions::METHODS.contains(&name) {
        regions::call(service, name, args)
    } else {
        Err(Failure::UnknownMethod)
    }
}

/// The result struct of `method` for `result`, or `None` for an unknown method.
pub fn result_struct(method: &str, result: CallResult) -> Option<Struct> {
    Some(match result {
        Ok(None) => Struct::new(),
        Ok(Some(value)) => Struct::new().with(0, value),
        Err(Failure::UnknownMethod) => return None,
        Err(Failure::IllegalArgument(message))
            if matches!(method, "getScannerRows" | "closeScanner") =>
        {
            Struct::new().with(
                2,
                Value::Struct(Struct::new().with(1, Value::binary(message))),
            )
        }
        Err(Failure::Io { message, can_retry }) => io_error(message, can_retry),
        Err(Failure::IllegalArgument(message) | Failure::AlreadyExists(message)) => {
            io_error(message, false)
        }
    })
}

fn io_error(message: String, can_retry: bool) -> Struct {
    Struct::new().with(
        1,
        Value::Struct(
            Struct::new()
                .with(1, Value::binary(message))
                .with(2, Value::Bool(can_retry)),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_scanner_methods_answer_illegal_argument() {
        let ia = || Err(Failure::illegal("scanner ID is invalid"));
        let s = result_struct("getScannerRows", ia()).expect("known");
        assert_eq!(
            s.structure(2).and_then(|e| e.binary(1)).map(|b| b.as_ref()),
            Some(&b"scanner ID is invalid"[..])
        );
        let s = result_struct("get", ia()).expect("known");
        assert_eq!(s.structure(1).and_then(|e| e.bool(2)), Some(false));
        let s =
            result_struct("createTable", Err(Failure::AlreadyExists("t".into()))).expect("known");
        assert!(s.structure(1).is_some(), "AlreadyExists is a TIOError");
        assert_eq!(result_struct("nope", Err(Failure::UnknownMethod)), None);
    }
}
