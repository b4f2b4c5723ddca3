//! What export, import and copytable share: the connection, the scan a [`CellFilter`]
//! asks for, a table created from a descriptor and split points, and cells written back
//! as puts and deletes at their own timestamps.

use super::{fail, CellFilter, Source};
use crate::CliError;
use basalt_api::{Connection, PreSplit, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::engine::folder_version::{self, COORDINATED};
use basalt_types::escape::from_string_binary;
use basalt_types::{
    Cell, CellType, Delete, DeleteSpec, Put, Scan, TableDescriptor, TableName, TimeRange,
};
use bytes::Bytes;
use std::sync::Arc;

/// A connection and what closes it.
pub struct Opened {
    pub conn: Arc<dyn Connection>,
    closer: Closer,
}

enum Closer {
    Remote,
    Served(Box<crate::in_process::InProcess>),
    Embedded(Arc<Database>),
}

impl Opened {
    pub fn remote(address: &str) -> Result<Self, CliError> {
        let conn = basalt_client::RemoteConnection::connect(address)
            .map_err(|e| fail(format!("cannot connect to {address}: {}", e.message)))?;
        Ok(Self {
            conn: Arc::new(conn),
            closer: Closer::Remote,
        })
    }

    /// `--data-dir` opened as `basalt pe` opens it, or `--connect`.
    pub fn open(source: &Source) -> Result<Self, CliError> {
        let Some(dir) = &source.data_dir else {
            return Self::remote(
                source
                    .connect
                    .as_deref()
                    .unwrap_or(crate::pe::DEFAULT_SERVER),
            );
        };
        let version = folder_version::read(&basalt_storage::fs::LocalFs, dir)
            .map_err(|e| fail(format!("{}: {e}", dir.display())))?;
        if version == Some(COORDINATED) {
            let served = crate::in_process::InProcess::start(dir, DbConfig::default())?;
            Ok(Self {
                conn: served.connection(),
                closer: Closer::Served(Box::new(served)),
            })
        } else {
            let db = Database::open(dir, DbConfig::default()).map_err(CliError::Connect)?;
            Ok(Self {
                conn: Arc::new(EmbeddedConnection::new(Arc::clone(&db))),
                closer: Closer::Embedded(db),
            })
        }
    }

    /// Closes a data folder (every region flushed); nothing to do for a server.
    pub fn close(self) -> Result<(), CliError> {
        match self.closer {
            Closer::Remote => Ok(()),
            Closer::Served(served) => served.close(),
            Closer::Embedded(db) => db.close().map_err(CliError::Connect),
        }
    }
}

pub fn table_name(text: &str) -> Result<TableName, CliError> {
    TableName::parse(text).map_err(|e| fail(format!("table name {text:?}: {e}")))
}

pub fn open_table(conn: &dyn Connection, name: &TableName) -> Result<Arc<dyn Table>, CliError> {
    conn.table(name).map_err(|e| match e.kind {
        basalt_api::ErrorKind::NotFound => fail(format!("table {name} does not exist")),
        _ => fail(format!("table {name}: {e}")),
    })
}

/// The filter as an export job's fields: rows, time range, versions, families.
pub fn job_of(table: &TableName, filter: &CellFilter) -> Result<super::manifest::Job, CliError> {
    if filter.versions == 0 {
        return Err(fail("--versions must be at least 1"));
    }
    let time_range = TimeRange::new(
        filter.start_time.unwrap_or(0),
        filter.end_time.unwrap_or(i64::MAX),
    )
    .map_err(|e| fail(format!("--start-time/--end-time: {e}")))?;
    let row =
        |r: &Option<String>| Bytes::from(r.as_deref().map(from_string_binary).unwrap_or_default());
    let families = match filter.families.as_deref() {
        None | Some("") => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|f| Bytes::from(f.trim().to_owned()))
            .collect(),
    };
    Ok(super::manifest::Job {
        table: table.to_string(),
        start_row: row(&filter.start_row),
        stop_row: row(&filter.stop_row),
        time_range,
        versions: filter.versions,
        families,
        raw: filter.raw,
    })
}

/// The scan of `job`, starting after `resume_after` when given.
pub fn scan_of(job: &super::manifest::Job, resume_after: Option<&[u8]>) -> Scan {
    let mut scan = Scan::new()
        .versions(job.versions)
        .time_range(job.time_range)
        .raw(job.raw);
    scan.start_row = match resume_after {
        // The smallest row after it.
        Some(row) => Bytes::from([row, &[0u8]].concat()),
        None => job.start_row.clone(),
    };
    scan.stop_row = job.stop_row.clone();
    for family in &job.families {
        scan = scan.family(family.clone());
    }
    scan
}

