//! `RegionServerService`: what the master asks of a region server. Every call is
//! idempotent (opening an open region or closing a closed one succeeds), so the master
//! may repeat any of them after a lost answer.

use crate::report;
use basalt_api::{ApiError, Result as ApiResult};
use basalt_db::meta::codec;
use basalt_db::meta::record::RegionRecord;
use basalt_db::Database;
use basalt_proto::pb;
use basalt_proto::pb::region_server_service_server::RegionServerService;
use basalt_proto::status::to_status;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct RegionServerSvc {
    db: Arc<Database>,
    rate: Arc<crate::rate::RequestRate>,
}

impl RegionServerSvc {
    pub fn new(db: Arc<Database>) -> Self {
        Self {
            db,
            rate: Arc::default(),
        }
    }

    /// Runs `work` on a blocking thread (opens, closes and splits write files).
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Database) -> ApiResult<T> + Send + 'static,
    ) -> Result<Response<T>, Status> {
        let db = self.db.clone();
        match tokio::task::spawn_blocking(move || work(&db)).await {
            Ok(Ok(value)) => Ok(Response::new(value)),
            Ok(Err(e)) => Err(to_status(&e)),
            Err(e) => Err(Status::internal(format!(
                "the call failed inside the server: {e}"
            ))),
        }
    }
}

pub fn record(bytes: &[u8]) -> ApiResult<RegionRecord> {
    codec::decode_region(bytes).map_err(|e| ApiError::invalid(format!("bad region record: {e}")))
}

#[tonic::async_trait]
impl RegionServerService for RegionServerSvc {
    async fn open_region(
        &self,
        request: Request<pb::OpenRegionRequest>,
    ) -> Result<Response<pb::OpenRegionResponse>, Status> {
        let req = request.into_inner();
        self.blocking(move |db| {
            let record = record(&req.record)?;
            let descriptor = codec::decode_table(&req.descriptor)
                .map_err(|e| ApiError::invalid(format!("bad table descriptor: {e}")))?;
            tracing::info!(region = %record.region_name(), open_seq = req.open_seq, recover = ?req.recover_logs, "opening");
            let needed = db.host_open_recovering(record, descriptor, &req.recover_logs)?;
            Ok(pb::OpenRegionResponse {
                recover_logs_needed: needed,
            })
        })
        .await
    }

    async fn close_region(
        &self,
        request: Request<pb::RegionName>,
    ) -> Result<Response<pb::Empty>, Status> {
        let name = request.into_inner().name;
        self.blocking(move |db| {
            tracing::info!(region = %name, "closing");
            db.host_close(&name)?;
            Ok(pb::Empty {})
        })
        .await
    }

    async fn split_point(
        &self,
        request: Request<pb::RegionName>,
    ) -> Result<Response<pb::SplitPointResponse>, Status> {
        let name = request.into_inner().name;
        self.blocking(move |db| {
            Ok(pb::SplitPointResponse {
                key: db.host_split_point(&name)?,
            })
        })
        .await
    }

    async fn write_split(
        &self,
        request: Request<pb::SplitRequestBody>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        self.blocking(move |db| {
            let (bottom, top) = (record(&req.bottom)?, record(&req.top)?);
            db.host_write_split(&req.parent, &req.split_key, &bottom, &top)?;
            Ok(pb::Empty {})
        })
        .await
    }

    async fn abort_split(
        &self,
        request: Request<pb::SplitRequestBody>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        self.blocking(move |db| {
            let (bottom, top) = (record(&req.bottom)?, record(&req.top)?);
            db.host_abort_split(&req.parent, &bottom, &top)?;
            Ok(pb::Empty {})
        })
        .await
    }

    async fn write_merge(
        &self,
        request: Request<pb::MergeRequestBody>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        self.blocking(move |db| {
            db.host_write_merge(&req.low, &req.high, &record(&req.merged)?)?;
            Ok(pb::Empty {})
        })
        .await
    }

    async fn abort_merge(
        &self,
        request: Request<pb::MergeRequestBody>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        self.blocking(move |db| {
            db.host_abort_merge(&req.low, &req.high, &record(&req.merged)?)?;
            Ok(pb::Empty {})
        })
        .await
    }

    async fn retire_region(
        &self,
        request: Request<pb::RegionRecordBytes>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        self.blocking(move |db| {
            let record = record(&req.record)?;
            db.host_close(&record.encoded_name)?;
            db.host_retire(&record);
            Ok(pb::Empty {})
        })
        .await
    }

    async fn has_references(
        &self,
        request: Request<pb::RegionName>,
    ) -> Result<Response<pb::Flag>, Status> {
        let name = request.into_inner().name;
        self.blocking(move |db| {
            Ok(pb::Flag {
                value: db.host_has_references(&name)?,
            })
        })
        .await
    }

    async fn get_server_report(
        &self,
        _request: Request<pb::Empty>,
    ) -> Result<Response<pb::ServerReport>, Status> {
        let rate = self.rate.clone();
        self.blocking(move |db| Ok(report::report(db, &rate))).await
    }
}
