//! Table DDL as persisted procedures, named as HBase names them: `CreateTableProcedure`,
//! `DeleteTableProcedure`, `TruncateTableProcedure`, `ModifyTableProcedure`,
//! `RestoreSnapshotProcedure`.
//!
//! Each is recorded in `procs/<id>` (beside splits and merges, [`crate::procs`]) before its
//! first side effect, with what the next master needs to finish or undo it: the table's
//! descriptor, and the regions it creates or removes. The catalog change is the commit
//! point: the transaction that ends it also marks the record committed. The last step
//! removes the record. A master that becomes active resumes each record it finds, in the
//! direction [`direction`] decides:
//!
//! | procedure | prepared (before the catalog commit) | committed |
//! |-----------|--------------------------------------|-----------|
//! | create | back: no table; the new regions' entries removed, any folder set aside | forward: regions assigned |
//! | delete | forward: regions closed, catalog entries removed, then the files | forward: the files removed |
//! | truncate | forward: as delete, then the new empty regions committed and assigned | forward: old files removed, new regions assigned |
//! | restore | forward: as truncate, the new regions (the snapshot's) committed with the table still DISABLED | forward: old files removed; nothing assigned |
//! | modify | back: the old descriptor stays | forward: every region reopened with the new one |
//!
//! A delete, truncate or restore goes forward even from its first step: the user asked for it and
//! the table was already disabled. No file is removed before the catalog says the table
//! (or the truncated region) is gone and its regions are closed.

use crate::catalog::new_record;
use crate::procs::{hex, unhex, Step};
use basalt_coord::{layout, Op};
use basalt_db::meta::codec;
use basalt_db::meta::record::RegionRecord;
use basalt_types::{TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;

/// What the procedure does, with the regions it needs.
#[derive(Debug, Clone, PartialEq)]
pub enum TableKind {
    /// The new table's regions (committed OFFLINE with the table).
    Create { regions: Vec<RegionRecord> },
    /// Every region the table had (serving or retired), by encoded name.
    Delete { regions: Vec<String> },
    /// The regions removed (encoded names) and the empty ones replacing them.
    Truncate {
        old: Vec<String>,
        new: Vec<RegionRecord>,
    },
    /// The descriptor being replaced (the record's descriptor is the new one).
    Modify { old: TableDescriptor },
    /// `restore_snapshot`: as `Truncate` (the new regions' folders hold the snapshot's
    /// files, written before the record), but the table stays disabled throughout and
    /// after, as HBase's `RestoreSnapshotProcedure` keeps it.
    Restore {
        old: Vec<String>,
        new: Vec<RegionRecord>,
    },
}

/// Which way a master resuming the procedure takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Back,
    Forward,
}

/// One table procedure's `procs/<id>` record.
#[derive(Debug, Clone, PartialEq)]
pub struct TableProcedure {
    pub id: String,
    pub step: Step,
    /// The table's descriptor (for a modify: the new one).
    pub descriptor: TableDescriptor,
    pub kind: TableKind,
}

/// The `kind` values of table procedures in a record.
pub const KINDS: [&str; 5] = [
    "create_table",
    "delete_table",
    "truncate_table",
    "modify_table",
    "restore_snapshot",
];

/// Which way a resumed procedure goes (see the module's table).
pub fn direction(procedure: &TableProcedure) -> Direction {
    match (&procedure.kind, procedure.step) {
        (TableKind::Create { .. } | TableKind::Modify { .. }, Step::Prepared) => Direction::Back,
        _ => Direction::Forward,
    }
}

impl TableProcedure {
    pub fn new(id: String, descriptor: TableDescriptor, kind: TableKind) -> Self {
        Self {
            id,
            step: Step::Prepared,
            descriptor,
            kind,
        }
    }

