//! `TableService`: data operations on one table. One file per RPC family; this file only
//! routes each RPC to its handler.
//!
//! # Layout
//! - [`get`]: Get, MultiGet.
//! - [`mutate`]: Mutate (with nonces), MutateMany, MutateRow, CheckAndMutate.
//! - [`batch`]: the Batch RPC.
//! - [`scan`]: OpenScanner, ScannerNext, CloseScanner.
//! - [`cells`]: counting the cells of a request against the limit.

pub mod batch;
pub mod cells;
pub mod get;
pub mod mutate;
pub mod scan;

use crate::shared::Shared;
use basalt_proto::pb;
use basalt_proto::pb::table_service_server::TableService;
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

#[tonic::async_trait]
impl TableService for TableSvc {
    async fn get(&self, r: Request<pb::GetRequest>) -> Reply<pb::GetResponse> {
        get::get(&self.shared, r.into_inner()).map(Response::new)
    }

    async fn multi_get(&self, r: Request<pb::MultiGetRequest>) -> Reply<pb::MultiGetResponse> {
        get::multi_get(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn mutate(&self, r: Request<pb::MutateRequest>) -> Reply<pb::MutateResponse> {
        mutate::mutate(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn mutate_many(
        &self,
        r: Request<pb::MutateManyRequest>,
    ) -> Reply<pb::MutateManyResponse> {
        mutate::mutate_many(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn check_and_mutate(
        &self,
        r: Request<pb::CheckAndMutateRequest>,
    ) -> Reply<pb::CheckAndMutateResult> {
        mutate::check_and_mutate(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn mutate_row(&self, r: Request<pb::MutateRowRequest>) -> Reply<pb::RowResult> {
        mutate::mutate_row(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn batch(&self, r: Request<pb::BatchRequest>) -> Reply<pb::BatchResponse> {
        batch::batch(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn open_scanner(&self, r: Request<pb::OpenScannerRequest>) -> Reply<pb::ScanResponse> {
        scan::open(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn scanner_next(&self, r: Request<pb::ScannerNextRequest>) -> Reply<pb::ScanResponse> {
        scan::next(&self.shared, r.into_inner())
            .await
            .map(Response::new)
    }

    async fn close_scanner(
        &self,
        r: Request<pb::CloseScannerRequest>,
    ) -> Reply<pb::CloseScannerResponse> {
        scan::close(&self.shared, r.into_inner()).map(Response::new)
    }
}
