//! The remote `Table`: each operation one call (or one call per chunk), retried on
//! retryable kinds. Single mutations (puts and deletes too), and increments, appends and
//! check-and-mutates in batches, carry a nonce, so a retry after a lost answer is not
//! applied twice. A batch's plain puts and deletes carry none yet (HBase's clients send
//! none for puts at all): one resent after an unknown outcome may apply a second time.

use crate::admin::RemoteAdmin;
use crate::connection::{retryable, Inner};
use crate::connector::Authed as Channel;
use crate::scanner::RemoteScanner;
use basalt_api::{
    ApiError, CheckAndMutateResult, ErrorKind, OpenedScan, Result, ResultScanner, Table,
};
use basalt_proto::convert::batch::{
    action_needs_nonce, decode_action_result, encode_action, mutations_need_nonce,
};
use basalt_proto::convert::ConvertError;
use basalt_proto::pb;
use basalt_proto::pb::table_service_client::TableServiceClient;
use basalt_types::{
    Action, ActionResult, Append, CheckAndMutate, Delete, Get, Increment, Mutation, Put,
    RowMutations, RowResult, Scan, TableName,
};
use std::sync::Arc;

pub struct RemoteTable {
    inner: Arc<Inner>,
    name: TableName,
    wire_name: pb::TableName,
}

/// A response the client cannot decode: the server is at fault, not the request.
pub(crate) fn bad_response(e: ConvertError) -> ApiError {
    ApiError::new(
        ErrorKind::Unavailable,
        "java.io.IOException",
        format!("malformed response: {e}"),
    )
}

pub(crate) fn decode_row(row: Option<pb::RowResult>) -> Result<RowResult> {
    match row {
        Some(r) => RowResult::try_from(r).map_err(bad_response),
        None => Err(bad_response(ConvertError::Missing("result"))),
    }
}

impl RemoteTable {
    pub(crate) fn new(inner: Arc<Inner>, name: TableName) -> Self {
        let wire_name = (&name).into();
        Self {
            inner,
            name,
            wire_name,
        }
    }

    fn table(&self) -> Option<pb::TableName> {
        Some(self.wire_name.clone())
    }

    /// The region holding `row`, from the location cache or the server (a cluster's
    /// master). After a "retry elsewhere" (or, in a cluster, an unreachable server) the
    /// cached entry is dropped and the row located again.
    pub(crate) fn locate(
        &self,
        row: &[u8],
        failed: Option<&ApiError>,
    ) -> Result<basalt_api::RegionLocation> {
        let locations = &self.inner.locations;
        let moved = failed.is_some_and(|e| {
            e.kind == ErrorKind::RetryElsewhere
                || (self.inner.cluster.is_some() && e.kind == ErrorKind::Unavailable)
        });
        if moved {
            locations.forget(&self.name, row);
        }
        if let Some(location) = locations.get(&self.name, row) {
            return Ok(location);
        }
        let location = RemoteAdmin::new(self.inner.clone()).locate_once(&self.name, row)?;
        locations.insert(&self.name, location.clone());
        Ok(location)
    }

    /// The region holding `row` and the client of the server holding it.
    fn route(
        &self,
        row: &[u8],
        failed: Option<&ApiError>,
    ) -> Result<(String, TableServiceClient<Channel>)> {
        let location = self.locate(row, failed)?;
        let client = self.inner.tables_on(&location.server)?;
        Ok((location.region_name, client))
    }

    pub(crate) fn inner(&self) -> &Arc<Inner> {
        &self.inner
    }

    pub(crate) fn wire_name(&self) -> &pb::TableName {
        &self.wire_name
    }

    /// A fresh nonce when `mutations` hold an increment or append, else 0.
    fn counter_nonce(&self, mutations: &RowMutations) -> u64 {
        if mutations_need_nonce(mutations) {
            self.inner.next_nonce()
        } else {
            0
        }
    }

