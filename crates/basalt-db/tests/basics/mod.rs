//! Shared set-up for the functional database tests (pre-split routing, DDL).
#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod md5;

use basalt_api::{Admin, Connection, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, RowResult, Scan, TableDescriptor, TableName};
use std::path::Path;
use std::sync::Arc;

pub fn open(dir: &Path) -> (Arc<Database>, EmbeddedConnection) {
    let db = Database::open(dir, DbConfig::default()).expect("database opens");
    let conn = EmbeddedConnection::new(db.clone());
    (db, conn)
}

pub fn name(text: &str) -> TableName {
    TableName::parse(text).expect("valid table name")
}

pub fn descriptor(table: &str, families: &[&str]) -> TableDescriptor {
    TableDescriptor::new(
        name(table),
        families
            .iter()
            .map(|f| FamilyDescriptor::new(f.to_string()).expect("valid family"))
            .collect(),
    )
}

pub fn admin(conn: &EmbeddedConnection) -> Arc<dyn Admin> {
    conn.admin()
}

pub fn table(conn: &EmbeddedConnection, table: &str) -> Arc<dyn Table> {
    conn.table(&name(table)).expect("table exists")
}

pub fn scan_rows(table: &dyn Table, scan: &Scan) -> Vec<RowResult> {
    table
        .scan(scan)
        .expect("scan opens")
        .map(|r| r.expect("scan reads"))
        .collect()
}

pub fn row_keys(rows: &[RowResult]) -> Vec<String> {
    rows.iter()
        .map(|r| String::from_utf8_lossy(r.row().expect("non-empty row")).into_owned())
        .collect()
}
