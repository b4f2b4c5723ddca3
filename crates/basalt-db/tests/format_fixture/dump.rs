//! Everything a database shows about its contents, as text: namespaces, tables (state and
//! schema), each table's regions, and each enabled table's cells — every version, once
//! as a reader sees them and once raw (delete markers and the cells they mask).
//!
//! The fixture generator (`examples/write_format_fixture.rs`) writes this dump of a copy
//! of the fixture as the version that wrote the fixture read it; the format test compares
//! what the current code reads against it, line by line. Only what a client can observe is
//! printed (no sequence ids, file counts or sizes), so compactions and recovery changes that
//! keep the data do not change the dump.
//!
//! While dumping, every row of a scan is also read back by a `Get` (whole row, and each
//! column alone), and the table is scanned in reverse: the point reads go through the
//! blooms and the block index, so a misread there shows up as a panic naming the row.

use basalt_api::{Admin, Connection, Table};
use basalt_db::EmbeddedConnection;
use basalt_types::escape::to_string_binary as show;
use basalt_types::{Cell, FamilyDescriptor, Get, RowResult, Scan, TableDescriptor, TableName};
use std::fmt::Write;

/// Versions asked for by every read of the dump: more than any family keeps.
const VERSIONS: u32 = 100;

/// The whole dump. Disabled tables are listed with their regions; their cells are not
/// readable until enabled, which [`dump_disabled_cells`] does.
pub fn dump(conn: &EmbeddedConnection) -> String {
    let admin = conn.admin();
    let mut out = String::new();
    for ns in admin.list_namespaces().expect("list namespaces") {
        writeln!(out, "namespace {} {:?}", ns.name, ns.properties).expect("write to string");
    }
    for name in admin.list_tables(None).expect("list tables") {
        let enabled = admin.is_table_enabled(&name).expect("enabled?");
        let state = if enabled { "ENABLED" } else { "DISABLED" };
        writeln!(out, "table {name} {state}").expect("write to string");
        let descriptor = admin.describe_table(&name).expect("describe");
        out.push_str(&schema(&descriptor));
        out.push_str(&regions(admin.as_ref(), &name));
        if enabled {
            out.push_str(&cells(conn, &name));
        }
    }
    out
}

/// Enables each disabled table and dumps its cells (the tables stay enabled).
pub fn dump_disabled_cells(conn: &EmbeddedConnection) -> String {
    let admin = conn.admin();
    let mut out = String::new();
    for name in admin.list_tables(None).expect("list tables") {
        if admin.is_table_enabled(&name).expect("enabled?") {
            continue;
        }
        admin.enable_table(&name).expect("enable");
        writeln!(out, "table {name} (enabled for reading)").expect("write to string");
        out.push_str(&cells(conn, &name));
    }
    out
}

/// The schema, option by option in HBase shell style.
pub fn schema(t: &TableDescriptor) -> String {
    let mut out = format!(
        "  MAX_FILESIZE => {}, MEMSTORE_FLUSHSIZE => {}, READONLY => {}, DURABILITY => {}, \
         COMPACTION_ENABLED => {}, SPLIT_ENABLED => {}, MERGE_ENABLED => {}, \
         CONFIGURATION => {:?}, METADATA => {:?}\n",
        t.max_file_size_bytes,
        t.memstore_flush_size_bytes,
        t.read_only,
        t.durability.name(),
        t.compaction_enabled,
        t.split_enabled,
        t.merge_enabled,
        t.configuration,
        t.metadata
    );
    for f in &t.families {
        out.push_str(&family(f));
    }
    out
}

fn family(f: &FamilyDescriptor) -> String {
    format!(
        "  family {}: VERSIONS => {}, MIN_VERSIONS => {}, TTL => {}, KEEP_DELETED_CELLS => {}, \
         BLOOMFILTER => {}, BLOCKSIZE => {}, BLOCKCACHE => {}, IN_MEMORY => {}, \
         COMPRESSION => {}, DATA_BLOCK_ENCODING => {}, REPLICATION_SCOPE => {}, \
         CONFIGURATION => {:?}, METADATA => {:?}\n",
        show(&f.name),
        f.max_versions,
        f.min_versions,
        f.ttl_secs,
        f.keep_deleted_cells.name(),
        f.bloom_filter.name(),
        f.block_size_bytes,
        f.block_cache,
        f.in_memory,
        f.compression.name(),
        f.data_block_encoding.name(),
        f.replication_scope,
        f.configuration,
        f.metadata
    )
}

fn regions(admin: &dyn Admin, name: &TableName) -> String {
    let mut out = String::new();
    for r in admin.list_regions(name).expect("list regions") {
        writeln!(
            out,
            "  region [{}, {}) {} {}",
            show(&r.start_key),
            show(&r.end_key),
            r.encoded_name,
            r.region_name
        )
        .expect("write to string");
    }
    out
}

/// One line per cell: `row/family:qualifier/timestamp/type = value`.
pub fn cell_line(c: &Cell) -> String {
    let ttl = c.ttl_ms().map(|t| format!(" ttl={t}")).unwrap_or_default();
    format!(
        "{}/{}:{}/{}/{}{ttl} = {}",
        show(c.row()),
        show(c.family()),
        show(c.qualifier()),
        c.timestamp(),
        c.cell_type().name(),
        show(c.value())
    )
}

/// Reads every row of `table` by `scan` (panics on a read error, naming the table).
pub fn scan_rows(table: &dyn Table, scan: &Scan) -> Vec<RowResult> {
    table
        .scan(scan)
        .unwrap_or_else(|e| panic!("scan of {} fails to open: {e}", table.name()))
        .map(|row| row.unwrap_or_else(|e| panic!("scan of {} fails: {e}", table.name())))
        .collect()
}

fn cells(conn: &EmbeddedConnection, name: &TableName) -> String {
    let table = conn.table(name).expect("table");
    let mut out = String::new();
    let rows = scan_rows(table.as_ref(), &Scan::new().versions(VERSIONS));
    check_point_reads(table.as_ref(), &rows);
    let mut reversed = scan_rows(
        table.as_ref(),
        &Scan::new().versions(VERSIONS).reversed(true),
    );
    reversed.reverse();
    assert_eq!(reversed, rows, "{name}: a reversed scan reads other rows");
    for cell in rows.iter().flat_map(|r| r.cells.iter()) {
        writeln!(out, "  cell {}", cell_line(cell)).expect("write to string");
    }
    for row in scan_rows(table.as_ref(), &Scan::new().versions(VERSIONS).raw(true)) {
        for cell in &row.cells {
            writeln!(out, "  raw {}", cell_line(cell)).expect("write to string");
        }
    }
    out
}

/// Every scanned row read again by a `Get`, whole and column by column.
fn check_point_reads(table: &dyn Table, rows: &[RowResult]) {
    for row in rows {
        let key = row.row_bytes().expect("a scanned row has cells");
        let got = table
            .get(&Get::new(key.clone()).versions(VERSIONS))
            .expect("get");
        assert_eq!(&got, row, "{}: get of row {}", table.name(), show(&key));
        for cell in &row.cells {
            let get = Get::new(key.clone())
                .column(cell.family_bytes(), cell.qualifier_bytes())
                .versions(VERSIONS);
            let got = table.get(&get).expect("get column");
            assert!(
                got.cells.contains(cell),
                "{}: get of {} misses it",
                table.name(),
                cell_line(cell)
            );
        }
    }
}
