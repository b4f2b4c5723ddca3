//! Splits and merges as persisted procedures (cluster-design §5.4; §5.8 cases 7 and 15).
//!
//! A split or a merge takes steps on two machines: the region server writes the new
//! region(s) and stops the old one(s) taking writes; the master commits the catalog in one
//! transaction (the commit point); the old region(s) are then retired on their server. A
//! master dying in between would leave the old region refusing writes for ever (before
//! the commit) or still open beside its daughters (after). So each is recorded in
//! `procs/<id>` before its first step, the commit transaction marks the record
//! committed, and the last step removes it. A master that becomes active resumes every
//! record it finds:
//!
//! | record | meaning | what the new master does |
//! |--------|---------|--------------------------|
//! | prepared | the catalog still names the old region(s) | rolls back: their server drops the new folders and lets them take writes again |
//! | committed | the catalog names the new region(s) | rolls forward: the old region(s) retired on their server and marked offline |
//!
//! Both are idempotent, so a master dying while resuming leaves a record the next one
//! resumes again. The old regions' edits are safe either way: the server flushed them
//! before writing the new regions, and refused writes from then on.
//!
//! Table DDL (create, delete, truncate, modify) is recorded under `procs/` too, with its
//! own record and steps ([`crate::table_procs`], [`crate::table_steps`]);
//! [`Master::resume_procedures`] tells the two apart by the record's `kind`.

use crate::catalog::{ops, Assignment};
use crate::error::io;
use crate::master::Master;
use basalt_api::{ErrorKind, Result};
use basalt_coord::{layout, Op};
use basalt_db::meta::codec;
use basalt_db::meta::record::RegionRecord;
use basalt_proto::pb;
use basalt_proto::status::from_status;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How far a procedure got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Recorded; the server may have written the new regions; nothing committed.
    Prepared,
    /// The catalog names the new regions; the old ones are still to retire.
    Committed,
}

/// What the procedure does, with what its server was asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Split(pb::SplitRequestBody),
    Merge(pb::MergeRequestBody),
}

/// One `procs/<id>` record.
#[derive(Debug, Clone, PartialEq)]
pub struct Procedure {
    pub id: String,
    /// The server holding the old region(s).
    pub server: String,
    pub step: Step,
    pub kind: Kind,
    /// The old region(s), as retired when the procedure ends.
    pub old: Vec<RegionRecord>,
}

impl Procedure {
    pub fn new(id: String, server: &str, kind: Kind, old: Vec<RegionRecord>) -> Self {
        Self {
            id,
            server: server.to_owned(),
            step: Step::Prepared,
            kind,
            old,
        }
    }

    /// Records it (as it is now).
    pub fn put(&self) -> Op {
        ops_put(&self.id, self.encode())
    }

    /// This record, committed: part of the commit transaction.
    pub fn committed(&self) -> Op {
        let mut committed = self.clone();
        committed.step = Step::Committed;
        committed.put()
    }

    /// Removes it: part of the last step's transaction.
    pub fn done(&self) -> Op {
        Op::delete(layout::procedure(&self.id))
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut props = BTreeMap::new();
        props.insert("server".to_string(), self.server.clone());
        let step = match self.step {
            Step::Prepared => "prepared",
            Step::Committed => "committed",
        };
        props.insert("step".to_string(), step.to_string());
        match &self.kind {
            Kind::Split(body) => {
                props.insert("kind".into(), "split".into());
                props.insert("parent".into(), body.parent.clone());
                props.insert("split_key".into(), hex(&body.split_key));
                props.insert("bottom".into(), hex(&body.bottom));
                props.insert("top".into(), hex(&body.top));
            }
            Kind::Merge(body) => {
                props.insert("kind".into(), "merge".into());
                props.insert("low".into(), body.low.clone());
                props.insert("high".into(), body.high.clone());
                props.insert("merged".into(), hex(&body.merged));
            }
        }
        for (i, record) in self.old.iter().enumerate() {
            props.insert(format!("old.{i}"), hex(&codec::encode_region(record)));
        }
        codec::encode_properties(&props)
    }

