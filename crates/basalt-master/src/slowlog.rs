//! The slow log of a cluster: each region server keeps its own (the data calls it served
//! slower than its threshold); `get_slowlog_responses` and `clear_slowlog_responses` on
//! the master ask the region servers named — every live one when none is, or `'*'` — in
//! parallel, and merge their answers, each record naming its server. A server that does not
//! answer is left out with a warning (the others still answer), as a dead one would be.

use crate::decommission::names;
use crate::master::Master;
use basalt_api::{ApiError, Result, SlowLogQuery, SlowLogRecord};
use basalt_proto::convert::slowlog::request;
use basalt_proto::pb;
use tokio::task::JoinSet;

/// The live servers `asked` names (every live one when empty or `*`); refused for a name
/// that is no live server.
pub fn targets(live: &[String], asked: &[String]) -> Result<Vec<String>> {
    if asked.is_empty() || asked.iter().any(|a| a.trim() == "*") {
        return Ok(live.to_vec());
    }
    let mut out = Vec::new();
    for given in asked {
        let matched: Vec<&String> = live.iter().filter(|s| names(s, given)).collect();
        if matched.is_empty() {
            return Err(ApiError::invalid(format!("no live region server {given}")));
        }
        for server in matched {
            if !out.contains(server) {
                out.push(server.clone());
            }
        }
    }
    Ok(out)
}

impl Master {
    fn slowlog_targets(&self, asked: &[String]) -> Result<Vec<String>> {
        self.require_active()?;
        let live: Vec<String> = self.servers.live().into_iter().map(|s| s.name).collect();
        targets(&live, asked)
    }

    /// The records of `servers` that pass `query`, newest first.
    pub async fn slowlog_responses(
        &self,
        servers: &[String],
        query: &SlowLogQuery,
    ) -> Result<Vec<SlowLogRecord>> {
        let mut tasks = JoinSet::new();
        for server in self.slowlog_targets(servers)? {
            let client = self.servers.admin_client(&server).await;
            let req = request(&[], query);
            tasks.spawn(async move {
                let answer = match client {
                    Ok(mut client) => client
                        .get_slow_log_responses(req)
                        .await
                        .map(|a| a.into_inner().records)
                        .map_err(|s| s.message().to_string()),
                    Err(e) => Err(e.message),
                };
                (server, answer)
            });
        }
        let mut records = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            let Ok((server, answer)) = joined else {
                continue;
            };
            match answer {
                Ok(found) => records.extend(found.into_iter().map(|r| SlowLogRecord {
                    server_name: server.clone(),
                    ..r.into()
                })),
                Err(e) => {
                    tracing::warn!(server = %server, error = %e, "a region server did not answer for its slow log")
                }
            }
        }
        Ok(query.select(records))
    }

    /// Empties the slow log of `servers`; each with whether it was.
    pub async fn clear_slowlog(&self, servers: &[String]) -> Result<Vec<(String, bool)>> {
        let mut out = Vec::new();
        for server in self.slowlog_targets(servers)? {
            let cleared = match self.servers.admin_client(&server).await {
                Ok(mut client) => client
                    .clear_slow_log_responses(pb::ServerNameList { names: Vec::new() })
                    .await
                    .is_ok(),
                Err(_) => false,
            };
            if !cleared {
                tracing::warn!(server = %server, "a region server's slow log could not be cleared");
            }
            out.push((server, cleared));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_named_as_the_shell_names_them() {
        let live = vec!["h1,16020,7".to_string(), "h2,16020,8".to_string()];
        assert_eq!(targets(&live, &[]).expect("all"), live);
        assert_eq!(targets(&live, &["*".into()]).expect("all"), live);
        assert_eq!(
            targets(&live, &["h2:16020".into()]).expect("one"),
            ["h2,16020,8"]
        );
        assert_eq!(
            targets(&live, &["h1".into(), "h1,16020,7".into()]).expect("deduplicated"),
            ["h1,16020,7"]
        );
        let refused = targets(&live, &["h3".into()]).expect_err("no such server");
        assert!(
            refused.message.contains("no live region server h3"),
            "{refused}"
        );
    }
}
