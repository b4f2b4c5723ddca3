//! `basalt importtsv`: HBase's ImportTsv with `-Dimporttsv.bulk.output` and
//! `completebulkload` in one step, on a data folder opened in this process.
//!
//! ```text
//! basalt importtsv --data-dir DIR --columns HBASE_ROW_KEY,cf:a,cf:b [--separator X]
//!                  [--timestamp MS] [--skip-bad-lines] [--parallelism N] TABLE FILE
//! ```
//! Each line of FILE is one row: its fields, split at the separator (a tab by default),
//! go to the columns named in order; `HBASE_ROW_KEY` marks the row key. Lines must come
//! sorted by row key (`LC_ALL=C sort -t$'\t' -k1,1`), one line per row: the rows are written
//! straight into store files (no write-ahead log, no memstore) and adopted when the file
//! is read whole. A line with the wrong number of fields fails the import, or is counted
//! and skipped with `--skip-bad-lines`. The store files are written by `--parallelism`
//! writer threads (default: the machine's cores), one region and family each at a time.

use crate::cli::ImportTsvArgs;
use crate::CliError;
use basalt_db::bulk_load::BulkLoadOptions;
use basalt_db::{Database, DbConfig};
use basalt_types::{Put, TableName, LATEST_TIMESTAMP};
use std::io::BufRead;

/// The row key's place in `--columns`, as ImportTsv names it.
const ROW_KEY: &str = "HBASE_ROW_KEY";

/// Where each field of a line goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    RowKey,
    Cell { family: String, qualifier: String },
}

/// Parses `--columns`: `HBASE_ROW_KEY` exactly once, the rest `family:qualifier`.
pub fn parse_columns(spec: &str) -> Result<Vec<Column>, String> {
    let columns: Vec<Column> = spec
        .split(',')
        .map(|c| match c.trim() {
            ROW_KEY => Ok(Column::RowKey),
            column => match column.split_once(':') {
                Some((family, qualifier)) if !family.is_empty() => Ok(Column::Cell {
                    family: family.to_string(),
                    qualifier: qualifier.to_string(),
                }),
                _ => Err(format!(
                    "column '{column}' is neither {ROW_KEY} nor family:qualifier"
                )),
            },
        })
        .collect::<Result<_, _>>()?;
    match columns.iter().filter(|c| **c == Column::RowKey).count() {
        1 => Ok(columns),
        0 => Err(format!("--columns must name {ROW_KEY}")),
        _ => Err(format!("--columns names {ROW_KEY} more than once")),
    }
}

/// The row of one line, or why the line is bad.
pub fn parse_line(
    line: &str,
    separator: &str,
    columns: &[Column],
    timestamp: i64,
) -> Result<Put, String> {
    let fields: Vec<&str> = line.split(separator).collect();
    if fields.len() != columns.len() {
        return Err(format!(
            "{} fields where --columns names {}",
            fields.len(),
            columns.len()
        ));
    }
    let row = columns
        .iter()
        .zip(&fields)
        .find(|(c, _)| **c == Column::RowKey)
        .map(|(_, f)| f.to_string())
        .unwrap_or_default();
    if row.is_empty() {
        return Err("empty row key".into());
    }
    let mut put = Put::new(row);
    for (column, field) in columns.iter().zip(fields) {
        if let Column::Cell { family, qualifier } = column {
            put = put.add_at(family.clone(), qualifier.clone(), timestamp, field);
        }
    }
    Ok(put)
}

