//! `GetSlowLogResponses` and `ClearSlowLogResponses`: this server's own slow log (the data
//! calls it served), and through the hosted connection's admin whatever it gathers from
//! others — a master asks its region servers; an embedded database has no others.

use super::run_admin;
use crate::shared::Shared;
use basalt_proto::convert::slowlog::query;
use basalt_proto::pb;
use std::sync::Arc;
use tonic::Status;

pub async fn get(
    shared: &Arc<Shared>,
    req: pb::SlowLogRequest,
) -> Result<pb::SlowLogResponses, Status> {
    let (servers, query) = query(req);
    let own = shared.slowlog.select(&query);
    let asked = query.clone();
    let others = run_admin(shared, move |a| a.get_slowlog_responses(&servers, &asked)).await?;
    let records = query.select(own.into_iter().chain(others));
    Ok(pb::SlowLogResponses {
        records: records.into_iter().map(Into::into).collect(),
    })
}

pub async fn clear(
    shared: &Arc<Shared>,
    req: pb::ServerNameList,
) -> Result<pb::ClearSlowLogResponses, Status> {
    let held = shared.slowlog.clear();
    tracing::info!(records = held, "slow log cleared");
    let mut answers = run_admin(shared, move |a| a.clear_slowlog_responses(&req.names)).await?;
    if answers.is_empty() {
        // No other server answered: this one is the server asked.
        answers.push((String::new(), true));
    }
    let (servers, cleared) = answers.into_iter().unzip();
    Ok(pb::ClearSlowLogResponses { servers, cleared })
}
