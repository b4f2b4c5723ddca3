//! No acknowledged write lost, every row read back exactly once.
//!
//! After a chaos run the harness scans the table once, from a quiet cluster, and compares
//! what came back with what it wrote: every row whose put was acknowledged must come back
//! with a value written to it, no row may come back twice, and no row may come back that
//! nobody (acknowledged or unsure) wrote.
//!
//! A row may have been written more than once; then any value an acknowledged or unknown
//! put wrote to it is accepted, since this check does not know their order (the
//! linearizability check does).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::history::Value;
use crate::show::{show_key, show_value};

/// An acknowledged row that did not come back with a value written to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostRow {
    pub row: Vec<u8>,
    /// The values acknowledged puts wrote to it.
    pub acked: Vec<Value>,
    /// What the scan returned for it instead (`None`: nothing).
    pub found: Option<Value>,
}

/// A row the scan returned more than once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicatedRow {
    pub row: Vec<u8>,
    pub times: usize,
}

/// A row, or a row's value, that no acknowledged or unknown put wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhantomRow {
    pub row: Vec<u8>,
    pub value: Value,
}

/// The durability check's findings, each list sorted by row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DurabilityReport {
    /// Distinct rows written by acknowledged puts, by unknown ones, and returned.
    pub acked_rows: usize,
    pub unknown_rows: usize,
    pub scanned_rows: usize,
    /// Rows written only by unknown puts that came back (they took effect).
    pub unknown_present: usize,
    pub lost: Vec<LostRow>,
    pub duplicated: Vec<DuplicatedRow>,
    pub phantom: Vec<PhantomRow>,
}

impl DurabilityReport {
    /// No row lost, duplicated or made up.
    pub fn is_clean(&self) -> bool {
        self.lost.is_empty() && self.duplicated.is_empty() && self.phantom.is_empty()
    }
}

/// Compares a final full scan (`(row, value)` pairs, duplicates kept) with the puts that
/// were acknowledged and those whose outcome is unknown.
pub fn check_durability(
    acked: &[(Vec<u8>, Value)],
    unknown: &[(Vec<u8>, Value)],
    scanned: &[(Vec<u8>, Value)],
) -> DurabilityReport {
    let mut acked_values: BTreeMap<&[u8], BTreeSet<&Value>> = BTreeMap::new();
    for (row, value) in acked {
        acked_values.entry(row).or_default().insert(value);
    }
    let mut unknown_values: BTreeMap<&[u8], BTreeSet<&Value>> = BTreeMap::new();
    for (row, value) in unknown {
        unknown_values.entry(row).or_default().insert(value);
    }
    let mut returned: BTreeMap<&[u8], Vec<&Value>> = BTreeMap::new();
    for (row, value) in scanned {
        returned.entry(row).or_default().push(value);
    }
    let written = |row: &[u8], value: &Value| {
        [&acked_values, &unknown_values]
            .iter()
            .any(|m| m.get(row).is_some_and(|s| s.contains(value)))
    };
    let mut report = DurabilityReport {
        acked_rows: acked_values.len(),
        unknown_rows: unknown_values.len(),
        scanned_rows: returned.len(),
        ..DurabilityReport::default()
    };
    for (&row, values) in &acked_values {
        let found = returned.get(row).map(Vec::as_slice).unwrap_or_default();
        if !found.iter().any(|v| written(row, v)) {
            report.lost.push(LostRow {
                row: row.to_vec(),
                acked: values.iter().map(|v| v.to_vec()).collect(),
                found: found.first().map(|v| v.to_vec()),
            });
        }
    }
    for (&row, values) in &returned {
        if values.len() > 1 {
            report.duplicated.push(DuplicatedRow {
                row: row.to_vec(),
                times: values.len(),
            });
        }
        if acked_values.contains_key(row) {
            continue;
        }
        if unknown_values.contains_key(row) && values.iter().any(|v| written(row, v)) {
            report.unknown_present += 1;
        }
        let made_up: BTreeSet<&Value> = values
            .iter()
            .copied()
            .filter(|v| !written(row, v))
            .collect();
        for value in made_up {
            report.phantom.push(PhantomRow {
                row: row.to_vec(),
                value: value.to_vec(),
            });
        }
    }
    report
}

/// A summary line, then one line per finding.
impl fmt::Display for DurabilityReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "durability: {} acknowledged rows, {} unknown ({} present), {} returned: {} lost, {} duplicated, {} phantom",
            self.acked_rows,
            self.unknown_rows,
            self.unknown_present,
            self.scanned_rows,
            self.lost.len(),
            self.duplicated.len(),
            self.phantom.len()
        )?;
        for lost in &self.lost {
            let acked: Vec<String> = lost.acked.iter().map(|v| show_value(Some(v))).collect();
            match &lost.found {
                None => write!(
                    f,
                    "\nlost row \"{}\": acknowledged {}, not returned",
                    show_key(&lost.row),
                    acked.join(" or ")
                )?,
                Some(v) => write!(
                    f,
                    "\nlost row \"{}\": acknowledged {}, returned {}",
                    show_key(&lost.row),
                    acked.join(" or "),
                    show_value(Some(v))
                )?,
            }
        }
        for dup in &self.duplicated {
            write!(
                f,
                "\nduplicated row \"{}\": returned {} times",
                show_key(&dup.row),
                dup.times
            )?;
        }
        for phantom in &self.phantom {
            write!(
                f,
                "\nphantom row \"{}\": returned {}, which no put wrote",
                show_key(&phantom.row),
                show_value(Some(&phantom.value))
            )?;
        }
        Ok(())
    }
}
