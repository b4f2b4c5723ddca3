//! Questions about regions (where, how big, how busy) and the region work the master
//! routes to the servers holding them: flushes, compactions, splits and merges.

use crate::catalog::{ops, AssignState, Assignment};
use crate::error;
use crate::master::Master;
use crate::procs::{crash_point, Kind, Procedure};
use basalt_api::{ApiError, ErrorKind, RegionLocation, RegionReport, RegionState, Result};
use basalt_db::meta::codec;
use basalt_db::meta::record::{RegionRecord, RegionState as RecordState};
use basalt_db::snapshot::lineage::Cause;
use basalt_proto::pb;
use basalt_proto::status::from_status;
use basalt_types::TableName;
use bytes::Bytes;
use std::time::Duration;

/// How long the master waits for one region server's report.
pub(crate) const REPORT_TIMEOUT: Duration = Duration::from_secs(5);
use std::collections::BTreeMap;
use std::sync::Arc;

impl Master {
    /// The region of `table` holding `row` and its server; RegionInTransition while it has
    /// none (moving, or its table disabled).
    pub fn locate(&self, table: &TableName, row: &[u8]) -> Result<RegionLocation> {
        let catalog = self.catalog.read();
        let state = catalog.table(table)?;
        if !state.enabled {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                "org.apache.hadoop.hbase.TableNotEnabledException",
                table.to_string(),
            ));
        }
        let region = catalog.region_for(table, row).ok_or_else(|| {
            error::in_transition(format!(
                "no region of {table} holds row {} now",
                basalt_types::escape::to_string_binary(row)
            ))
        })?;
        let a = catalog.assignment(&region.encoded_name);
        let server = match (a.state, a.server) {
            (AssignState::Open, Some(server)) => server,
            (AssignState::Closed | AssignState::Offline, _) => {
                // HBase's answer for a region on no server; clients retry it, then give up.
                return Err(ApiError::new(
                    ErrorKind::RetryElsewhere,
                    error::NO_SERVER_FOR_REGION,
                    format!(
                        "No server address listed in hbase:meta for region {} containing row {}",
                        region.region_name(),
                        basalt_types::escape::to_string_binary(row)
                    ),
                ));
            }
            (AssignState::FailedOpen, _) => {
                // Not retried: the region stays closed until it is opened again (assign,
                // disable and enable, a restart); the cause names the damaged file.
                let cause = a.failure.as_deref().unwrap_or("its open failed");
                let cause = cause
                    .strip_prefix(error::NOT_SERVING)
                    .and_then(|c| c.strip_prefix(": "))
                    .unwrap_or(cause);
                return Err(ApiError::new(
                    ErrorKind::DataCorruption,
                    error::NOT_SERVING,
                    match cause.contains("FAILED_OPEN") {
                        true => cause.to_string(),
                        false => format!("Region {} is FAILED_OPEN: {cause}", region.region_name()),
                    },
                ));
            }
            (state, _) => {
                return Err(error::in_transition(format!(
                    "region {} is {}",
                    region.region_name(),
                    state.name()
                )))
            }
        };
        Ok(RegionLocation {
            region_name: region.region_name(),
            start_key: region.start_key.clone(),
            end_key: region.end_key.clone(),
            server,
        })
    }

    /// Every server's report, by server name (a server that does not answer is left out).
    pub async fn reports(&self) -> BTreeMap<String, pb::ServerReport> {
        // Asked of every server at once: a slow or stuck one costs one timeout, not the
        // sum of them, and answers nothing.
        let mut calls = tokio::task::JoinSet::new();
        for server in self.servers.live() {
            let (hosts, servers) = (self.hosts.clone(), self.servers.clone());
            calls.spawn(async move {
                let call = hosts.server_report(&servers, &server.name);
                let report = tokio::time::timeout(REPORT_TIMEOUT, call).await;
                (server.name, report)
            });
        }
        let mut reports = BTreeMap::new();
        while let Some(done) = calls.join_next().await {
            match done {
                Ok((name, Ok(Ok(report)))) => {
                    reports.insert(name, report);
                }
                Ok((name, Ok(Err(error)))) => {
                    tracing::debug!(server = %name, error = %error, "no server report");
                }
                Ok((name, Err(_))) => {
                    tracing::warn!(server = %name, "a server report timed out");
                }
                Err(e) => tracing::warn!(error = %e, "a server report task failed"),
            }
        }
        reports
    }

    pub async fn list_regions(&self, table: &TableName) -> Result<Vec<RegionReport>> {
        self.catalog.read().table(table)?;
        let reports = self.reports().await;
        let mut live: BTreeMap<String, RegionReport> = BTreeMap::new();
        for report in reports.into_values() {
            for r in report.regions {
                if let Ok(r) = RegionReport::try_from(r) {
                    live.insert(r.encoded_name.clone(), r);
                }
            }
        }
        Ok(self
            .catalog_regions(table)?
            .into_iter()
            .map(|recorded| match live.remove(&recorded.encoded_name) {
                Some(report) if recorded.state == RegionState::Open => report,
                _ => recorded,
            })
            .collect())
    }

    /// `table`'s serving regions as the catalog records them: where each is assigned and
    /// its state, without sizes or request counts (only the servers' reports have those).
    /// What `hbase:meta` is built from: it asks no region server.
    pub fn catalog_regions(&self, table: &TableName) -> Result<Vec<RegionReport>> {
        let catalog = self.catalog.read();
        catalog.table(table)?;
        Ok(catalog
            .serving(table)
            .into_iter()
            .map(|record| {
                let a = catalog.assignment(&record.encoded_name);
                RegionReport {
                    table: table.clone(),
                    region_name: record.region_name(),
                    encoded_name: record.encoded_name.clone(),
                    start_key: record.start_key.clone(),
                    end_key: record.end_key.clone(),
                    server: a.server.clone().unwrap_or_default(),
                    store_files: 0,
                    store_file_bytes: 0,
                    memstore_bytes: 0,
                    read_requests: 0,
                    write_requests: 0,
                    state: match a.state {
                        AssignState::FailedOpen => RegionState::FailedOpen,
                        AssignState::Open => RegionState::Open,
                        _ => RegionState::Closed,
                    },
                    failure: a.failure.clone(),
                }
            })
            .collect())
    }

    /// The open region `name` (encoded or full name) and its server.
    fn open_region(&self, name: &str) -> Result<(RegionRecord, String)> {
        let catalog = self.catalog.read();
        let record = catalog.find(name)?.clone();
        let a = catalog.assignment(&record.encoded_name);
        match (a.state, a.server) {
            (AssignState::Open, Some(server)) => Ok((record, server)),
            (state, _) => Err(error::in_transition(format!(
                "region {} is {}",
                record.region_name(),
                state.name()
            ))),
        }
    }

    /// Flushes (`compact` None) or compacts regions where they are open.
    pub async fn region_work(
        &self,
        regions: Vec<String>,
        compact: Option<(Option<Bytes>, bool)>,
    ) -> Result<()> {
        for name in regions {
            let (record, server) = self.open_region(&name)?;
            let mut client = self.servers.admin_client(&server).await?;
            let done = match &compact {
                None => client
                    .flush_region(pb::RegionName {
                        name: record.encoded_name.clone(),
                    })
                    .await
                    .map(|_| ()),
                Some((family, major)) => client
                    .compact_region(pb::CompactRegionRequest {
                        region: record.encoded_name.clone(),
                        family: family.clone(),
                        major: *major,
                    })
                    .await
                    .map(|_| ()),
            };
            done.map_err(|s| from_status(&s))?;
        }
        Ok(())
    }

    pub fn table_regions(&self, table: &TableName) -> Result<Vec<String>> {
        let catalog = self.catalog.read();
        catalog.table(table)?;
        Ok(catalog
            .serving(table)
            .iter()
            .map(|r| r.encoded_name.clone())
            .collect())
    }

    /// Splits every region of `table` at its midpoint, or the one holding `key` at `key`.
    pub async fn split(self: &Arc<Self>, table: &TableName, key: Option<&[u8]>) -> Result<()> {
        self.require_active()?;
        let targets: Vec<String> = {
            let catalog = self.catalog.read();
            let state = catalog.table(table)?;
            if !state.descriptor.split_enabled {
                return Err(ApiError::new(
                    ErrorKind::InvalidRequest,
                    error::DO_NOT_RETRY,
                    format!("Split is disabled for table {table}"),
                ));
            }
            match key {
                Some(key) => catalog
                    .region_for(table, key)
                    .map(|r| r.encoded_name.clone())
                    .into_iter()
                    .collect(),
                None => catalog
                    .serving(table)
                    .iter()
                    .map(|r| r.encoded_name.clone())
                    .collect(),
            }
        };
        for region in targets {
            self.split_region(&region, key.map(Bytes::copy_from_slice))
                .await?;
        }
        Ok(())
    }

    /// Splits one region on its server: the server writes the daughters (referring to the
    /// parent's files), the master commits parent SPLIT + daughters in one transaction,
    /// then the daughters open on the same server and the parent is retired there.
    pub async fn split_region(self: &Arc<Self>, region: &str, key: Option<Bytes>) -> Result<bool> {
        let _p = self.procedures.lock().await;
        let (parent, server) = self.open_region(region)?;
        let mut client = self.servers.region_client(&server).await?;
        let key = match key {
            Some(key) => key,
            None => match client
                .split_point(pb::RegionName {
                    name: parent.encoded_name.clone(),
                })
                .await
                .map_err(|s| from_status(&s))?
                .into_inner()
                .key
            {
                Some(key) => key,
                None => return Ok(false),
            },
        };
        if !parent.contains_row(&key) || key == parent.start_key {
            return Err(ApiError::invalid(format!(
                "Split key {} is not inside region {}",
                basalt_types::escape::to_string_binary(&key),
                parent.region_name()
            )));
        }
        let id = self.next_region_id();
        let bottom = RegionRecord::new(
            parent.table.clone(),
            id,
            parent.start_key.clone(),
            key.clone(),
            RecordState::Open,
        );
        let top = RegionRecord::new(
            parent.table.clone(),
            id,
            key.clone(),
            parent.end_key.clone(),
            RecordState::Open,
        );
        // Before anything changes: a daughter must never take an edit unrecorded.
        self.record_lineage(&parent.table, Cause::Split, &[&bottom, &top], &[&parent])?;
        let body = pb::SplitRequestBody {
            parent: parent.encoded_name.clone(),
            split_key: key.clone(),
            bottom: codec::encode_region(&bottom).into(),
            top: codec::encode_region(&top).into(),
        };
        let procedure = Procedure::new(
            id.to_string(),
            &server,
            Kind::Split(body.clone()),
            vec![parent.clone()],
        );
        self.commit(vec![procedure.put()]).await?;
        self.begin_transition(&parent.encoded_name, "SPLITTING", &server);
        if let Err(s) = client.write_split(body.clone()).await {
            self.end_transition(&parent.encoded_name);
            let _ = self.commit(vec![procedure.done()]).await;
            return Err(from_status(&s));
        }
        crash_point("split.written");
        let mut split = parent.clone();
        split.state = RecordState::Split {
            daughters: (bottom.encoded_name.clone(), top.encoded_name.clone()),
        };
        let offline = Assignment::default();
        let commit = self
            .commit(vec![
                ops::put_region(&split),
                ops::put_region(&bottom),
                ops::put_region(&top),
                ops::put_assignment(&bottom.encoded_name, &offline),
                ops::put_assignment(&top.encoded_name, &offline),
                procedure.committed(),
            ])
            .await;
        if let Err(e) = commit {
            let _ = client.abort_split(body).await;
            self.end_transition(&parent.encoded_name);
            let _ = self.commit(vec![procedure.done()]).await;
            return Err(e);
        }
        self.describe_regions(vec![split.clone()]).await;
        crash_point("split.committed");
        {
            let mut catalog = self.catalog.write();
            catalog
                .regions
                .insert(split.encoded_name.clone(), split.clone());
            for d in [&bottom, &top] {
                catalog.regions.insert(d.encoded_name.clone(), d.clone());
                catalog
                    .assign
                    .insert(d.encoded_name.clone(), offline.clone());
            }
        }
        let opened = self
            .open_on(vec![
                (bottom.encoded_name.clone(), server.clone()),
                (top.encoded_name.clone(), server.clone()),
            ])
            .await;
        client
            .retire_region(pb::RegionRecordBytes {
                record: codec::encode_region(&parent).into(),
            })
            .await
            .map_err(|s| from_status(&s))?;
        let retired = Assignment {
            server: None,
            open_seq: 0,
            state: AssignState::Offline,
            failure: None,
            recover_from: Vec::new(),
        };
        self.commit(vec![
            ops::put_assignment(&parent.encoded_name, &retired),
            procedure.done(),
        ])
        .await?;
        self.catalog
            .write()
            .assign
            .insert(parent.encoded_name.clone(), retired);
        self.end_transition(&parent.encoded_name);
        tracing::info!(region = %parent.region_name(), "split");
        opened.map(|()| true)
    }

    /// Whether `low` and `high` still serve their rows, both open on `server` — checked
    /// under the procedure lock, after whatever ran before the merge took it. Retired (by
    /// a merge or split that won): not retried. Moved or moving: retried.
    fn still_mergeable(&self, low: &RegionRecord, high: &RegionRecord, server: &str) -> Result<()> {
        let catalog = self.catalog.read();
        for r in [low, high] {
            if !catalog.find(&r.encoded_name)?.is_serving() {
                return Err(ApiError::new(
                    ErrorKind::InvalidRequest,
                    error::DO_NOT_RETRY,
                    format!(
                        "Unable to merge: region {} was merged or split away meanwhile",
                        r.region_name()
                    ),
                ));
            }
            let a = catalog.assignment(&r.encoded_name);
            if a.state != AssignState::Open || a.server.as_deref() != Some(server) {
                return Err(error::in_transition(format!(
                    "Unable to merge: region {} moved meanwhile (it is {} on {}, not on {server})",
                    r.region_name(),
                    a.state.name(),
                    a.server.as_deref().unwrap_or("no server")
                )));
            }
        }
        Ok(())
    }

    /// Merges two adjacent regions: moved onto one server first if apart, then written
    /// there as one region referring to both, committed, opened, and the two retired.
    pub async fn merge(self: &Arc<Self>, a: &str, b: &str) -> Result<()> {
        self.require_active()?;
        let (mut low, mut high) = {
            let catalog = self.catalog.read();
            (catalog.find(a)?.clone(), catalog.find(b)?.clone())
        };
        if low.start_key > high.start_key {
            std::mem::swap(&mut low, &mut high);
        }
        if low.table != high.table || low.end_key != high.start_key {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                error::DO_NOT_RETRY,
                format!(
                    "Unable to merge not adjacent regions {} and {}",
                    low.region_name(),
                    high.region_name()
                ),
            ));
        }
        if !self
            .catalog
            .read()
            .table(&low.table)?
            .descriptor
            .merge_enabled
        {
            return Err(ApiError::new(
                ErrorKind::InvalidRequest,
                error::DO_NOT_RETRY,
                format!("Merge is disabled for table {}", low.table),
            ));
        }
        let (_, server) = self.open_region(&low.encoded_name)?;
        let (_, high_server) = self.open_region(&high.encoded_name)?;
        if high_server != server {
            self.move_region(&high.encoded_name, Some(&server)).await?;
        }
        let _p = self.procedures.lock().await;
        // Checked again under the lock: a move, the balancer or another merge may have run
        // between the checks above and now.
        self.still_mergeable(&low, &high, &server)?;
        let merged = RegionRecord::new(
            low.table.clone(),
            self.next_region_id(),
            low.start_key.clone(),
            high.end_key.clone(),
            RecordState::Open,
        );
        // Before anything changes: the merged region must never take an edit unrecorded.
        self.record_lineage(&low.table, Cause::Merge, &[&merged], &[&low, &high])?;
        let mut client = self.servers.region_client(&server).await?;
        let body = pb::MergeRequestBody {
            low: low.encoded_name.clone(),
            high: high.encoded_name.clone(),
            merged: codec::encode_region(&merged).into(),
        };
        let procedure = Procedure::new(
            merged.region_id.to_string(),
            &server,
            Kind::Merge(body.clone()),
            vec![low.clone(), high.clone()],
        );
        self.commit(vec![procedure.put()]).await?;
        if let Err(s) = client.write_merge(body.clone()).await {
            let _ = self.commit(vec![procedure.done()]).await;
            return Err(from_status(&s));
        }
        crash_point("merge.written");
        let retire = |r: &RegionRecord| {
            let mut r = r.clone();
            r.state = RecordState::Merged {
                into: merged.encoded_name.clone(),
            };
            r
        };
        let (low_retired, high_retired) = (retire(&low), retire(&high));
        let offline = Assignment::default();
        let commit = self
            .commit(vec![
                ops::put_region(&low_retired),
                ops::put_region(&high_retired),
                ops::put_region(&merged),
                ops::put_assignment(&merged.encoded_name, &offline),
                ops::put_assignment(&low.encoded_name, &offline),
                ops::put_assignment(&high.encoded_name, &offline),
                procedure.committed(),
            ])
            .await;
        if let Err(e) = commit {
            let _ = client.abort_merge(body).await;
            let _ = self.commit(vec![procedure.done()]).await;
            return Err(e);
        }
        self.describe_regions(vec![low_retired.clone(), high_retired.clone()])
            .await;
        crash_point("merge.committed");
        {
            let mut catalog = self.catalog.write();
            for r in [&low_retired, &high_retired, &merged] {
                catalog.regions.insert(r.encoded_name.clone(), r.clone());
                catalog
                    .assign
                    .insert(r.encoded_name.clone(), offline.clone());
            }
        }
        let opened = self
            .open_on(vec![(merged.encoded_name.clone(), server.clone())])
            .await;
        for r in [&low, &high] {
            client
                .retire_region(pb::RegionRecordBytes {
                    record: codec::encode_region(r).into(),
                })
                .await
                .map_err(|s| from_status(&s))?;
        }
        self.commit(vec![procedure.done()]).await?;
        tracing::info!(merged = %merged.region_name(), "merged");
        opened
    }
}
