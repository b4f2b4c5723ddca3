//! `hbase:meta` as HBase 2.x lays it out, synthesized from the connection's tables and
//! regions each time a client reads it (nothing is stored; the catalog stays Basalt's).
//!
//! Rows, sorted as bytes:
//! - `table` (`ns:table` outside `default`): family `table`, `state` = a `TableState`
//!   message (no magic), which HBase 2.x clients read to tell enabled from disabled;
//! - `table,start_key,region_id.encoded.` (the region's name, raw start key): family
//!   `info` with `regioninfo` (`PBUF` + `RegionInfo`), `server` (`host:port`),
//!   `serverstartcode` and `seqnumDuringOpen` (8-byte big-endian longs), `sn`
//!   (`host,port,startcode`) and `state` (`OPEN` or `CLOSED`).
//!
//! [`Topology`] names the server of each region: this one in standalone, the region
//! server holding it in a cluster. A region no live server holds has no `info:server`,
//! `info:serverstartcode` or `info:sn`, and its state is `CLOSED`, as HBase writes a
//! region in transition: clients look again.

use crate::pb;
use crate::RpcError;
use basalt_api::{Connection, RegionReport, RegionState};
use basalt_types::{Cell, TableName};
use bytes::Bytes;
use prost::Message;
use std::collections::BTreeMap;

/// The catalog table's name and its one region's name.
pub const META_TABLE: &str = "hbase:meta";
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";
/// The encoded name of `hbase:meta,,1` (HBase's is the region id: `1588230740`).
pub const META_ENCODED_NAME: &[u8] = b"1588230740";

/// A server as clients see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerIdentity {
    pub host: String,
    pub port: u16,
    /// When the server started, in ms (HBase's start code).
    pub start_code: u64,
}

impl ServerIdentity {
    /// `host:port`, as `info:server` holds it.
    pub fn host_port(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// `host,port,startcode`, HBase's `ServerName`.
    pub fn server_name(&self) -> String {
        format!("{},{},{}", self.host, self.port, self.start_code)
    }

    pub fn pb(&self) -> pb::ServerName {
        pb::ServerName {
            host_name: self.host.clone(),
            port: Some(u32::from(self.port)),
            start_code: Some(self.start_code),
        }
    }
}

pub use crate::topology::{SingleServer, Topology};

/// The region id inside a region name `table,start,id.encoded.`.
pub fn region_id(region_name: &str) -> Option<u64> {
    let body = region_name.strip_suffix('.')?;
    let (before, _encoded) = body.rsplit_once('.')?;
    let (_, id) = before.rsplit_once(',')?;
    id.parse().ok()
}

/// The region's name with its raw start key: its row in `hbase:meta`, and the name
/// clients send back in `RegionSpecifier`s.
pub fn region_name(region: &RegionReport) -> Bytes {
    let id = region_id(&region.region_name).unwrap_or(0);
    let mut name = format!("{},", region.table).into_bytes();
    name.extend_from_slice(&region.start_key);
    name.extend_from_slice(format!(",{id}.{}.", region.encoded_name).as_bytes());
    Bytes::from(name)
}

/// The table a region name belongs to (the text before its first comma).
pub fn table_of_region_name(name: &[u8]) -> Option<TableName> {
    let comma = name.iter().position(|b| *b == b',')?;
    TableName::parse(std::str::from_utf8(&name[..comma]).ok()?).ok()
}

pub fn table_name_pb(table: &TableName) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from(table.namespace().to_string()),
        qualifier: Bytes::from(table.qualifier().to_string()),
    }
}

