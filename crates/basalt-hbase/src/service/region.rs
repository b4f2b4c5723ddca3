//! Finding the region a call names.
//!
//! A call names its region by full name (`table,start,id.encoded.`, as read from
//! `hbase:meta`) or by encoded name. A region that is gone (split, merged, its table
//! deleted), closed, or not held by this server (a cluster's region server holds some
//! regions, its master none) answers `NotServingRegionException`, so clients look it up
//! again; a row outside the named region answers `WrongRegionException`.

use super::Service;
use crate::error::WRONG_REGION;
use crate::meta;
use crate::pb;
use crate::RpcError;
use basalt_api::{RegionReport, RegionState, Table};
use basalt_types::TableName;
use std::sync::Arc;

/// The region a call names.
pub enum Target {
    Meta,
    Region {
        table: Arc<dyn Table>,
        region: Box<RegionReport>,
    },
}

fn encoded_of(name: &[u8]) -> &[u8] {
    let body = name.strip_suffix(b".").unwrap_or(name);
    match body.iter().rposition(|b| *b == b'.') {
        Some(dot) => &body[dot + 1..],
        None => body,
    }
}

fn printable(name: &[u8]) -> String {
    basalt_types::escape::to_string_binary(name)
}

pub fn resolve(service: &Service, spec: &pb::RegionSpecifier) -> Result<Target, RpcError> {
    let value = spec.value.as_ref();
    let by_name =
        spec.r#type != pb::region_specifier::RegionSpecifierType::EncodedRegionName as i32;
    if value == meta::META_REGION_NAME || value == meta::META_ENCODED_NAME {
        // A standby master: meta is read on the active master, which the topology names.
        let elsewhere = service
            .topology
            .meta_server()
            .is_some_and(|server| server != service.me);
        return match service.roles.meta && !elsewhere {
            true => Ok(Target::Meta),
            // A region server: meta is read on the master.
            false => Err(RpcError::not_serving(&printable(value))),
        };
    }
    if !service.roles.regions {
        // A master holds no table region.
        return Err(RpcError::not_serving(&printable(value)));
    }
    let encoded = match by_name {
        true => encoded_of(value),
        false => value,
    };
    let admin = service.conn.admin();
    let tables: Vec<TableName> = match by_name {
        true => meta::table_of_region_name(value).into_iter().collect(),
        false => admin.list_tables(None)?,
    };
    for table in tables {
        let regions = match admin.list_regions(&table) {
            Ok(regions) => regions,
            // Gone, or (on a region server) none of its regions is open here.
            Err(e)
                if matches!(
                    e.kind,
                    basalt_api::ErrorKind::NotFound | basalt_api::ErrorKind::RetryElsewhere
                ) =>
            {
                continue
            }
            Err(e) => return Err(e.into()),
        };
        let Some(region) = regions
            .into_iter()
            .find(|r| r.encoded_name.as_bytes() == encoded)
        else {
            continue;
        };
        if region.state != RegionState::Open {
            return Err(RpcError::not_serving(&printable(value)));
        }
        let table = service.conn.table(&table)?;
        return Ok(Target::Region {
            table,
            region: Box::new(region),
        });
    }
    Err(RpcError::not_serving(&printable(value)))
}

pub fn check_row(region: &RegionReport, row: &[u8]) -> Result<(), RpcError> {
    match region.contains(row) {
        true => Ok(()),
        false => Err(RpcError::new(
            WRONG_REGION,
            format!(
                "row {} is not in region {}",
                printable(row),
                region.region_name
            ),
            false,
        )),
    }
}

trait Contains {
    fn contains(&self, row: &[u8]) -> bool;
}

impl Contains for RegionReport {
    fn contains(&self, row: &[u8]) -> bool {
        row >= self.start_key.as_ref() && (self.end_key.is_empty() || row < self.end_key.as_ref())
    }
}