    /// One mutation, under a fresh nonce reused by every retry: a resend after an answer
    /// was lost (or refused at a server's lease deadline after logging) is not applied a
    /// second time, not even a put, whose second copy would hide later writes.
    fn mutate(&self, mutation: &Mutation) -> Result<Option<RowResult>> {
        let nonce = self.inner.next_nonce();
        let req = pb::MutateRequest {
            table: self.table(),
            mutation: Some(mutation.into()),
            nonce_group: self.inner.nonce_group,
            nonce,
            region: String::new(),
        };
        let response = self.inner.call_after(retryable, |failed| {
            let mut req = req.clone();
            let (region, mut c) = self.route(mutation.row(), failed)?;
            req.region = region;
            Ok(async move { c.mutate(req).await })
        })?;
        response.result.map(|r| decode_row(Some(r))).transpose()
    }

    fn mutate_many(&self, puts: Vec<pb::Put>, deletes: Vec<pb::Delete>) -> Result<()> {
        let req = pb::MutateManyRequest {
            table: self.table(),
            puts,
            deletes,
        };
        self.inner.call(retryable, || {
            let mut c = self.inner.tables.clone();
            let req = req.clone();
            async move { c.mutate_many(req).await }
        })?;
        Ok(())
    }

    pub(crate) fn batch_chunk(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        self.batch_on(self.inner.tables.clone(), actions)
    }

    /// One batch call to the server behind `client`, each action with its own result.
    pub(crate) fn batch_on(
        &self,
        client: TableServiceClient<Channel>,
        actions: &[Action],
    ) -> Vec<Result<ActionResult>> {
        let wire = actions
            .iter()
            .map(|a| {
                let nonce = if action_needs_nonce(a) {
                    self.inner.next_nonce()
                } else {
                    0
                };
                encode_action(a, nonce)
            })
            .collect();
        let req = pb::BatchRequest {
            table: self.table(),
            actions: wire,
            nonce_group: self.inner.nonce_group,
        };
        let response = self.inner.call(retryable, || {
            let mut c = client.clone();
            let req = req.clone();
            async move { c.batch(req).await }
        });
        match response {
            Ok(r) if r.results.len() == actions.len() => {
                r.results.into_iter().map(decode_action_result).collect()
            }
            Ok(r) => {
                let e = bad_response(ConvertError::Invalid(format!(
                    "{} results for {} actions",
                    r.results.len(),
                    actions.len()
                )));
                actions.iter().map(|_| Err(e.clone())).collect()
            }
            Err(e) => actions.iter().map(|_| Err(e.clone())).collect(),
        }
    }
}

impl Table for RemoteTable {
    fn name(&self) -> &TableName {
        &self.name
    }

    fn get(&self, get: &Get) -> Result<RowResult> {
        let req = pb::GetRequest {
            table: self.table(),
            get: Some(get.into()),
            region: String::new(),
        };
        let response = self.inner.call_after(retryable, |failed| {
            let mut req = req.clone();
            let (region, mut c) = self.route(&get.row, failed)?;
            req.region = region;
            Ok(async move { c.get(req).await })
        })?;
        decode_row(response.result)
    }

    fn get_many(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        if self.inner.cluster.is_some() {
            let actions: Vec<Action> = gets.iter().cloned().map(Action::Get).collect();
            return crate::routed::batch(self, &actions)
                .into_iter()
                .map(|r| match r? {
                    ActionResult::Row(row) => Ok(row),
                    _ => Err(bad_response(ConvertError::Invalid(
                        "a get answered no row".into(),
                    ))),
                })
                .collect();
        }
        let mut all = Vec::with_capacity(gets.len());
        for chunk in gets.chunks(self.inner.config.chunk_max.max(1)) {
            let req = pb::MultiGetRequest {
                table: self.table(),
                gets: chunk.iter().map(Into::into).collect(),
            };
            let response = self.inner.call(retryable, || {
                let mut c = self.inner.tables.clone();
                let req = req.clone();
                async move { c.multi_get(req).await }
            })?;
            if response.results.len() != chunk.len() {
                return Err(bad_response(ConvertError::Invalid(
                    "multi-get answered a different number of rows".into(),
                )));
            }
            for r in response.results {
                all.push(decode_row(Some(r))?);
            }
        }
        Ok(all)
    }

    fn exists(&self, get: &Get) -> Result<bool> {
        let mut get = get.clone();
        get.check_existence_only = true;
        Ok(self.get(&get)?.exists == Some(true))
    }

    fn put(&self, put: &Put) -> Result<()> {
        self.mutate(&Mutation::Put(put.clone())).map(|_| ())
    }

