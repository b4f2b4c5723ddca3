//! `TableService`: data operations on one table. One file per RPC family; this file only
//! routes each RPC to its handler.
//!
//! # Layout
//! - [`get`]: Get, MultiGet.
//! - [`mutate`]: Mutate (with nonces), MutateMany, MutateRow, CheckAndMutate.
//! - [`batch`]: the Batch RPC.
//! - [`scan`]: OpenScanner, ScannerNext, CloseScanner.
//! - [`cells`]: counting the cells of a request against the limit.
//! - [`described`]: what the slow log says of each call.
//!
//! Every call is timed for the slow log ([`crate::slowlog`]) while it is on: described
//! before it runs, recorded when it ran past the threshold.

pub mod batch;
pub mod cells;
pub mod described;
pub mod get;
pub mod mutate;
pub mod scan;

use crate::shared::Shared;
use crate::slowlog::{user_of, Call};
use basalt_proto::pb;
use basalt_proto::pb::table_service_server::TableService;
use described::Described;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct TableSvc {
    shared: Arc<Shared>,
}

impl TableSvc {
    pub fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

type Reply<T> = Result<Response<T>, Status>;

impl TableSvc {
    /// The call `r` as the slow log would keep it; None while the log is off.
    fn call<T>(
        &self,
        r: &Request<T>,
        method: &'static str,
        request: &'static str,
        describe: impl FnOnce(&T) -> Described,
    ) -> Option<Call> {
        if !self.shared.slowlog.is_enabled() {
            return None;
        }
        let d = describe(r.get_ref());
        let user_agent = r.metadata().get("user-agent").and_then(|v| v.to_str().ok());
        Some(Call {
            started: std::time::Instant::now(),
            start_time_ms: crate::slowlog::now_ms(),
            method,
            request,
            table: d.table,
            region: d.region,
            row: d.row,
            param: d.param,
            client: r.remote_addr(),
            user: match crate::principal::current() {
                Some(p) => p.name().to_string(),
                None => user_of(user_agent),
            },
        })
    }

    /// Records `call` when it was slow; answers its outcome.
    fn done<T: prost::Message>(&self, call: Option<Call>, out: Result<T, Status>) -> Reply<T> {
        if let Some(call) = call {
            let took = call.started.elapsed();
            if self.shared.slowlog.is_slow(took) {
                let size = out.as_ref().map_or(0, |m| m.encoded_len() as u64);
                let region = self.region_of(&call);
                self.shared.slowlog.push(call.record(took, size, region));
            }
        }
        out.map(Response::new)
    }

    /// The region a slow call was for: the one the client named, else the one holding its
    /// row now.
    fn region_of(&self, call: &Call) -> String {
        if !call.region.is_empty() {
            return call.region.clone();
        }
        let (Some(row), Ok(table)) = (&call.row, basalt_types::TableName::parse(&call.table))
        else {
            return String::new();
        };
        self.shared
            .admin
            .locate_region(&table, row)
            .map(|l| l.region_name)
            .unwrap_or_default()
    }
}

#[tonic::async_trait]
impl TableService for TableSvc {
    async fn get(&self, r: Request<pb::GetRequest>) -> Reply<pb::GetResponse> {
        let call = self.call(&r, "Get", "GetRequest", described::get);
        self.done(call, get::get(&self.shared, r.into_inner()))
    }

    async fn multi_get(&self, r: Request<pb::MultiGetRequest>) -> Reply<pb::MultiGetResponse> {
        let call = self.call(&r, "Multi", "MultiGetRequest", described::multi_get);
        let out = get::multi_get(&self.shared, r.into_inner()).await;
        self.done(call, out)
    }

    async fn mutate(&self, r: Request<pb::MutateRequest>) -> Reply<pb::MutateResponse> {
        let call = self.call(&r, "Mutate", "MutateRequest", described::mutate);
        let out = mutate::mutate(&self.shared, r.into_inner()).await;
        self.done(call, out)
    }

    async fn mutate_many(
        &self,
        r: Request<pb::MutateManyRequest>,
    ) -> Reply<pb::MutateManyResponse> {
        let call = self.call(&r, "Multi", "MutateManyRequest", described::mutate_many);
        let out = mutate::mutate_many(&self.shared, r.into_inner()).await;
        self.done(call, out)
    }

    async fn check_and_mutate(
        &self,
        r: Request<pb::CheckAndMutateRequest>,
    ) -> Reply<pb::CheckAndMutateResult> {
        let call = self.call(
            &r,
            "Mutate",
            "CheckAndMutateRequest",
            described::check_and_mutate,
        );
        let out = mutate::check_and_mutate(&self.shared, r.into_inner()).await;
        self.done(call, out)
    }

    async fn mutate_row(&self, r: Request<pb::MutateRowRequest>) -> Reply<pb::RowResult> {
        let call = self.call(&r, "Multi", "MutateRowRequest", described::mutate_row);
        let out = mutate::mutate_row(&self.shared, r.into_inner()).await;
        self.done(call, out)
    }

    async fn batch(&self, r: Request<pb::BatchRequest>) -> Reply<pb::BatchResponse> {
        let call = self.call(&r, "Multi", "BatchRequest", described::batch);
        let out = batch::batch(&self.shared, r.into_inner()).await;
        self.done(call, out)
    }

    async fn open_scanner(&self, r: Request<pb::OpenScannerRequest>) -> Reply<pb::ScanResponse> {
        let call = self.call(&r, "Scan", "OpenScannerRequest", described::open_scanner);
        let caller = crate::principal::caller();
        let out = scan::open(&self.shared, r.into_inner(), caller).await;
        self.done(call, out)
    }

    async fn scanner_next(&self, r: Request<pb::ScannerNextRequest>) -> Reply<pb::ScanResponse> {
        let scanners = &self.shared.scanners;
        let call = self.call(&r, "Scan", "ScannerNextRequest", |q| {
            scanners.describe(&q.scanner_id)
        });
        let (caller, addr) = (crate::principal::caller(), r.remote_addr().map(|a| a.ip()));
        let out = scan::next(&self.shared, r.into_inner(), caller, addr).await;
        self.done(call, out)
    }

    async fn close_scanner(
        &self,
        r: Request<pb::CloseScannerRequest>,
    ) -> Reply<pb::CloseScannerResponse> {
        let (caller, addr) = (crate::principal::caller(), r.remote_addr().map(|a| a.ip()));
        scan::close(&self.shared, r.into_inner(), caller, addr).map(Response::new)
    }
}