    /// HBase's name for it, in the record and in the master's log lines.
    pub fn hbase_name(&self) -> &'static str {
        match self.kind {
            TableKind::Create { .. } => "CreateTableProcedure",
            TableKind::Delete { .. } => "DeleteTableProcedure",
            TableKind::Truncate { .. } => "TruncateTableProcedure",
            TableKind::Modify { .. } => "ModifyTableProcedure",
            TableKind::Restore { .. } => "RestoreSnapshotProcedure",
        }
    }

    fn kind_name(&self) -> &'static str {
        match self.kind {
            TableKind::Create { .. } => KINDS[0],
            TableKind::Delete { .. } => KINDS[1],
            TableKind::Truncate { .. } => KINDS[2],
            TableKind::Modify { .. } => KINDS[3],
            TableKind::Restore { .. } => KINDS[4],
        }
    }

    /// Records it (as it is now).
    pub fn put(&self) -> Op {
        Op::put(layout::procedure(&self.id), self.encode())
    }

    /// This record, committed: part of the commit transaction.
    pub fn committed(&self) -> Op {
        let mut committed = self.clone();
        committed.step = Step::Committed;
        committed.put()
    }

    /// Removes it: the last step.
    pub fn done(&self) -> Op {
        Op::delete(layout::procedure(&self.id))
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut props = BTreeMap::new();
        props.insert("kind".to_string(), self.kind_name().to_string());
        props.insert("procedure".to_string(), self.hbase_name().to_string());
        props.insert("table".to_string(), self.descriptor.name.to_string());
        let step = match self.step {
            Step::Prepared => "prepared",
            Step::Committed => "committed",
        };
        props.insert("step".to_string(), step.to_string());
        props.insert(
            "descriptor".to_string(),
            hex(&codec::encode_table(&self.descriptor)),
        );
        match &self.kind {
            TableKind::Create { regions } => put_regions(&mut props, "regions", regions),
            TableKind::Delete { regions } => {
                props.insert("regions".to_string(), regions.join(","));
            }
            TableKind::Truncate { old, new } | TableKind::Restore { old, new } => {
                props.insert("old_regions".to_string(), old.join(","));
                put_regions(&mut props, "new", new);
            }
            TableKind::Modify { old } => {
                props.insert("old_descriptor".to_string(), hex(&codec::encode_table(old)));
            }
        }
        codec::encode_properties(&props)
    }

    /// Reads a record whose `kind` is one of [`KINDS`]; a damaged one is named, not guessed.
    pub fn decode(id: &str, props: &BTreeMap<String, String>) -> Result<Self, String> {
        let get = |name: &str| {
            props
                .get(name)
                .cloned()
                .ok_or_else(|| format!("procedure {id}: no {name}"))
        };
        let descriptor_at = |name: &str| {
            let bytes = unhex(&get(name)?).map_err(|e| format!("procedure {id}: {name}: {e}"))?;
            codec::decode_table(&bytes).map_err(|e| format!("procedure {id}: {name}: {e}"))
        };
        let names = |name: &str| {
            get(name).map(|list| {
                list.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
        };
        let descriptor = descriptor_at("descriptor")?;
        let records = |prefix: &str| get_regions(id, props, prefix, &descriptor.name);
        let step = match get("step")?.as_str() {
            "prepared" => Step::Prepared,
            "committed" => Step::Committed,
            other => return Err(format!("procedure {id}: unknown step {other:?}")),
        };
        let kind = match get("kind")?.as_str() {
            "create_table" => TableKind::Create {
                regions: records("regions")?,
            },
            "delete_table" => TableKind::Delete {
                regions: names("regions")?,
            },
            "truncate_table" => TableKind::Truncate {
                old: names("old_regions")?,
                new: records("new")?,
            },
            "modify_table" => TableKind::Modify {
                old: descriptor_at("old_descriptor")?,
            },
            "restore_snapshot" => TableKind::Restore {
                old: names("old_regions")?,
                new: records("new")?,
            },
            other => return Err(format!("procedure {id}: not a table procedure: {other:?}")),
        };
        Ok(Self {
            id: id.to_owned(),
            step,
            descriptor,
            kind,
        })
    }
}

/// New regions as one id and their split points (they tile the table, as a create or
/// truncate makes them): a few bytes a region, so a table of thousands of regions fits in
/// one coordinator value.
fn put_regions(props: &mut BTreeMap<String, String>, prefix: &str, regions: &[RegionRecord]) {
    let id = regions.first().map_or(0, |r| r.region_id);
    props.insert(format!("{prefix}.id"), id.to_string());
    let splits: Vec<String> = regions.iter().skip(1).map(|r| hex(&r.start_key)).collect();
    props.insert(format!("{prefix}.splits"), splits.join(","));
}

fn get_regions(
    id: &str,
    props: &BTreeMap<String, String>,
    prefix: &str,
    table: &TableName,
) -> Result<Vec<RegionRecord>, String> {
    let field = |name: String| {
        props
            .get(&name)
            .ok_or_else(|| format!("procedure {id}: no {name}"))
    };
    let region_id: u64 = field(format!("{prefix}.id"))?
        .parse()
        .map_err(|e| format!("procedure {id}: {prefix}.id: {e}"))?;
    let mut bounds = vec![Bytes::new()];
    for h in field(format!("{prefix}.splits"))?
        .split(',')
        .filter(|h| !h.is_empty())
    {
        let key = unhex(h).map_err(|e| format!("procedure {id}: {prefix}.splits: {e}"))?;
        bounds.push(Bytes::from(key));
    }
    bounds.push(Bytes::new());
    Ok(bounds
        .windows(2)
        .map(|w| new_record(table, region_id, w[0].clone(), w[1].clone()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_db::meta::record::RegionState;
    use basalt_types::{FamilyDescriptor, TableName};
    use bytes::Bytes;

    fn descriptor(families: &[&'static [u8]]) -> TableDescriptor {
        TableDescriptor::new(
            TableName::parse("ns:t").expect("name"),
            families
                .iter()
                .map(|f| FamilyDescriptor::new(Bytes::from_static(f)).expect("family"))
                .collect(),
        )
    }

    fn record(start: &'static [u8], end: &'static [u8]) -> RegionRecord {
        RegionRecord::new(
            TableName::parse("ns:t").expect("name"),
            7,
            Bytes::from_static(start),
            Bytes::from_static(end),
            RegionState::Open,
        )
    }

    #[test]
    fn new_regions_are_recorded_as_an_id_and_split_points() {
        let tiled = vec![
            record(b"", b"m\x00"),
            record(b"m\x00", b"z"),
            record(b"z", b""),
        ];
        let p = TableProcedure::new(
            "5".into(),
            descriptor(&[b"f"]),
            TableKind::Create { regions: tiled },
        );
        let props = codec::decode_properties(&p.encode()).expect("props");
        assert_eq!(props["regions.id"], "7");
        assert_eq!(props["regions.splits"], "6d00,7a");
        assert_eq!(read_back(&p), Ok(p.clone()));
        let one = TableProcedure::new(
            "6".into(),
            descriptor(&[b"f"]),
            TableKind::Create {
                regions: vec![record(b"", b"")],
            },
        );
        assert_eq!(read_back(&one), Ok(one.clone()));
    }

    fn read_back(p: &TableProcedure) -> Result<TableProcedure, String> {
        let props = codec::decode_properties(&p.encode())?;
        TableProcedure::decode(&p.id, &props)
    }

    fn all() -> Vec<TableProcedure> {
        let d = descriptor(&[b"f", b"g"]);
        let regions = vec![record(b"", b"m"), record(b"m", b"")];
        let names: Vec<String> = regions.iter().map(|r| r.encoded_name.clone()).collect();
        vec![
            TableProcedure::new("1".into(), d.clone(), TableKind::Create { regions }),
            TableProcedure::new(
                "2".into(),
                d.clone(),
                TableKind::Delete {
                    regions: names.clone(),
                },
            ),
            TableProcedure::new(
                "3".into(),
                d.clone(),
                TableKind::Truncate {
                    old: names,
                    new: vec![record(b"", b"")],
                },
            ),
            TableProcedure::new(
                "4".into(),
                descriptor(&[b"f"]),
                TableKind::Modify { old: d.clone() },
            ),
            TableProcedure::new(
                "5".into(),
                d,
                TableKind::Restore {
                    old: vec!["gone".into()],
                    new: vec![record(b"", b"k"), record(b"k", b"")],
                },
            ),
        ]
    }

    #[test]
    fn every_table_procedure_reads_back_as_written_in_both_steps() {
        for mut p in all() {
            assert_eq!(read_back(&p), Ok(p.clone()));
            p.step = Step::Committed;
            assert_eq!(read_back(&p), Ok(p.clone()));
        }
    }

    #[test]
    fn the_record_names_the_procedure_as_hbase_does() {
        let names: Vec<(String, String)> = all()
            .iter()
            .map(|p| {
                let props = codec::decode_properties(&p.encode()).expect("props");
                (props["kind"].clone(), props["procedure"].clone())
            })
            .collect();
        let expected = [
            ("create_table", "CreateTableProcedure"),
            ("delete_table", "DeleteTableProcedure"),
            ("truncate_table", "TruncateTableProcedure"),
            ("modify_table", "ModifyTableProcedure"),
            ("restore_snapshot", "RestoreSnapshotProcedure"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, p)| (k.to_string(), p.to_string()))
            .collect();
        assert_eq!(names, expected);
    }

    /// The golden table of the module's story.
    #[test]
    fn only_an_uncommitted_create_or_modify_is_rolled_back() {
        let got: Vec<(&str, Direction, Direction)> = all()
            .into_iter()
            .map(|mut p| {
                let prepared = direction(&p);
                p.step = Step::Committed;
                (p.hbase_name(), prepared, direction(&p))
            })
            .collect();
        use Direction::{Back, Forward};
        assert_eq!(
            got,
            vec![
                ("CreateTableProcedure", Back, Forward),
                ("DeleteTableProcedure", Forward, Forward),
                ("TruncateTableProcedure", Forward, Forward),
                ("ModifyTableProcedure", Back, Forward),
                ("RestoreSnapshotProcedure", Forward, Forward),
            ]
        );
    }

    #[test]
    fn a_damaged_table_record_is_named_not_guessed() {
        let whole = codec::decode_properties(&all()[0].encode()).expect("props");
        let mut props = whole.clone();
        props.insert("regions.splits".into(), "zz".into());
        let error = TableProcedure::decode("1", &props).expect_err("bad split point");
        assert!(
            error.contains("procedure 1") && error.contains("regions.splits"),
            "{error}"
        );
        props.remove("descriptor");
        let error = TableProcedure::decode("1", &props).expect_err("no descriptor");
        assert!(error.contains("no descriptor"), "{error}");
        let mut props = whole;
        props.insert("kind".into(), "split".into());
        let error = TableProcedure::decode("1", &props).expect_err("not ours");
        assert!(error.contains("not a table procedure"), "{error}");
    }
}
