//! The master's `Connection`, served by its gRPC server: the cluster's `Admin`; tables are
//! served by the region servers (a cluster-aware client goes there directly).

use crate::admin::MasterAdmin;
use crate::master::Master;
use basalt_api::{Admin, ApiError, Connection, ErrorKind, Result, Table};
use basalt_types::TableName;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct MasterConnection {
    master: Arc<Master>,
}

impl MasterConnection {
    pub fn new(master: Arc<Master>) -> Self {
        Self { master }
    }
}

impl Connection for MasterConnection {
    fn table(&self, name: &TableName) -> Result<Arc<dyn Table>> {
        Err(ApiError::new(
            ErrorKind::InvalidRequest,
            crate::error::DO_NOT_RETRY,
            format!("{name}: a master serves no table data; region servers do (connect with a cluster client: RemoteConnection::connect(\"master:16000\"))"),
        ))
    }

    fn admin(&self) -> Arc<dyn Admin> {
        Arc::new(MasterAdmin::new(self.master.clone()))
    }
}
