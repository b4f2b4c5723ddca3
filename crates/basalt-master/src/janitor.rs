//! The catalog janitor of a cluster: a split or merged parent goes once every region made
//! from it is open and no longer refers to its files (their compactions rewrote them).
//! Its record leaves the catalog and its folder is deleted from the store, logged: the
//! explicit procedure HBase's CatalogJanitor runs, never an inference about unknown files.

use crate::catalog::{ops, AssignState};
use crate::master::Master;
use basalt_api::Result;
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_proto::pb;
use std::sync::Arc;

impl Master {
    /// Whether `child` is open and refers to no other region's files.
    async fn clean_child(&self, child: &str) -> bool {
        let assignment = self.catalog.read().assignment(child);
        let (AssignState::Open, Some(server)) = (assignment.state, assignment.server) else {
            return false;
        };
        let Ok(mut client) = self.servers.region_client(&server).await else {
            return false;
        };
        let answer = client
            .has_references(pb::RegionName {
                name: child.to_string(),
            })
            .await;
        matches!(answer, Ok(flag) if !flag.get_ref().value)
    }

    /// One pass: removes every parent nothing refers to; returns how many.
    pub async fn run_janitor(self: &Arc<Self>) -> Result<usize> {
        self.require_active()?;
        let _p = self.procedures.lock().await;
        let retired: Vec<(RegionRecord, Vec<String>)> = self
            .catalog
            .read()
            .regions
            .values()
            .filter_map(|r| match &r.state {
                RegionState::Split { daughters } => {
                    Some((r.clone(), vec![daughters.0.clone(), daughters.1.clone()]))
                }
                RegionState::Merged { into } => Some((r.clone(), vec![into.clone()])),
                _ => None,
            })
            .collect();
        let mut cleaned = 0;
        for (parent, children) in retired {
            let mut clean = true;
            for child in &children {
                clean &= self.clean_child(child).await;
            }
            if !clean {
                continue;
            }
            self.commit(ops::delete_region(&parent.encoded_name))
                .await?;
            {
                let mut catalog = self.catalog.write();
                catalog.regions.remove(&parent.encoded_name);
                catalog.assign.remove(&parent.encoded_name);
            }
            self.remove_folder(&self.table_dir(&parent.table).join(&parent.encoded_name))?;
            tracing::info!(region = %parent.region_name(), "catalog janitor: removed a parent nothing refers to");
            cleaned += 1;
        }
        Ok(cleaned)
    }
}
