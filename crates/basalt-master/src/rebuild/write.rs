//! Writing a rebuilt catalog into the coordinator, and the checks before it.
//!
//! Refused, always, while a master campaigns (`election/master/`) or a region server is
//! registered (`servers/`): a running master holds the catalog in memory and would not
//! see the rebuilt one, and a live region server still writes its log. Refused while a
//! catalog exists (any key under `tables/`, `table-state/`, `regions/`, `assign/`) unless
//! `force`: then the plan's keys replace it, and the catalog keys the store does not back
//! are removed, each one returned for the report (metadata only: no file is touched).
//! Namespaces already there are kept; the plan's are written over them.

use super::plan::Plan;
use crate::catalog::{ops, AssignState, Assignment};
use basalt_coord::{layout, Coordinator, Op, Txn};
use std::collections::BTreeSet;

/// Operations per transaction (etcd allows 128 by default).
const CHUNK: usize = 100;

/// The catalog keys found in the coordinator before the rebuild.
#[derive(Debug, Default)]
pub struct Existing {
    pub keys: Vec<Vec<u8>>,
    pub tables: usize,
    pub regions: usize,
}

async fn list(coord: &dyn Coordinator, prefix: &str) -> Result<Vec<Vec<u8>>, String> {
    Ok(coord
        .list(prefix.as_bytes())
        .await
        .map_err(|e| format!("cannot read the coordinator: {e}"))?
        .kvs
        .into_iter()
        .map(|kv| kv.key)
        .collect())
}

/// Refuses while a master or region server is running, or (without `force`) while a
/// catalog exists; returns the catalog keys there.
pub async fn check(coord: &dyn Coordinator, force: bool) -> Result<Existing, String> {
    let masters = list(coord, &format!("election/{}/", layout::MASTER_ELECTION)).await?;
    if !masters.is_empty() {
        return Err(format!(
            "{} master(s) are running: stop every master of the cluster first (an active master holds the catalog in memory and would not see the rebuilt one); --force does not override this",
            masters.len()
        ));
    }
    let servers = list(coord, layout::SERVERS).await?;
    if !servers.is_empty() {
        let names: Vec<String> = servers
            .iter()
            .filter_map(|k| layout::name_under(k, layout::SERVERS).map(str::to_string))
            .collect();
        return Err(format!(
            "region servers are registered ({}): stop them first (a live server still writes its log); --force does not override this",
            names.join(" ")
        ));
    }
    let mut existing = Existing::default();
    for prefix in [
        layout::TABLES,
        layout::TABLE_STATE,
        layout::REGIONS,
        layout::ASSIGN,
    ] {
        let keys = list(coord, prefix).await?;
        match prefix {
            layout::TABLES => existing.tables = keys.len(),
            layout::REGIONS => existing.regions = keys.len(),
            _ => {}
        }
        existing.keys.extend(keys);
    }
    if !existing.keys.is_empty() && !force {
        return Err(format!(
            "the coordinator already holds a catalog ({} tables, {} regions): nothing was written. rebuild-meta writes a catalog where there is none (etcd's data lost or wiped). To replace this one with what the store holds, run again with --force: the catalog keys the store does not back are then removed (each printed); no file on the store is touched",
            existing.tables, existing.regions
        ));
    }
    Ok(existing)
}

/// The coordinator changes that write `plan`, and the existing keys they remove.
pub fn changes(plan: &Plan, existing: &Existing) -> (Vec<Op>, Vec<Vec<u8>>) {
    let mut puts: Vec<Op> = plan.namespaces.iter().map(ops::put_namespace).collect();
    let mut written: BTreeSet<Vec<u8>> = BTreeSet::new();
    for table in &plan.tables {
        puts.push(ops::put_table(table));
        puts.push(ops::table_state(
            &table.name,
            !plan.disabled.contains(&table.name),
        ));
        written.insert(layout::table(&table.name.to_string()));
        written.insert(layout::table_state(&table.name.to_string()));
    }
    for record in &plan.regions {
        puts.push(ops::put_region(record));
        written.insert(layout::region(&record.encoded_name));
        if record.is_serving() {
            let offline = Assignment {
                state: AssignState::Offline,
                recover_from: plan.recover_from.clone(),
                ..Assignment::default()
            };
            puts.push(ops::put_assignment(&record.encoded_name, &offline));
            written.insert(layout::assign(&record.encoded_name));
        }
    }
    let removed: Vec<Vec<u8>> = existing
        .keys
        .iter()
        .filter(|k| !written.contains(*k))
        .cloned()
        .collect();
    let mut all: Vec<Op> = removed.iter().cloned().map(Op::delete).collect();
    all.extend(puts);
    (all, removed)
}

/// Writes `ops` in transactions of at most [`CHUNK`]; `progress` hears how many are done.
pub async fn write(
    coord: &dyn Coordinator,
    ops: Vec<Op>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), String> {
    let total = ops.len();
    let mut done = 0;
    for chunk in ops.chunks(CHUNK) {
        let txn = Txn {
            compares: vec![],
            success: chunk.to_vec(),
            failure: vec![],
        };
        coord.txn(txn).await.map_err(|e| {
            format!("writing the catalog stopped after {done} of {total} changes: {e}; run again with --force to finish it")
        })?;
        done += chunk.len();
        progress(done, total);
    }
    Ok(())
}
