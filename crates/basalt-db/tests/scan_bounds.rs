//! Scans across many regions against a model: every combination of start and stop (at
//! region boundaries, at rows, between rows, empty), inclusive or not, forwards and
//! reversed, with and without a row limit and a batch size, must return exactly the rows
//! a sorted list gives — each once, in order, whole rows glued back from their batches.

use crate::support;

use basalt_api::PreSplit;
use basalt_db::DbConfig;
use basalt_types::{Put, Scan};
use bytes::Bytes;
use support::*;

const COLUMNS: usize = 3;

fn model(rows: &[String], scan: &Scan) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .filter(|r| scan.contains_row(r.as_bytes()))
        .cloned()
        .collect();
    if scan.reversed {
        out.reverse();
    }
    if let Some(limit) = scan.limit {
        out.truncate(limit as usize);
    }
    out
}

/// The rows a scan returns, checking that batches of one row arrive together and whole.
fn run(table: &dyn basalt_api::Table, scan: &Scan) -> Result<Vec<String>, String> {
    let mut rows: Vec<(String, usize)> = Vec::new();
    for part in table.scan(scan).map_err(|e| e.to_string())? {
        let part = part.map_err(|e| e.to_string())?;
        let key = String::from_utf8_lossy(part.row().expect("cells")).into_owned();
        match rows.last_mut() {
            Some((last, cells)) if *last == key => *cells += part.cells.len(),
            _ => rows.push((key, part.cells.len())),
        }
    }
    if let Some((row, cells)) = rows.iter().find(|(_, c)| *c != COLUMNS) {
        return Err(format!("row {row} came with {cells} cells"));
    }
    Ok(rows.into_iter().map(|(r, _)| r).collect())
}

#[test]
fn scans_across_regions_match_the_model() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    };
    let db = open(dir.path(), config);
    let t = descriptor("bounds", &["f"]);
    // Boundaries at rows (r10, r20, ...) and between rows (r15a, r55a).
    let splits: Vec<Bytes> = [
        "r10", "r15a", "r20", "r30", "r40", "r50", "r55a", "r60", "r80",
    ]
    .into_iter()
    .map(Bytes::from)
    .collect();
    db.admin
        .create_table(&t, &PreSplit::Keys(splits))
        .expect("create");
    let table = db.table(&t.name);
    // Even rows only, so some bounds fall between rows.
    let rows: Vec<String> = (0..100).step_by(2).map(|i| format!("r{i:02}")).collect();
    for row in &rows {
        let mut put = Put::new(row.clone());
        for c in 0..COLUMNS {
            put = put.add("f", format!("q{c}"), "v");
        }
        table.put(&put).expect("put");
    }
    db.admin.flush(&t.name).expect("flush");
    let bounds = [
        "", "r00", "r10", "r11", "r15a", "r16", "r20", "r55a", "r60", "r79", "r98", "r99", "s",
    ];
    let mut checked = 0;
    for start in bounds {
        for stop in bounds {
            for (start_inclusive, stop_inclusive) in
                [(true, false), (false, true), (true, true), (false, false)]
            {
                for reversed in [false, true] {
                    for (limit, batch) in [
                        (None, None),
                        (Some(3), None),
                        (None, Some(2)),
                        (Some(1), Some(1)),
                    ] {
                        let mut scan = Scan::new().start(start).stop(stop).reversed(reversed);
                        scan.start_inclusive = start_inclusive;
                        scan.stop_inclusive = stop_inclusive;
                        scan.limit = limit;
                        scan.batch = batch;
                        let expected = model(&rows, &scan);
                        let got = run(table.as_ref(), &scan);
                        assert!(
                            got.as_ref() == Ok(&expected),
                            "scan start={start:?}{} stop={stop:?}{} reversed={reversed} limit={limit:?} batch={batch:?}: got {got:?}, expected {expected:?}",
                            if start_inclusive { "[" } else { "(" },
                            if stop_inclusive { "]" } else { ")" },
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    eprintln!("{checked} scans match the model");
    drop(table);
    db.db.close().expect("close");
}