/// Runs the import and prints what it loaded.
pub fn run(args: &ImportTsvArgs) -> Result<(), CliError> {
    crate::standalone::init_logging(&args.log, None)?;
    let fail = |message: String| CliError::Import(message);
    let columns = parse_columns(&args.columns).map_err(fail)?;
    // `\t` spelled out on the command line means a tab.
    let separator = args.separator.replace("\\t", "\t");
    if separator.is_empty() {
        return Err(fail("--separator must not be empty".into()));
    }
    let table = TableName::parse(&args.table).map_err(|e| fail(e.to_string()))?;
    let file = std::fs::File::open(&args.file).map_err(|source| CliError::ReadScript {
        path: args.file.clone(),
        source,
    })?;
    // Served in this process (as `basalt standalone` serves it), with no automatic split
    // while the files are written: the load goes to the region server's regions.
    let config = DbConfig {
        split_check_interval_ms: crate::hbck::SPLIT_CHECK_INTERVAL_MS,
        ..DbConfig::default()
    };
    let served = crate::in_process::InProcess::start(&args.data_dir, config)?;
    let input = std::io::BufReader::new(file);
    let result = import(served.database(), &table, &columns, &separator, args, input);
    let closed = served.close();
    let summary = result?;
    closed?;
    println!("{summary}");
    Ok(())
}

fn import(
    db: &std::sync::Arc<Database>,
    table: &TableName,
    columns: &[Column],
    separator: &str,
    args: &ImportTsvArgs,
    input: impl BufRead,
) -> Result<String, CliError> {
    let timestamp = args.timestamp.unwrap_or(LATEST_TIMESTAMP);
    let mut options = BulkLoadOptions::default();
    if let Some(parallelism) = args.parallelism {
        options.parallelism = parallelism;
    }
    let mut loader = db.bulk_loader(table, options).map_err(CliError::Connect)?;
    let mut bad_lines = 0u64;
    for (number, line) in input.lines().enumerate() {
        let line = line.map_err(|source| CliError::ReadScript {
            path: args.file.clone(),
            source,
        })?;
        if line.is_empty() {
            continue;
        }
        let at = |why: String| format!("{} line {}: {why}", args.file.display(), number + 1);
        match parse_line(&line, separator, columns, timestamp) {
            Ok(put) => loader
                .add(put)
                .map_err(|e| CliError::Import(at(e.message)))?,
            Err(why) if args.skip_bad_lines => {
                tracing::warn!("{}", at(why));
                bad_lines += 1;
            }
            Err(why) => return Err(CliError::Import(at(why))),
        }
    }
    let counts = loader.commit().map_err(CliError::Connect)?;
    Ok(format!(
        "imported {} rows ({} cells, {} bytes) into {} files in {} regions; {bad_lines} bad lines skipped",
        counts.rows, counts.cells, counts.bytes, counts.files, counts.regions_committed
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_need_one_row_key_and_family_qualifier_pairs() {
        assert_eq!(
            parse_columns("cf:a,HBASE_ROW_KEY,d:").expect("valid"),
            [
                Column::Cell {
                    family: "cf".into(),
                    qualifier: "a".into()
                },
                Column::RowKey,
                Column::Cell {
                    family: "d".into(),
                    qualifier: String::new()
                },
            ]
        );
        assert!(parse_columns("cf:a").is_err());
        assert!(parse_columns("HBASE_ROW_KEY,HBASE_ROW_KEY").is_err());
        assert!(parse_columns("HBASE_ROW_KEY,nocolon").is_err());
        assert!(parse_columns("HBASE_ROW_KEY,:q").is_err());
    }

    #[test]
    fn a_line_becomes_one_put() {
        let columns = parse_columns("HBASE_ROW_KEY,cf:a,cf:b").expect("valid");
        let put = parse_line("r1\tx\ty", "\t", &columns, 7).expect("good line");
        assert_eq!(put.row.as_ref(), b"r1");
        let cells: Vec<_> = put
            .cells
            .iter()
            .map(|c| (c.qualifier_bytes(), c.value_bytes(), c.timestamp()))
            .collect();
        assert_eq!(
            cells,
            [("a".into(), "x".into(), 7), ("b".into(), "y".into(), 7)]
        );
        assert!(parse_line("r1\tx", "\t", &columns, 7)
            .expect_err("short")
            .contains("2 fields"));
        assert!(parse_line("\tx\ty", "\t", &columns, 7).is_err());
        assert!(parse_line("r1,x,y", ",", &columns, 7).is_ok());
    }
}
