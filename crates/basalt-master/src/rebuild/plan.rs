//! The rebuild's decisions, as data: from what the store holds ([`StoreScan`]) to the
//! catalog to write and what to report. Pure: golden tests below.
//!
//! - A region is what its `.regioninfo` says; a folder whose file is missing, damaged, or
//!   names another table or folder is not rebuilt (left in place, reported).
//! - A parent the master marked `SPLIT` / `MERGED` stays retired when the regions that
//!   replaced it are on the store; when one is missing it comes back live (reported).
//! - An unmarked region whose range is exactly covered by two newer regions (its
//!   daughters) is a split parent; one inside a newer region's wider range, a merged
//!   parent. Both are retired (never deleted: the janitor removes them once nothing refers
//!   to them), and reported as inferred.
//! - The live regions of each table must cover its key space once: holes and overlaps are
//!   reported as inconsistencies, never repaired.
//! - Every live region is written OFFLINE, naming every dead server's log to replay
//!   (`recover_from`): edits not yet flushed are read before it serves.

use super::scan::StoreScan;
use basalt_db::health::tiling_problems;
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_types::{NamespaceDescriptor, TableDescriptor};
use std::collections::{BTreeMap, BTreeSet};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Decided from the store, worth knowing (an inferred split, a namespace without file).
    Note,
    /// Part of the store cannot be served as it is: nothing is written unless the operator
    /// accepts it.
    Inconsistent,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub what: String,
}

/// The catalog to write, and what to report.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub namespaces: Vec<NamespaceDescriptor>,
    pub tables: Vec<TableDescriptor>,
    /// Tables whose folder says they were disabled.
    pub disabled: std::collections::BTreeSet<basalt_types::TableName>,
    /// Every region record, live and retired.
    pub regions: Vec<RegionRecord>,
    /// Dead servers whose logs every live region reads before it serves.
    pub recover_from: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Plan {
    pub fn live(&self) -> impl Iterator<Item = &RegionRecord> {
        self.regions.iter().filter(|r| r.is_serving())
    }
    pub fn inconsistent(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Inconsistent)
            .count()
    }
}

fn note(findings: &mut Vec<Finding>, severity: Severity, what: String) {
    findings.push(Finding { severity, what });
}

pub fn plan(scan: &StoreScan) -> Plan {
    let mut out = Plan {
        recover_from: scan.logs.clone(),
        ..Plan::default()
    };
    let findings = &mut out.findings;
    for what in &scan.unreadable {
        note(findings, Severity::Inconsistent, what.clone());
    }
    let mut namespaces: BTreeMap<String, NamespaceDescriptor> = scan
        .namespaces
        .iter()
        .map(|ns| (ns.name.clone(), ns.clone()))
        .collect();
    for table in &scan.tables {
        let descriptor = match &table.descriptor {
            Ok(d) if d.name == table.name => d.clone(),
            Ok(d) => {
                note(findings, Severity::Inconsistent, format!(
                    "table {}: its .tableinfo describes {}; the table is not rebuilt (its folders are left in place)",
                    table.name, d.name));
                continue;
            }
            Err(e) => {
                note(findings, Severity::Inconsistent, format!(
                    "table {}: no readable descriptor ({e}); the table is not rebuilt (its folders are left in place)",
                    table.name));
                continue;
            }
        };
        let ns = table.name.namespace().to_string();
        if !namespaces.contains_key(&ns) {
            note(findings, Severity::Note, format!(
                "namespace {ns}: no namespaces/{ns}.nsinfo on the store; created without properties"));
            namespaces.insert(
                ns.clone(),
                NamespaceDescriptor {
                    name: ns,
                    properties: BTreeMap::new(),
                },
            );
        }
        let mut records = Vec::new();
        for region in &table.regions {
            match &region.record {
                Ok(r) if r.table == table.name && r.encoded_name == region.folder => {
                    records.push(r.clone())
                }
                Ok(r) => note(findings, Severity::Inconsistent, format!(
                    "table {}: folder {} holds a .regioninfo of region {}; not rebuilt (left in place)",
                    table.name, region.folder, r.region_name())),
                Err(e) => note(findings, Severity::Inconsistent, format!(
                    "table {}: folder {}: {e}; not rebuilt (left in place)",
                    table.name, region.folder)),
            }
        }
        let records = retire(records, findings);
        let mut live: Vec<&RegionRecord> = records.iter().filter(|r| r.is_serving()).collect();
        live.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        for problem in tiling_problems(&table.name, &live) {
            note(
                findings,
                Severity::Inconsistent,
                format!(
                    "table {}: {} {}",
                    table.name,
                    problem.kind.name(),
                    problem.detail
                ),
            );
        }
        if table.disabled {
            out.disabled.insert(table.name.clone());
        }
        out.tables.push(descriptor);
        out.regions.extend(records);
    }
    out.namespaces = namespaces.into_values().collect();
    out
}

