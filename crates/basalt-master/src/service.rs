//! `MasterService`: cluster information (answered by standby masters too), region servers'
//! startup and stop, and the shell's `move` and `balancer`. (`assign`, `unassign` and
//! `balance_switch` are `AdminService` calls, which standalone answers too: see
//! [`crate::admin`].)

use crate::master::Master;
use basalt_api::Result as ApiResult;
use basalt_proto::pb;
use basalt_proto::pb::master_service_server::MasterService;
use basalt_proto::status::to_status;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct MasterSvc {
    master: Arc<Master>,
}

impl MasterSvc {
    pub fn new(master: Arc<Master>) -> Self {
        Self { master }
    }
}

fn answer<T>(result: ApiResult<T>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(|e| to_status(&e))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[tonic::async_trait]
impl MasterService for MasterSvc {
    async fn get_cluster_info(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::ClusterInfo>, Status> {
        answer(crate::status::cluster_info(&self.master).await)
    }

    async fn get_cluster_status(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::ClusterStatus>, Status> {
        answer(crate::status::cluster_status(&self.master).await)
    }

    async fn region_server_startup(
        &self,
        request: Request<pb::StartupRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        if let Err(e) = self.master.require_active() {
            return Err(to_status(&e));
        }
        let skew = (now_ms() - req.clock_ms).unsigned_abs();
        let max = self.master.config.max_clock_skew.as_millis() as u64;
        if skew > max {
            let message = format!(
                "{}: {}; Server {} has been rejected; Reported time is too far out of sync with master. Time difference of {skew}ms > max allowed of {max}ms",
                crate::error::CLOCK_OUT_OF_SYNC,
                req.name,
                req.name
            );
            tracing::warn!(server = %req.name, skew_ms = skew, "refused a region server: clock out of sync");
            return Err(Status::failed_precondition(message));
        }
        if req.protocol != crate::PROTOCOL {
            let message = format!(
                "region server {} speaks cluster protocol {} (Basalt {}); this master speaks {} (Basalt {}): it cannot join",
                req.name, req.protocol, req.version, crate::PROTOCOL, env!("CARGO_PKG_VERSION")
            );
            tracing::warn!(server = %req.name, "refused a region server: incompatible version");
            return Err(Status::failed_precondition(message));
        }
        tracing::info!(server = %req.name, version = %req.version, "region server starting");
        for dead in &req.adopted_logs {
            if let Err(e) = self.master.log_taken_over(dead, &req.name).await {
                return Err(to_status(&e));
            }
        }
        Ok(Response::new(pb::Empty {}))
    }

    async fn report_stopping(
        &self,
        request: Request<pb::ServerName>,
    ) -> Result<Response<pb::Empty>, Status> {
        let name = request.into_inner().name;
        tracing::info!(server = %name, "region server stopping: moving its regions");
        answer(self.master.drain(&name).await.map(|()| pb::Empty {}))
    }

    async fn request_split(
        &self,
        request: Request<pb::RegionName>,
    ) -> Result<Response<pb::Empty>, Status> {
        let name = request.into_inner().name;
        let master = self.master.clone();
        answer(
            async move {
                master.require_active()?;
                master.split_region(&name, None).await.map(|_| pb::Empty {})
            }
            .await,
        )
    }

    async fn move_region(
        &self,
        request: Request<pb::MoveRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let req = request.into_inner();
        let target = (!req.server.is_empty()).then_some(req.server.as_str());
        answer(
            self.master
                .move_region(&req.region, target)
                .await
                .map(|()| pb::Empty {}),
        )
    }

    async fn balance(&self, _: Request<pb::Empty>) -> Result<Response<pb::Flag>, Status> {
        answer(
            self.master
                .balance(false)
                .await
                .map(|ran| pb::Flag { value: ran }),
        )
    }
}