/// The table's split points: every region's start key but the first.
pub fn split_points(conn: &dyn Connection, name: &TableName) -> Result<Vec<Bytes>, CliError> {
    let regions = conn
        .admin()
        .list_regions(name)
        .map_err(|e| fail(format!("regions of {name}: {e}")))?;
    let mut keys: Vec<Bytes> = regions
        .into_iter()
        .map(|r| r.start_key)
        .filter(|k| !k.is_empty())
        .collect();
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// Creates `name` from `descriptor` and `splits` unless it exists; true if created.
pub fn ensure_table(
    conn: &dyn Connection,
    name: &TableName,
    descriptor: &TableDescriptor,
    splits: &[Bytes],
) -> Result<bool, CliError> {
    let admin = conn.admin();
    if admin
        .table_exists(name)
        .map_err(|e| fail(format!("table {name}: {e}")))?
    {
        return Ok(false);
    }
    let mut descriptor = descriptor.clone();
    descriptor.name = name.clone();
    let split = match splits {
        [] => PreSplit::None,
        keys => PreSplit::Keys(keys.to_vec()),
    };
    admin
        .create_table(&descriptor, &split)
        .map_err(|e| fail(format!("cannot create {name}: {e}")))?;
    tracing::info!(table = %name, regions = splits.len() + 1, "created the table");
    Ok(true)
}

/// One row's cells as a put (its values) and a delete (its markers), each at the cells'
/// own timestamps; either may be absent.
pub fn mutations(row: &[Cell]) -> (Option<Put>, Option<Delete>) {
    let Some(first) = row.first() else {
        return (None, None);
    };
    let mut put = Put::new(first.row_bytes());
    let mut delete = Delete::new(first.row_bytes());
    for c in row {
        let (family, qualifier, timestamp) = (c.family_bytes(), c.qualifier_bytes(), c.timestamp());
        let spec = match c.cell_type() {
            CellType::Put => {
                put = put.add_at(family, qualifier, timestamp, c.value_bytes());
                continue;
            }
            CellType::DeleteFamily => DeleteSpec::Family { family, timestamp },
            CellType::DeleteFamilyVersion => DeleteSpec::FamilyVersion { family, timestamp },
            CellType::DeleteColumn => DeleteSpec::Columns {
                family,
                qualifier,
                timestamp,
            },
            CellType::Delete => DeleteSpec::Version {
                family,
                qualifier,
                timestamp,
            },
            CellType::Minimum | CellType::Maximum => continue,
        };
        delete = delete.spec(spec);
    }
    (
        (!put.cells.is_empty()).then_some(put),
        (!delete.specs.is_empty()).then_some(delete),
    )
}

/// Writes rows to a table in batches.
pub struct RowWriter {
    table: Arc<dyn Table>,
    batch_rows: usize,
    puts: Vec<Put>,
    deletes: Vec<Delete>,
    pub rows: u64,
    pub cells: u64,
}

impl RowWriter {
    pub fn new(table: Arc<dyn Table>, batch_rows: usize) -> Self {
        Self {
            table,
            batch_rows: batch_rows.max(1),
            puts: Vec::new(),
            deletes: Vec::new(),
            rows: 0,
            cells: 0,
        }
    }

    /// Adds cells in key order (one or more whole rows).
    pub fn add(&mut self, cells: &[Cell]) -> Result<(), CliError> {
        for row in cells.chunk_by(|a, b| a.row() == b.row()) {
            let (put, delete) = mutations(row);
            self.puts.extend(put);
            self.deletes.extend(delete);
            self.rows += 1;
            self.cells += row.len() as u64;
            if self.puts.len() + self.deletes.len() >= self.batch_rows {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes what is pending.
    pub fn flush(&mut self) -> Result<(), CliError> {
        let name = self.table.name().clone();
        if !self.puts.is_empty() {
            self.table
                .put_many(&self.puts)
                .map_err(|e| fail(format!("writing to {name}: {e}")))?;
            self.puts.clear();
        }
        if !self.deletes.is_empty() {
            self.table
                .delete_many(&self.deletes)
                .map_err(|e| fail(format!("writing deletes to {name}: {e}")))?;
            self.deletes.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_becomes_a_put_of_its_values_and_a_delete_of_its_markers() {
        let row = [
            Cell::marker("r", "f", "", 9, CellType::DeleteFamily),
            Cell::put("r", "f", "a", 7, "x"),
            Cell::marker("r", "f", "a", 6, CellType::Delete),
            Cell::marker("r", "f", "b", 5, CellType::DeleteColumn),
            Cell::put("r", "g", "c", 3, "y"),
        ];
        let (put, delete) = mutations(&row);
        let put = put.expect("values");
        assert_eq!(
            put.cells
                .iter()
                .map(|c| (c.qualifier_bytes(), c.timestamp(), c.value_bytes()))
                .collect::<Vec<_>>(),
            [
                (Bytes::from("a"), 7, Bytes::from("x")),
                (Bytes::from("c"), 3, Bytes::from("y"))
            ]
        );
        let markers: Vec<Cell> = delete
            .expect("markers")
            .specs
            .iter()
            .map(|s| s.marker(&Bytes::from("r")))
            .collect();
        assert_eq!(markers, [row[0].clone(), row[2].clone(), row[3].clone()]);
        assert_eq!(mutations(&[]), (None, None));
        assert!(mutations(&row[1..2]).1.is_none());
    }

    #[test]
    fn a_filter_becomes_a_job_and_a_resumable_scan() {
        let filter = CellFilter {
            start_time: Some(5),
            end_time: None,
            versions: 3,
            start_row: Some("a\\x00".into()),
            stop_row: Some("m".into()),
            families: Some("f,g".into()),
            raw: true,
        };
        let job = job_of(&table_name("t").expect("name"), &filter).expect("valid");
        assert_eq!(job.start_row.as_ref(), b"a\x00");
        let scan = scan_of(&job, None);
        assert_eq!(
            (scan.start_row.as_ref(), scan.stop_row.as_ref()),
            (&b"a\x00"[..], &b"m"[..])
        );
        assert_eq!(
            (scan.max_versions, scan.raw, scan.time_range.min),
            (3, true, 5)
        );
        assert!(scan.columns.wants_family(b"g") && !scan.columns.wants_family(b"h"));
        assert_eq!(scan_of(&job, Some(b"k")).start_row.as_ref(), b"k\x00");
        let zero = CellFilter {
            versions: 0,
            ..filter.clone()
        };
        assert!(job_of(&table_name("t").expect("name"), &zero).is_err());
        let backwards = CellFilter {
            start_time: Some(9),
            end_time: Some(3),
            ..filter
        };
        assert!(job_of(&table_name("t").expect("name"), &backwards).is_err());
    }
}
