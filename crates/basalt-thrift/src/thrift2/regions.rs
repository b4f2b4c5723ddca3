//! `THBaseService`'s region locations.
//!
//! | method | arguments (id) |
//! |---|---|
//! | `getRegionLocation` | table 1, row 2, reload 3 (ignored: the catalog is always read) |
//! | `getAllRegionLocations` | table 1 |
//!
//! `THRegionLocation{1:TServerName{1:hostName, 2:port, 3:startCode}, 2:THRegionInfo{1:regionId,
//! 2:tableName, 3:startKey, 4:endKey, 5:offline, 6:split, 7:replicaId}}`; the region id is
//! the number after the last `,` of the region name.

use crate::protocol::{Struct, TType, Value};
use crate::service::{table_name, CallResult, Failure, Service};
use basalt_types::TableName;
use bytes::Bytes;

pub const METHODS: &[&str] = &["getRegionLocation", "getAllRegionLocations"];

pub(super) fn call(service: &Service, name: &str, args: &Struct) -> CallResult {
    let table = table_name(args, 1)?;
    let admin = service.conn.admin();
    match name {
        "getRegionLocation" => {
            let row = args
                .binary(2)
                .ok_or_else(|| Failure::illegal("missing argument row"))?;
            let found = admin.locate_region(&table, row)?;
            Ok(Some(location(
                &table,
                &found.region_name,
                &found.start_key,
                &found.end_key,
                &found.server,
            )))
        }
        "getAllRegionLocations" => {
            let regions = admin.list_regions(&table)?;
            let locations = regions
                .iter()
                .map(|r| location(&table, &r.region_name, &r.start_key, &r.end_key, &r.server))
                .collect();
            Ok(Some(Value::List(TType::Struct, locations)))
        }
        _ => Err(Failure::UnknownMethod),
    }
}

/// The region id in a region name `table,start,id.encoded.` (0 when it has none).
pub fn region_id(region_name: &str) -> i64 {
    region_name
        .rsplit(',')
        .next()
        .and_then(|tail| tail.split('.').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or(0)
}

fn location(table: &TableName, region: &str, start: &Bytes, end: &Bytes, server: &str) -> Value {
    let (host, port) = basalt_api::server_host_port(server);
    let start_code = server
        .split(',')
        .nth(2)
        .and_then(|code| code.parse::<i64>().ok());
    let mut server_name = Struct::new()
        .with(1, Value::binary(host))
        .with(2, Value::I32(i32::from(port)));
    if let Some(code) = start_code {
        server_name = server_name.with(3, Value::I64(code));
    }
    let info = Struct::new()
        .with(1, Value::I64(region_id(region)))
        .with(2, Value::binary(table.to_string()))
        .with(3, Value::Binary(start.clone()))
        .with(4, Value::Binary(end.clone()))
        .with(5, Value::Bool(false))
        .with(6, Value::Bool(false))
        .with(7, Value::I32(0));
    Value::Struct(
        Struct::new()
            .with(1, Value::Struct(server_name))
            .with(2, Value::Struct(info)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_ids_come_from_the_region_name() {
        assert_eq!(region_id("t,row,1700000000000.abcdef."), 1_700_000_000_000);
        assert_eq!(region_id("ns:t,,42.x."), 42);
        assert_eq!(region_id("garbage"), 0);
    }

    #[test]
    fn locations_name_the_server_and_the_region() {
        let table = TableName::parse("t").expect("valid");
        let v = location(
            &table,
            "t,,7.e.",
            &Bytes::new(),
            &Bytes::from_static(b"m"),
            "host1,16020,99",
        );
        let s = v.as_struct().expect("struct");
        let server = s.structure(1).expect("server");
        assert_eq!(server.binary(1).map(|b| b.as_ref()), Some(&b"host1"[..]));
        assert_eq!((server.i32(2), server.i64(3)), (Some(16020), Some(99)));
        let info = s.structure(2).expect("info");
        assert_eq!(info.i64(1), Some(7));
        assert_eq!(info.binary(4).map(|b| b.as_ref()), Some(&b"m"[..]));
    }
}
