//! Reads by brute force: every row in range, every family, every column, HBase's rules.

use super::prune::{cell_ttl_expired, oldest_unexpired, Markers, Masked};
use super::{FamilyModel, Model};
use basalt_types::{Cell, KeepDeletedCells, RowResult, Scan};
use bytes::Bytes;
use std::collections::BTreeSet;

pub fn scan(model: &Model, scan: &Scan, now_ms: i64) -> Vec<RowResult> {
    let cells: Vec<Vec<Cell>> = model.families.iter().map(FamilyModel::all_cells).collect();
    let mut rows: Vec<Bytes> = cells
        .iter()
        .flatten()
        .map(|c| c.row_bytes())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if scan.reversed {
        rows.reverse();
    }
    let mut results = Vec::new();
    for row in rows.into_iter().filter(|r| scan.contains_row(r)) {
        if scan.limit.is_some_and(|l| results.len() as u64 >= l) {
            break;
        }
        let mut out = Vec::new();
        for (family, cells) in model.families.iter().zip(&cells) {
            if !scan.columns.wants_family(&family.descriptor.name) {
                continue;
            }
            let row_cells: Vec<&Cell> = cells.iter().filter(|c| c.row() == row).collect();
            if scan.raw {
                read_raw(family, &row_cells, scan, now_ms, &mut out);
            } else {
                read_family(family, &row_cells, scan, now_ms, &mut out);
            }
        }
        if !out.is_empty() {
            results.push(RowResult::new(out));
        }
    }
    results
}

fn read_family(
    family: &FamilyModel,
    cells: &[&Cell],
    scan: &Scan,
    now_ms: i64,
    out: &mut Vec<Cell>,
) {
    let d = &family.descriptor;
    let oldest = oldest_unexpired(d, now_ms);
    let expired = |ts: i64| ts < oldest;
    let range = scan.time_range;
    let max_versions = scan.max_versions.min(d.max_versions);
    let mut markers = Markers::default();
    for marker in cells.iter().filter(|c| c.is_delete()) {
        if d.min_versions == 0 && expired(marker.timestamp()) {
            continue;
        }
        let tracked = match d.keep_deleted_cells {
            KeepDeletedCells::False => range.is_all() || marker.timestamp() >= range.min,
            _ => range.contains(marker.timestamp()),
        };
        if tracked {
            markers.add(marker);
        }
    }
    let qualifiers: BTreeSet<Bytes> = cells
        .iter()
        .filter(|c| !c.is_delete())
        .map(|c| c.qualifier_bytes())
        .collect();
    for qualifier in qualifiers {
        let mut count = 0;
        let mut previous_ts = None;
        let puts = cells
            .iter()
            .filter(|c| !c.is_delete() && c.qualifier() == qualifier);
        for put in puts {
            if d.min_versions == 0 && expired(put.timestamp()) {
                break;
            }
            if cell_ttl_expired(put, now_ms) || (!range.is_all() && put.timestamp() >= range.max) {
                continue;
            }
            if !range.contains(put.timestamp()) {
                break;
            }
            if markers.masks(put) != Masked::No {
                continue;
            }
            if !scan.columns.wants(&d.name, &qualifier) {
                break;
            }
            if previous_ts == Some(put.timestamp()) {
                continue;
            }
            count += 1;
            if count > max_versions || (expired(put.timestamp()) && count > d.min_versions) {
                break;
            }
            previous_ts = Some(put.timestamp());
            out.push((*put).clone());
        }
    }
}

/// Raw reads ignore the family TTL (HBase sets the cutoff to 0 for raw scans); cell TTLs
/// still apply, and versions count puts only, against the scan's VERSIONS.
fn read_raw(family: &FamilyModel, cells: &[&Cell], scan: &Scan, now_ms: i64, out: &mut Vec<Cell>) {
    let d = &family.descriptor;
    let range = scan.time_range;
    let max_versions = scan.max_versions;
    for column in cells.chunk_by(|a, b| a.qualifier() == b.qualifier()) {
        let mut count = 0;
        let mut previous = None;
        for cell in column {
            if !cell.is_delete() && cell_ttl_expired(cell, now_ms) {
                continue;
            }
            if !range.is_all() && cell.timestamp() >= range.max {
                continue;
            }
            if !range.contains(cell.timestamp()) {
                break;
            }
            if !scan.columns.wants(&d.name, cell.qualifier()) {
                break;
            }
            if previous == Some((cell.timestamp(), cell.cell_type())) {
                continue;
            }
            if !cell.is_delete() {
                count += 1;
            }
            if count > max_versions {
                break;
            }
            previous = Some((cell.timestamp(), cell.cell_type()));
            out.push((*cell).clone());
        }
    }
}
