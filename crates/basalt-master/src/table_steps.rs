//! The steps of the table procedures ([`crate::table_procs`]): run by the DDL call that
//! records one, and again from where its record says by a master that takes over. Every
//! step is idempotent, so a master dying while resuming leaves a record the next one
//! resumes again.
//!
//! Crash points ([`crate::procs::crash_point`], for tests): `create.written`,
//! `create.committed`, `create.assigned`; `drop.written`, `drop.regions_closed`,
//! `drop.committed`, `drop.files_removed`; `truncate.written`, `truncate.regions_closed`,
//! `truncate.committed`, `truncate.files_removed`; `modify.written`, `modify.committed`,
//! `modify.reopened`; `restore.written`, `restore.regions_closed`, `restore.committed`,
//! `restore.files_removed`.
//!
//! Table DDL waits until the procedures the previous master left are resumed
//! ([`Master::ddl_lock`]), so a resumed procedure finds the catalog as it was left.

use crate::catalog::{ops, AssignState};
use crate::error;
use crate::master::Master;
use crate::procs::{crash_point, Step};
use crate::table_procs::{direction, Direction, TableKind, TableProcedure};
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_coord::Op;
use basalt_db::meta::record::RegionRecord;
use basalt_types::{TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// HBase's answer while its master initialises.
const PLEASE_HOLD: &str = "org.apache.hadoop.hbase.PleaseHoldException";
/// How long table DDL waits for the previous master's procedures to be resumed.
const RESUME_WAIT: Duration = Duration::from_secs(30);

/// The crash-point prefix of a procedure (`create`, `drop`, `truncate`, `modify`).
fn point(p: &TableProcedure, step: &str) -> String {
    let prefix = match p.kind {
        TableKind::Create { .. } => "create",
        TableKind::Delete { .. } => "drop",
        TableKind::Truncate { .. } => "truncate",
        TableKind::Modify { .. } => "modify",
        TableKind::Restore { .. } => "restore",
    };
    format!("{prefix}.{step}")
}

impl Master {
    /// Table DDL is held back from activation until this is cleared.
    pub fn begin_resuming(&self) {
        self.resuming.store(true, Ordering::Release);
    }

    pub fn end_resuming(&self) {
        self.resuming.store(false, Ordering::Release);
        self.note_change();
    }

    /// The procedure lock for table DDL: once active and the previous master's procedures
    /// are resumed (a busy error past [`RESUME_WAIT`]).
    pub(crate) async fn ddl_lock(&self) -> Result<tokio::sync::MutexGuard<'_, ()>> {
        self.require_active()?;
        let resumed = |m: &Self| !m.resuming.load(Ordering::Acquire);
        if !self
            .changed(resumed, Duration::from_millis(200), RESUME_WAIT)
            .await
        {
            return Err(ApiError::new(
                ErrorKind::Busy,
                PLEASE_HOLD,
                "the master is still resuming the procedures the previous master left; try again",
            ));
        }
        Ok(self.procedures.lock().await)
    }

    /// Records a new table procedure, then runs its steps; the DDL call's answer.
    pub(crate) async fn run_table_procedure(self: &Arc<Self>, p: TableProcedure) -> Result<()> {
        self.commit(vec![p.put()]).await?;
        tracing::info!(id = %p.id, procedure = p.hbase_name(), table = %p.descriptor.name,
            "procedure recorded");
        crash_point(&point(&p, "written"));
        self.table_steps(&p).await
    }

    /// Resumes a record the previous master left, the way [`direction`] says.
    pub(crate) async fn resume_table_procedure(self: &Arc<Self>, p: &TableProcedure) {
        let way = direction(p);
        tracing::warn!(id = %p.id, procedure = p.hbase_name(), table = %p.descriptor.name,
            step = ?p.step, direction = ?way, "resuming a table procedure the previous master left");
        let resumed = match way {
            Direction::Back => self.roll_table_back(p).await,
            Direction::Forward => self.table_steps(p).await,
        };
        match resumed {
            Ok(()) => tracing::warn!(id = %p.id, procedure = p.hbase_name(),
                table = %p.descriptor.name, "{} {}", p.hbase_name(),
                match way { Direction::Back => "rolled back", Direction::Forward => "rolled forward" }),
            Err(e) => tracing::error!(id = %p.id, procedure = p.hbase_name(), error = %e,
                "a table procedure could not be finished: it stays recorded"),
        }
    }

    /// The steps left of `p`, forward from its recorded step.
    async fn table_steps(self: &Arc<Self>, p: &TableProcedure) -> Result<()> {
        match &p.kind {
            TableKind::Create { regions } => self.create_steps(p, regions).await,
            TableKind::Delete { regions } => self.delete_steps(p, regions).await,
            TableKind::Truncate { old, new } => self.truncate_steps(p, old, new, true).await,
            TableKind::Restore { old, new } => self.truncate_steps(p, old, new, false).await,
            TableKind::Modify { old } => self.modify_steps(p, old).await,
        }
    }

    async fn finish(&self, p: &TableProcedure) -> Result<()> {
        self.commit(vec![p.done()]).await?;
        tracing::info!(id = %p.id, procedure = p.hbase_name(), table = %p.descriptor.name,
            "procedure finished");
        Ok(())
    }

    async fn create_steps(
        self: &Arc<Self>,
        p: &TableProcedure,
        regions: &[RegionRecord],
    ) -> Result<()> {
        if p.step == Step::Prepared {
            self.commit_regions(&p.descriptor, regions, vec![], vec![p.committed()], true)
                .await?;
            tracing::info!(table = %p.descriptor.name, regions = regions.len(), "created");
            crash_point("create.committed");
        }
        // A region no server takes now stays OFFLINE: any server joining opens it.
        let assigned = self.assign_unplaced().await;
        crash_point("create.assigned");
        self.finish(p).await?;
        assigned
    }

    async fn delete_steps(self: &Arc<Self>, p: &TableProcedure, regions: &[String]) -> Result<()> {
        let table = &p.descriptor.name;
        if p.step == Step::Prepared && self.superseded(p, regions, false) {
            return self.finish(p).await;
        }
        if p.step == Step::Prepared {
            let names = self.regions_with(table, regions);
            self.close_for_removal(p, &names).await?;
            crash_point("drop.regions_closed");
            let body = names.iter().flat_map(|r| ops::delete_region(r)).collect();
            let mut tail = ops::delete_table(table);
            tail.extend(self.table_grant_deletions(table));
            tail.push(p.committed());
            self.commit_with_tail(body, tail).await?;
            self.forget_table_grants(table);
            {
                let mut catalog = self.catalog.write();
                catalog.tables.remove(table);
                for r in &names {
                    catalog.regions.remove(r);
                    catalog.assign.remove(r);
                }
            }
            // Regions waiting for a server (CRASHED) are not waiting any more.
            self.end_transitions(&names);
            tracing::info!(table = %table, regions = names.len(), "deleted from the catalog");
            crash_point("drop.committed");
        }
        // The catalog names neither the table nor its regions now: its files go.
        if self.catalog.read().tables.contains_key(table) {
            self.remove_region_folders(table, regions)?;
        } else {
            self.remove_folder(&self.table_dir(table))?;
        }
        crash_point("drop.files_removed");
        self.finish(p).await
    }

    /// A truncate's steps (`enabled`: the table is enabled and the new regions assigned at
    /// the end), or a restore's (the table stays disabled: nothing assigned).
    async fn truncate_steps(
        self: &Arc<Self>,
        p: &TableProcedure,
        old: &[String],
        new: &[RegionRecord],
        enabled: bool,
    ) -> Result<()> {
        let table = &p.descriptor.name;
        if p.step == Step::Prepared && self.superseded(p, old, true) {
            return self.finish(p).await;
        }
        if p.step == Step::Prepared {
            let fresh: BTreeSet<&str> = new.iter().map(|r| r.encoded_name.as_str()).collect();
            let mut names = self.regions_with(table, old);
            names.retain(|r| !fresh.contains(r.as_str()));
            self.close_for_removal(p, &names).await?;
            crash_point(&point(p, "regions_closed"));
            let forget: Vec<Op> = names.iter().flat_map(|r| ops::delete_region(r)).collect();
            self.commit_regions(&p.descriptor, new, forget, vec![p.committed()], enabled)
                .await?;
            {
                let mut catalog = self.catalog.write();
                for r in &names {
                    catalog.regions.remove(r);
                    catalog.assign.remove(r);
                }
            }
            self.end_transitions(&names);
            tracing::info!(table = %table, regions = new.len(), procedure = p.hbase_name(),
                "new regions in the catalog, the old ones gone");
            crash_point(&point(p, "committed"));
        }
        self.remove_region_folders(table, old)?;
        crash_point(&point(p, "files_removed"));
        if !enabled {
            // A restored table stays disabled: its regions open when it is enabled.
            return self.finish(p).await;
        }
        let assigned = self.assign_unplaced().await;
        self.finish(p).await?;
        assigned
    }

    async fn modify_steps(
        self: &Arc<Self>,
        p: &TableProcedure,
        old: &TableDescriptor,
    ) -> Result<()> {
        let table = &p.descriptor.name;
        if p.step == Step::Prepared {
            self.commit(vec![ops::put_table(&p.descriptor), p.committed()])
                .await?;
            if let Some(t) = self.catalog.write().tables.get_mut(table) {
                t.descriptor = p.descriptor.clone();
            }
            crash_point("modify.committed");
        }
        // Families the change dropped and the table has not been given again since (a
        // record left by a failed reopen, resumed after another alter).
        let now = self
            .catalog
            .read()
            .tables
            .get(table)
            .map(|t| t.descriptor.clone());
        let dropped: Vec<Bytes> = old
            .families
            .iter()
            .filter(|f| p.descriptor.family(&f.name).is_none())
            .filter(|f| now.as_ref().is_none_or(|d| d.family(&f.name).is_none()))
            .map(|f| f.name.clone())
            .collect();
        self.reopen_without(table, &dropped).await?;
        crash_point("modify.reopened");
        self.finish(p).await
    }

    /// Before a create's catalog commit: the new regions' entries (from a commit cut
    /// short) removed; any folder of theirs set aside in the quarantine, never deleted.
    async fn roll_table_back(self: &Arc<Self>, p: &TableProcedure) -> Result<()> {
        let regions = match &p.kind {
            TableKind::Create { regions } => regions,
            TableKind::Modify { .. } => return self.commit(vec![p.done()]).await,
            _ => return self.table_steps(p).await,
        };
        let body = regions
            .iter()
            .flat_map(|r| ops::delete_region(&r.encoded_name))
            .collect();
        self.commit_with_tail(body, vec![p.done()]).await?;
        {
            let mut catalog = self.catalog.write();
            for r in regions {
                catalog.regions.remove(&r.encoded_name);
                catalog.assign.remove(&r.encoded_name);
            }
        }
        for r in regions {
            let dir = self.table_dir(&r.table).join(&r.encoded_name);
            if !self.fs.exists(&dir).unwrap_or(false) {
                continue;
            }
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            let reason = "a region of a create rolled back before its catalog commit";
            let root = &self.config.store_root;
            if let Err(e) =
                basalt_storage::quarantine::move_in(self.fs.as_ref(), root, &dir, reason, now_ms)
            {
                tracing::error!(folder = %dir.display(), error = %e,
                    "cannot set aside a rolled-back create's folder: left in place");
            }
        }
        Ok(())
    }

    /// Whether an uncommitted delete or truncate is about another table than the catalog's
    /// (the record outlived a failure and the table was dropped or created again since):
    /// then it is dropped, and nothing else done. A truncate `needs_table`.
    fn superseded(&self, p: &TableProcedure, recorded: &[String], needs_table: bool) -> bool {
        let catalog = self.catalog.read();
        let table = &p.descriptor.name;
        let why = match catalog.tables.contains_key(table) {
            false if needs_table => "the table no longer exists",
            false => return false,
            true if recorded.is_empty()
                || recorded.iter().any(|r| catalog.regions.contains_key(r)) =>
            {
                return false
            }
            true => "the table was created again since",
        };
        tracing::warn!(id = %p.id, procedure = p.hbase_name(), table = %table, why,
            "a recorded procedure no longer applies: dropped, nothing changed");
        true
    }

    /// `recorded`, with every other region the catalog names for `table`.
    fn regions_with(&self, table: &TableName, recorded: &[String]) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = recorded.iter().cloned().collect();
        names.extend(self.all_regions(table).into_iter().map(|r| r.encoded_name));
        names
    }

    /// Closes whichever of `regions` a server still holds; fails (the record stays) if one
    /// is still held on a live server: no file is removed under an open region.
    async fn close_for_removal(
        self: &Arc<Self>,
        p: &TableProcedure,
        regions: &BTreeSet<String>,
    ) -> Result<()> {
        let held = |m: &Self| -> Vec<(String, String)> {
            let catalog = m.catalog.read();
            regions
                .iter()
                .filter_map(|r| {
                    let a = catalog.assign.get(r)?;
                    let holding = matches!(
                        a.state,
                        AssignState::Open | AssignState::Opening | AssignState::Closing
                    );
                    Some((r.clone(), a.server.clone().filter(|_| holding)?))
                })
                .collect()
        };
        let closing: Vec<String> = held(self).into_iter().map(|(r, _)| r).collect();
        if !closing.is_empty() {
            tracing::info!(procedure = p.hbase_name(), table = %p.descriptor.name,
                regions = closing.len(), "closing the table's regions before removing them");
            self.close(closing).await?;
        }
        let open: Vec<String> = held(self)
            .into_iter()
            .filter(|(_, server)| self.servers.is_live(server))
            .map(|(r, server)| format!("{r} on {server}"))
            .collect();
        if !open.is_empty() {
            return Err(error::io(format!(
                "{} of {}: regions still open ({}); nothing is removed until they close",
                p.hbase_name(),
                p.descriptor.name,
                open.join(", ")
            )));
        }
        Ok(())
    }

    /// Removes the folders of `regions` the catalog no longer names.
    fn remove_region_folders(&self, table: &TableName, regions: &[String]) -> Result<()> {
        for r in regions {
            if !self.catalog.read().regions.contains_key(r) {
                self.remove_folder(&self.table_dir(table).join(r))?;
            }
        }
        Ok(())
    }
}