    pub fn decode(id: &str, bytes: &[u8]) -> std::result::Result<Self, String> {
        let props = codec::decode_properties(bytes)?;
        let get = |name: &str| {
            props
                .get(name)
                .cloned()
                .ok_or_else(|| format!("procedure {id}: no {name}"))
        };
        let bytes_of = |name: &str| {
            get(name).and_then(|h| unhex(&h).map_err(|e| format!("procedure {id}: {name}: {e}")))
        };
        let step = match get("step")?.as_str() {
            "prepared" => Step::Prepared,
            "committed" => Step::Committed,
            other => return Err(format!("procedure {id}: unknown step {other:?}")),
        };
        let kind = match get("kind")?.as_str() {
            "split" => Kind::Split(pb::SplitRequestBody {
                parent: get("parent")?,
                split_key: bytes_of("split_key")?.into(),
                bottom: bytes_of("bottom")?.into(),
                top: bytes_of("top")?.into(),
            }),
            "merge" => Kind::Merge(pb::MergeRequestBody {
                low: get("low")?,
                high: get("high")?,
                merged: bytes_of("merged")?.into(),
            }),
            other => return Err(format!("procedure {id}: unknown kind {other:?}")),
        };
        let mut old = Vec::new();
        while let Some(h) = props.get(&format!("old.{}", old.len())) {
            let bytes = unhex(h).map_err(|e| format!("procedure {id}: old region: {e}"))?;
            old.push(codec::decode_region(&bytes).map_err(|e| format!("procedure {id}: {e}"))?);
        }
        Ok(Self {
            id: id.to_owned(),
            server: get("server")?,
            step,
            kind,
            old,
        })
    }
}

fn ops_put(id: &str, value: Vec<u8>) -> Op {
    Op::put(layout::procedure(id), value)
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(text: &str) -> std::result::Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) {
        return Err("odd hex length".into());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("not hex at {i}"))
        })
        .collect()
}

/// For tests of a master dying mid-procedure: `BASALT_TEST_MASTER_CRASH_AT=<point>` makes
/// the process abort at that point (`split.written`, `split.committed`, `merge.written`,
/// `merge.committed`; `scp.crashed`, a dead server's regions recorded CRASHED;
/// `assign.opening`, regions recorded OPENING before their server is asked; the table
/// procedures' points, listed in [`crate::table_steps`]). Unset, it does nothing.
pub fn crash_point(point: &str) {
    if std::env::var("BASALT_TEST_MASTER_CRASH_AT").as_deref() == Ok(point) {
        tracing::error!(point, "BASALT_TEST_MASTER_CRASH_AT: aborting here");
        std::process::abort();
    }
}

impl Master {
    /// Resumes every procedure a previous master left (see the module's story, and
    /// [`crate::table_procs`] for table DDL). One that cannot be finished now (its server
    /// unreachable) stays recorded and is logged.
    pub async fn resume_procedures(self: &Arc<Self>) {
        let listed = match self.coord.list(layout::PROCS.as_bytes()).await {
            Ok(listed) => listed,
            Err(e) => {
                tracing::error!(error = %e, "cannot list the procedures under way");
                return;
            }
        };
        let _p = self.procedures.lock().await;
        for kv in listed.kvs {
            let id = layout::name_under(&kv.key, layout::PROCS)
                .unwrap_or_default()
                .to_owned();
            // A table procedure ([`crate::table_procs`]) is resumed by its own steps.
            let props = codec::decode_properties(&kv.value).unwrap_or_default();
            if props
                .get("kind")
                .is_some_and(|k| crate::table_procs::KINDS.contains(&k.as_str()))
            {
                match crate::table_procs::TableProcedure::decode(&id, &props) {
                    Ok(p) => self.resume_table_procedure(&p).await,
                    Err(e) => {
                        tracing::error!(error = %e, "a procedure record cannot be read: left as it is")
                    }
                }
                continue;
            }
            let procedure = match Procedure::decode(&id, &kv.value) {
                Ok(p) => p,
                Err(e) => {
                    tracing::error!(error = %e, "a procedure record cannot be read: left as it is");
                    continue;
                }
            };
            tracing::warn!(id, step = ?procedure.step, kind = ?kind_name(&procedure.kind),
                server = %procedure.server, "resuming a procedure the previous master left");
            let resumed = match procedure.step {
                Step::Prepared => self.roll_back(&procedure).await,
                Step::Committed => self.roll_forward(&procedure).await,
            };
            match resumed {
                Ok(()) => tracing::info!(id, "procedure resumed and finished"),
                Err(e) => {
                    tracing::error!(id, error = %e, "a procedure could not be finished: it stays recorded")
                }
            }
        }
    }

    /// Before the commit: the server drops the new regions' folders and lets the old ones
    /// take writes again. A server that is gone has nothing to undo: its regions reopen
    /// elsewhere as the catalog still names them.
    async fn roll_back(self: &Arc<Self>, procedure: &Procedure) -> Result<()> {
        if self.servers.is_live(&procedure.server) {
            let mut client = self.servers.region_client(&procedure.server).await?;
            let undone = match &procedure.kind {
                Kind::Split(body) => client.abort_split(body.clone()).await,
                Kind::Merge(body) => client.abort_merge(body.clone()).await,
            };
            match undone.map_err(|s| from_status(&s)) {
                Ok(_) => {}
                // The old region is not open there any more (the server restarted, or
                // it was closed): nothing is held back.
                Err(e) if e.kind == ErrorKind::RetryElsewhere => {}
                Err(e) => return Err(e),
            }
        }
        for record in &procedure.old {
            self.end_transition(&record.encoded_name);
        }
        self.commit(vec![procedure.done()]).await?;
        tracing::warn!(id = %procedure.id, "rolled back: the old regions take writes again");
        Ok(())
    }

