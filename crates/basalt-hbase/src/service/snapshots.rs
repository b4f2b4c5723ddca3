//! `MasterService`'s snapshot calls, as HBase 2.x clients make them: `Snapshot`, then
//! `IsSnapshotDone` until done; `GetCompletedSnapshots`; `DeleteSnapshot`;
//! `RestoreSnapshot`, which is both `restoreSnapshot` (the named table exists: it must be
//! disabled, and is rolled back) and `cloneSnapshot` (it does not: a new table), answered
//! with a procedure id the client then waits on (`getProcedureResult` answers finished);
//! and HBase 1.x's `IsRestoreSnapshotDone`.
//!
//! Basalt's snapshot calls are synchronous, so by the time `Snapshot` answers the snapshot
//! is listed, and `IsSnapshotDone` answers done for any listed snapshot; one that is not
//! is HBase's `UnknownSnapshotException`.

use super::{answer, decode, Answer, Service};
use crate::pb;
use crate::RpcError;
use basalt_api::{SnapshotDescription, SnapshotOptions};
use basalt_types::TableName;
use bytes::Bytes;

/// The methods this file answers.
pub const METHODS: &[&str] = &[
    "Snapshot",
    "IsSnapshotDone",
    "GetCompletedSnapshots",
    "DeleteSnapshot",
    "RestoreSnapshot",
    "IsRestoreSnapshotDone",
];

/// How long HBase's client is told a snapshot may take (ms); it is done when answered.
const EXPECTED_TIMEOUT_MS: i64 = 60_000;

pub fn call(service: &Service, method: &str, param: &Bytes, proc_id: u64) -> Answer {
    let admin = service.conn.admin();
    match method {
        "Snapshot" => {
            let request: pb::SnapshotRequest = decode(param, "SnapshotRequest")?;
            let s = request.snapshot;
            let table = table_of(s.table.as_deref(), &s.name)?;
            let options = SnapshotOptions {
                skip_flush: s.r#type == Some(pb::snapshot_description::Type::Skipflush as i32),
                ttl_secs: s.ttl.filter(|t| *t > 0).map(|t| t as u64),
            };
            admin.snapshot(&table, &s.name, &options)?;
            answer(pb::SnapshotResponse {
                expected_timeout: EXPECTED_TIMEOUT_MS,
                proc_id: None,
            })
        }
        "IsSnapshotDone" => {
            let request: pb::IsSnapshotDoneRequest = decode(param, "IsSnapshotDoneRequest")?;
            let Some(asked) = request.snapshot else {
                return answer(pb::IsSnapshotDoneResponse {
                    done: Some(true),
                    snapshot: None,
                });
            };
            match find(service, &asked.name)? {
                Some(found) => answer(pb::IsSnapshotDoneResponse {
                    done: Some(true),
                    snapshot: Some(description(&found)),
                }),
                None => Err(RpcError::new(
                    "org.apache.hadoop.hbase.snapshot.UnknownSnapshotException",
                    format!("Snapshot '{}' is not running and was not taken", asked.name),
                    true,
                )),
            }
        }
        "GetCompletedSnapshots" => answer(pb::GetCompletedSnapshotsResponse {
            snapshots: admin
                .list_snapshots(None)?
                .iter()
                .map(description)
                .collect(),
        }),
        "DeleteSnapshot" => {
            let request: pb::DeleteSnapshotRequest = decode(param, "DeleteSnapshotRequest")?;
            admin.delete_snapshot(&request.snapshot.name)?;
            answer(pb::DeleteSnapshotResponse {})
        }
        "RestoreSnapshot" => {
            let request: pb::RestoreSnapshotRequest = decode(param, "RestoreSnapshotRequest")?;
            let s = request.snapshot;
            let taken = find(service, &s.name)?.ok_or_else(|| {
                RpcError::from(basalt_api::ApiError::new(
                    basalt_api::ErrorKind::NotFound,
                    basalt_api::snapshot::SNAPSHOT_DOES_NOT_EXIST,
                    format!("Snapshot '{}' doesn't exist on the filesystem", s.name),
                ))
            })?;
            let target = match s.table.as_deref().filter(|t| !t.is_empty()) {
                Some(t) => table_of(Some(t), &s.name)?,
                None => taken.table.clone(),
            };
            if admin.table_exists(&target)? {
                if target != taken.table {
                    return Err(RpcError::do_not_retry(format!(
                        "snapshot '{}' is of table {}: it restores that table only \
                         (clone it to a new table instead of restoring it into {target})",
                        s.name, taken.table
                    )));
                }
                admin.restore_snapshot(&s.name)?;
            } else {
                admin.clone_snapshot(&s.name, &target)?;
            }
            answer(pb::RestoreSnapshotResponse { proc_id })
        }
        "IsRestoreSnapshotDone" => {
            let _: pb::IsRestoreSnapshotDoneRequest =
                decode(param, "IsRestoreSnapshotDoneRequest")?;
            answer(pb::IsRestoreSnapshotDoneResponse { done: Some(true) })
        }
        other => Err(RpcError::do_not_retry(format!(
            "not a snapshot call: {other}"
        ))),
    }
}

fn table_of(table: Option<&str>, snapshot: &str) -> Result<TableName, RpcError> {
    let text = table.unwrap_or_default();
    TableName::parse(text).map_err(|e| {
        RpcError::do_not_retry(format!(
            "snapshot '{snapshot}': bad table name '{text}': {e}"
        ))
    })
}

fn find(service: &Service, name: &str) -> Result<Option<SnapshotDescription>, RpcError> {
    Ok(service
        .conn
        .admin()
        .list_snapshots(None)?
        .into_iter()
        .find(|s| s.name == name))
}

/// HBase's description of a snapshot: the table as `ns:qualifier` (the qualifier alone
/// in the default namespace), a flushed snapshot, its TTL in seconds.
fn description(s: &SnapshotDescription) -> pb::SnapshotDescription {
    pb::SnapshotDescription {
        name: s.name.clone(),
        table: Some(s.table.to_string()),
        creation_time: Some(s.creation_time_ms),
        r#type: Some(pb::snapshot_description::Type::Flush as i32),
        version: Some(s.version as i32),
        owner: None,
        ttl: Some(s.ttl_secs.map_or(0, |t| t as i64)),
    }
}