pub fn region_info(region: &RegionReport) -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: region_id(&region.region_name).unwrap_or(0),
        table_name: table_name_pb(&region.table),
        start_key: Some(region.start_key.clone()),
        end_key: Some(region.end_key.clone()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

pub fn table_state(enabled: bool) -> pb::TableState {
    let state = match enabled {
        true => pb::table_state::State::Enabled,
        false => pb::table_state::State::Disabled,
    };
    pb::TableState {
        state: state as i32,
    }
}

/// The catalog's rows at one moment.
#[derive(Debug, Default)]
pub struct MetaSnapshot {
    pub rows: BTreeMap<Bytes, Vec<Cell>>,
}

fn cell(
    row: &Bytes,
    family: &'static [u8],
    qualifier: &'static [u8],
    ts: i64,
    value: Vec<u8>,
) -> Cell {
    Cell::put(
        row.clone(),
        Bytes::from_static(family),
        Bytes::from_static(qualifier),
        ts,
        Bytes::from(value),
    )
}

/// The table a row of `hbase:meta` is about: the text before the first comma (a region
/// row), or the whole row (a table's state row).
pub fn table_of_meta_row(row: &[u8]) -> Option<TableName> {
    let end = row.iter().position(|b| *b == b',').unwrap_or(row.len());
    TableName::parse(std::str::from_utf8(&row[..end]).ok()?).ok()
}

impl MetaSnapshot {
    /// Reads every table and region of `conn`.
    pub fn read(conn: &dyn Connection, topology: &dyn Topology) -> Result<Self, RpcError> {
        let tables = conn.admin().list_tables(None)?;
        Self::read_tables(conn, topology, &tables)
    }

    /// The rows of `tables` alone (a table that does not exist, or no longer, has none).
    pub fn read_tables(
        conn: &dyn Connection,
        topology: &dyn Topology,
        tables: &[TableName],
    ) -> Result<Self, RpcError> {
        let admin = conn.admin();
        let mut snapshot = Self::default();
        for table in tables {
            // From the catalog alone where there is one (no region server is asked).
            let regions = |table: &TableName| {
                topology
                    .catalog_regions(table)
                    .unwrap_or_else(|| admin.list_regions(table))
            };
            let (enabled, regions) = match admin
                .is_table_enabled(table)
                .and_then(|enabled| Ok((enabled, regions(table)?)))
            {
                Ok(found) => found,
                // Deleted since it was listed, or never there.
                Err(e) if e.kind == basalt_api::ErrorKind::NotFound => continue,
                Err(e) => return Err(e.into()),
            };
            let table_row = Bytes::from(table.to_string());
            let first_id = regions
                .iter()
                .filter_map(|r| region_id(&r.region_name))
                .min()
                .unwrap_or(0) as i64;
            snapshot.rows.insert(
                table_row.clone(),
                vec![cell(
                    &table_row,
                    b"table",
                    b"state",
                    first_id,
                    table_state(enabled).encode_to_vec(),
                )],
            );
            for region in &regions {
                snapshot.add_region(region, topology);
            }
        }
        Ok(snapshot)
    }

    fn add_region(&mut self, region: &RegionReport, topology: &dyn Topology) {
        let row = region_name(region);
        let server = topology.server_of(region);
        let ts = region_id(&region.region_name).unwrap_or(0) as i64;
        let mut info = pb::PB_MAGIC.to_vec();
        region_info(region).encode(&mut info).unwrap_or_default();
        let state = match (region.state, &server) {
            (RegionState::Open, Some(_)) => "OPEN",
            (RegionState::Open | RegionState::Closed, _) => "CLOSED",
            (RegionState::FailedOpen, _) => "FAILED_OPEN",
        };
        // Sorted by qualifier, as a row's cells are.
        let mut cells = vec![
            cell(&row, b"info", b"regioninfo", ts, info),
            cell(
                &row,
                b"info",
                b"seqnumDuringOpen",
                ts,
                2i64.to_be_bytes().to_vec(),
            ),
        ];
        if let Some(server) = &server {
            cells.push(cell(
                &row,
                b"info",
                b"server",
                ts,
                server.host_port().into_bytes(),
            ));
            cells.push(cell(
                &row,
                b"info",
                b"serverstartcode",
                ts,
                (server.start_code as i64).to_be_bytes().to_vec(),
            ));
            cells.push(cell(
                &row,
                b"info",
                b"sn",
                ts,
                server.server_name().into_bytes(),
            ));
        }
        cells.push(cell(&row, b"info", b"state", ts, state.as_bytes().to_vec()));
        self.rows.insert(row, cells);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(table: &str, start: &'static [u8], name: &str) -> RegionReport {
        RegionReport {
            table: TableName::parse(table).expect("name"),
            region_name: name.to_string(),
            encoded_name: name
                .trim_end_matches('.')
                .rsplit('.')
                .next()
                .expect("encoded")
                .to_string(),
            start_key: Bytes::from_static(start),
            end_key: Bytes::new(),
            server: "h,1,2".into(),
            store_files: 0,
            store_file_bytes: 0,
            memstore_bytes: 0,
            read_requests: 0,
            write_requests: 0,
            state: RegionState::Open,
            failure: None,
        }
    }

    #[test]
    fn meta_rows_name_their_table() {
        let t = TableName::parse("ns:t").ok();
        assert_eq!(table_of_meta_row(b"ns:t"), t);
        assert_eq!(table_of_meta_row(b"ns:t,k,1.abc."), t);
        assert_eq!(table_of_meta_row(b"\xff,"), None);
    }

    #[test]
    fn region_names_carry_the_raw_start_key_and_the_id() {
        let r = report("ns:t", b"\x00k", "ns:t,\\x00k,1700.abcdef.");
        assert_eq!(region_id(&r.region_name), Some(1700));
        assert_eq!(&region_name(&r)[..], b"ns:t,\x00k,1700.abcdef.");
        assert_eq!(
            table_of_region_name(b"ns:t,\x00k,1700.abcdef."),
            TableName::parse("ns:t").ok()
        );
    }

    #[test]
    fn a_region_row_holds_hbases_info_columns() {
        let me = ServerIdentity {
            host: "h".into(),
            port: 16020,
            start_code: 5,
        };
        let mut snapshot = MetaSnapshot::default();
        snapshot.add_region(&report("t", b"", "t,,1700.abc."), &SingleServer(me));
        let (row, cells) = snapshot.rows.iter().next().expect("a row");
        assert_eq!(&row[..], b"t,,1700.abc.");
        let qualifiers: Vec<_> = cells.iter().map(|c| c.qualifier_bytes()).collect();
        let mut sorted = qualifiers.clone();
        sorted.sort();
        assert_eq!(qualifiers, sorted, "cells in qualifier order");
        let info = &cells[0].value();
        assert_eq!(&info[..4], b"PBUF");
        let decoded = pb::RegionInfo::decode(&info[4..]).expect("RegionInfo");
        assert_eq!(decoded.region_id, 1700);
        assert_eq!(cells[2].value(), b"h:16020");
        assert_eq!(cells[4].value(), b"h,16020,5");
    }
}