    fn put_many(&self, puts: &[Put]) -> Result<()> {
        if self.inner.cluster.is_some() {
            let actions: Vec<Action> = puts.iter().cloned().map(Action::Put).collect();
            return crate::routed::first_error(crate::routed::batch(self, &actions));
        }
        for chunk in puts.chunks(self.inner.config.chunk_max.max(1)) {
            self.mutate_many(chunk.iter().map(Into::into).collect(), Vec::new())?;
        }
        Ok(())
    }

    fn delete(&self, delete: &Delete) -> Result<()> {
        self.mutate(&Mutation::Delete(delete.clone())).map(|_| ())
    }

    fn delete_many(&self, deletes: &[Delete]) -> Result<()> {
        if self.inner.cluster.is_some() {
            let actions: Vec<Action> = deletes.iter().cloned().map(Action::Delete).collect();
            return crate::routed::first_error(crate::routed::batch(self, &actions));
        }
        for chunk in deletes.chunks(self.inner.config.chunk_max.max(1)) {
            self.mutate_many(Vec::new(), chunk.iter().map(Into::into).collect())?;
        }
        Ok(())
    }

    fn increment(&self, increment: &Increment) -> Result<RowResult> {
        Ok(self
            .mutate(&Mutation::Increment(increment.clone()))?
            .unwrap_or_default())
    }

    fn append(&self, append: &Append) -> Result<RowResult> {
        Ok(self
            .mutate(&Mutation::Append(append.clone()))?
            .unwrap_or_default())
    }

    fn check_and_mutate(&self, check: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let req = pb::CheckAndMutateRequest {
            table: self.table(),
            check: Some(check.into()),
            nonce_group: self.inner.nonce_group,
            nonce: self.inner.next_nonce(),
            region: String::new(),
        };
        let response = self.inner.call_after(retryable, |failed| {
            let mut req = req.clone();
            let (region, mut c) = self.route(&check.row, failed)?;
            req.region = region;
            Ok(async move { c.check_and_mutate(req).await })
        })?;
        Ok(CheckAndMutateResult {
            succeeded: response.succeeded,
            result: response.result.map(|r| decode_row(Some(r))).transpose()?,
        })
    }

    fn mutate_row(&self, mutations: &RowMutations) -> Result<RowResult> {
        let req = pb::MutateRowRequest {
            table: self.table(),
            mutations: Some(mutations.into()),
            nonce_group: self.inner.nonce_group,
            nonce: self.counter_nonce(mutations),
            region: String::new(),
        };
        let response = self.inner.call_after(retryable, |failed| {
            let mut req = req.clone();
            let (region, mut c) = self.route(&mutations.row, failed)?;
            req.region = region;
            Ok(async move { c.mutate_row(req).await })
        })?;
        decode_row(Some(response))
    }

    fn batch(&self, actions: &[Action]) -> Vec<Result<ActionResult>> {
        if self.inner.cluster.is_some() {
            return crate::routed::batch(self, actions);
        }
        actions
            .chunks(self.inner.config.chunk_max.max(1))
            .flat_map(|chunk| self.batch_chunk(chunk))
            .collect()
    }

    fn scan(&self, scan: &Scan) -> Result<Box<dyn ResultScanner>> {
        Ok(self.open_scan(scan, None)?.rows)
    }

    /// Opened in the first region at once; the read point is the one that region's server
    /// told (a gateway in front of this connection passes it on, as HBase's
    /// `mvcc_read_point`). Region by name is not served from a client.
    fn open_scan(&self, scan: &Scan, region: Option<&str>) -> Result<OpenedScan> {
        if let Some(region) = region {
            return Ok(OpenedScan {
                rows: self.scan_region(scan, region)?,
                read_point: None,
            });
        }
        if self.inner.cluster.is_some() {
            let walker = crate::routed::RegionWalker::open(self, scan)?;
            let read_point = walker.read_point();
            return Ok(OpenedScan {
                rows: Box::new(walker),
                read_point,
            });
        }
        let scanner = RemoteScanner::open(
            self.inner.clone(),
            self.inner.tables.clone(),
            self.wire_name.clone(),
            scan,
            String::new(),
        )?;
        let read_point = scanner.read_point();
        Ok(OpenedScan {
            rows: Box::new(scanner),
            read_point,
        })
    }
}