    /// After the commit: the old regions are retired on their server (if it is still up)
    /// and marked offline. The new ones are opened by the reconciler like any unplaced
    /// region.
    async fn roll_forward(self: &Arc<Self>, procedure: &Procedure) -> Result<()> {
        if self.servers.is_live(&procedure.server) {
            let mut client = self.servers.region_client(&procedure.server).await?;
            for record in &procedure.old {
                let retired = client
                    .retire_region(pb::RegionRecordBytes {
                        record: codec::encode_region(record).into(),
                    })
                    .await;
                match retired.map_err(|s| from_status(&s)) {
                    Ok(_) => {}
                    Err(e) if e.kind == ErrorKind::RetryElsewhere => {}
                    Err(e) => return Err(e),
                }
            }
        }
        let mut commit = vec![procedure.done()];
        let offline = Assignment::default();
        for record in &procedure.old {
            commit.push(ops::put_assignment(&record.encoded_name, &offline));
        }
        self.commit(commit).await?;
        {
            let mut catalog = self.catalog.write();
            for record in &procedure.old {
                catalog
                    .assign
                    .insert(record.encoded_name.clone(), offline.clone());
            }
        }
        for record in &procedure.old {
            self.end_transition(&record.encoded_name);
        }
        // The old regions' folders say they were split or merged (for `rebuild-meta`),
        // in case the previous master died before it wrote that.
        let retired: Vec<RegionRecord> = {
            let catalog = self.catalog.read();
            procedure
                .old
                .iter()
                .filter_map(|r| catalog.regions.get(&r.encoded_name).cloned())
                .collect()
        };
        self.describe_regions(retired).await;
        if let Err(e) = self.assign_unplaced().await {
            return Err(io(format!("opening the new regions: {e}")));
        }
        tracing::warn!(id = %procedure.id, "rolled forward: the old regions are retired");
        Ok(())
    }
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Split(_) => "split",
        Kind::Merge(_) => "merge",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_db::meta::record::RegionState;
    use basalt_types::TableName;
    use bytes::Bytes;

    fn record(id: u64, start: &'static [u8], end: &'static [u8]) -> RegionRecord {
        let table = TableName::parse("t").expect("name");
        RegionRecord::new(
            table,
            id,
            Bytes::from_static(start),
            Bytes::from_static(end),
            RegionState::Open,
        )
    }

    #[test]
    fn a_procedure_record_reads_back_as_written() {
        let parent = record(1, b"", b"");
        let (bottom, top) = (record(2, b"", b"m"), record(2, b"m", b""));
        let split = Procedure::new(
            "17".into(),
            "h,1,2",
            Kind::Split(pb::SplitRequestBody {
                parent: parent.encoded_name.clone(),
                split_key: Bytes::from_static(b"m\x00\xff"),
                bottom: codec::encode_region(&bottom).into(),
                top: codec::encode_region(&top).into(),
            }),
            vec![parent.clone()],
        );
        assert_eq!(Procedure::decode("17", &split.encode()), Ok(split.clone()));
        let mut committed = split.clone();
        committed.step = Step::Committed;
        assert_eq!(Procedure::decode("17", &committed.encode()), Ok(committed));

        let (low, high) = (record(3, b"", b"m"), record(4, b"m", b""));
        let merge = Procedure::new(
            "18".into(),
            "h,1,2",
            Kind::Merge(pb::MergeRequestBody {
                low: low.encoded_name.clone(),
                high: high.encoded_name.clone(),
                merged: codec::encode_region(&record(5, b"", b"")).into(),
            }),
            vec![low, high],
        );
        assert_eq!(Procedure::decode("18", &merge.encode()), Ok(merge));
    }

    #[test]
    fn a_damaged_record_is_named_not_guessed() {
        let error = Procedure::decode("9", b"junk").expect_err("not a record");
        assert!(!error.is_empty());
        let mut props = BTreeMap::new();
        props.insert("step".to_string(), "halfway".to_string());
        let error =
            Procedure::decode("9", &codec::encode_properties(&props)).expect_err("bad step");
        assert!(error.contains("procedure 9"), "{error}");
        assert_eq!(unhex("0g"), Err("not hex at 0".into()));
        assert_eq!(unhex(&hex(b"\x00\x7f\xff")), Ok(vec![0, 0x7f, 0xff]));
    }
}