/// Decides which regions are retired parents (marked, or inferred from the newer regions
/// covering them); every other region is live.
fn retire(mut records: Vec<RegionRecord>, findings: &mut Vec<Finding>) -> Vec<RegionRecord> {
    let present: BTreeSet<String> = records.iter().map(|r| r.encoded_name.clone()).collect();
    for r in &mut records {
        let missing: Vec<&String> = match &r.state {
            RegionState::Split { daughters: (a, b) } => [a, b]
                .into_iter()
                .filter(|d| !present.contains(*d))
                .collect(),
            RegionState::Merged { into } => [into]
                .into_iter()
                .filter(|d| !present.contains(*d))
                .collect(),
            _ => continue,
        };
        if !missing.is_empty() {
            note(
                findings,
                Severity::Note,
                format!(
                    "{} is marked {} but {} is not on the store: it comes back live",
                    r.region_name(),
                    state_name(&r.state),
                    missing
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            );
            r.state = RegionState::Open;
        }
    }
    let snapshot = records.clone();
    for r in records.iter_mut().filter(|r| r.is_serving()) {
        let newer: Vec<&RegionRecord> = snapshot
            .iter()
            .filter(|o| o.region_id > r.region_id && o.encoded_name != r.encoded_name)
            .collect();
        if let Some((a, b)) = daughters_of(r, &newer) {
            note(
                findings,
                Severity::Note,
                format!(
                    "{} is a split parent (its daughters {} and {} cover its range): retired",
                    r.region_name(),
                    a,
                    b
                ),
            );
            r.state = RegionState::Split { daughters: (a, b) };
        } else if let Some(into) = newer.iter().find(|o| wider(o, r)) {
            note(
                findings,
                Severity::Note,
                format!(
                    "{} is a merged parent ({} covers its range): retired",
                    r.region_name(),
                    into.region_name()
                ),
            );
            r.state = RegionState::Merged {
                into: into.encoded_name.clone(),
            };
        }
    }
    records
}

fn state_name(state: &RegionState) -> &'static str {
    match state {
        RegionState::Split { .. } => "SPLIT",
        RegionState::Merged { .. } => "MERGED",
        RegionState::Splitting => "SPLITTING",
        RegionState::Open => "OPEN",
    }
}

/// Two newer regions that exactly cover `parent`'s range, split at a key inside it.
fn daughters_of(parent: &RegionRecord, newer: &[&RegionRecord]) -> Option<(String, String)> {
    newer.iter().find_map(|low| {
        if low.start_key != parent.start_key
            || low.end_key.is_empty()
            || !parent.contains_row(&low.end_key)
        {
            return None;
        }
        newer
            .iter()
            .find(|high| high.start_key == low.end_key && high.end_key == parent.end_key)
            .map(|high| (low.encoded_name.clone(), high.encoded_name.clone()))
    })
}

/// Whether `outer`'s range holds `inner`'s and more.
fn wider(outer: &RegionRecord, inner: &RegionRecord) -> bool {
    let starts_before = outer.start_key <= inner.start_key;
    let ends_after =
        outer.end_key.is_empty() || (!inner.end_key.is_empty() && outer.end_key >= inner.end_key);
    starts_before
        && ends_after
        && (outer.start_key != inner.start_key || outer.end_key != inner.end_key)
}
