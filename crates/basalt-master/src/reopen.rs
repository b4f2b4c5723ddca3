//! Opens that never reached their server, driven again.
//!
//! An open whose RPC could not be delivered or answered (the target was just killed, or
//! the network failed) says nothing about the region: it is not FAILED_OPEN (clients take
//! that as final, and a region stays there until an operator acts). It stays OPENING on
//! its server and is sent again every second ([`Master::redrive_unreachable_opens`]):
//! - the server answers: the region opens (an open is idempotent on a server);
//! - the server's lease expires: its crash recovery takes the region, with that server's
//!   log to read, and the entry is dropped;
//! - after [`ATTEMPTS_MAX`] tries it is FAILED_OPEN after all, naming the last error.

use crate::catalog::AssignState;
use crate::master::Master;
use basalt_api::{ApiError, ErrorKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Tries before an unreachable open is FAILED_OPEN (one a second: past any lease TTL).
pub const ATTEMPTS_MAX: u32 = 60;

/// Whether `e` says the request may not have reached a server at all (a transport error,
/// not an answer from the server).
pub fn unreachable(e: &ApiError) -> bool {
    e.kind == ErrorKind::Unavailable && e.exception == basalt_proto::status::REMOTE_EXCEPTION
}

/// Regions whose open could not reach its server: region → (server, tries).
#[derive(Debug, Default)]
pub struct Unreachable {
    opens: BTreeMap<String, (String, u32)>,
}

impl Unreachable {
    pub fn note(&mut self, region: &str, server: &str) {
        let entry = self
            .opens
            .entry(region.to_string())
            .or_insert_with(|| (server.to_string(), 0));
        if entry.0 != server {
            *entry = (server.to_string(), 0);
        }
        entry.1 += 1;
    }

    pub fn forget(&mut self, region: &str) {
        self.opens.remove(region);
    }

    fn due(&self) -> Vec<(String, String, u32)> {
        self.opens
            .iter()
            .map(|(r, (s, n))| (r.clone(), s.clone(), *n))
            .collect()
    }
}

impl Master {
    /// Sends the opens noted as unreachable again, drops those the region no longer
    /// waits for, and fails those tried [`ATTEMPTS_MAX`] times.
    pub async fn redrive_unreachable_opens(self: &Arc<Self>) {
        let due = self.unreachable_opens.lock().due();
        if due.is_empty() {
            return;
        }
        let _procedure = self.procedures.lock().await;
        let mut again = Vec::new();
        let mut give_up = Vec::new();
        for (region, server, tries) in due {
            let a = self.catalog.read().assignment(&region);
            let waiting = a.state == AssignState::Opening && a.server.as_deref() == Some(&server);
            if !waiting || !self.servers.is_live(&server) {
                // Placed elsewhere since, or the server's crash recovery has it.
                self.unreachable_opens.lock().forget(&region);
            } else if tries >= ATTEMPTS_MAX {
                self.unreachable_opens.lock().forget(&region);
                give_up.push(region);
            } else {
                again.push((region, server));
            }
        }
        if !give_up.is_empty() {
            if let Err(e) = self.fail_opens(give_up).await {
                tracing::warn!(error = %e, "could not mark unreachable opens FAILED_OPEN");
            }
        }
        if !again.is_empty() {
            if let Err(e) = self.open_on(again).await {
                tracing::warn!(error = %e, "driving unreachable opens again failed");
            }
        }
    }

    async fn fail_opens(self: &Arc<Self>, regions: Vec<String>) -> basalt_api::Result<()> {
        let mut ops = Vec::new();
        let mut failed = Vec::new();
        for region in regions {
            let mut a = self.catalog.read().assignment(&region);
            tracing::error!(region = %region, server = ?a.server, tries = ATTEMPTS_MAX,
                "region FAILED_OPEN: its server could not be reached");
            a.state = AssignState::FailedOpen;
            a.failure = Some(format!(
                "its server {} could not be reached {ATTEMPTS_MAX} times",
                a.server.as_deref().unwrap_or("?")
            ));
            ops.push(crate::catalog::ops::put_assignment(&region, &a));
            failed.push((region, a));
        }
        self.commit(ops).await?;
        let mut catalog = self.catalog.write();
        for (region, a) in failed {
            self.end_transition(&region);
            catalog.assign.insert(region, a);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transport_error_is_unreachable_and_an_answer_is_not() {
        let transport = basalt_proto::status::from_status(&tonic::Status::unavailable(
            "Connection refused (os error 111)",
        ));
        assert!(unreachable(&transport), "{transport:?}");
        let answered = ApiError::new(
            ErrorKind::Unavailable,
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
            "x",
        );
        assert!(!unreachable(&answered));
    }

    #[test]
    fn tries_count_per_server_and_restart_on_another() {
        let mut u = Unreachable::default();
        u.note("r", "a");
        u.note("r", "a");
        assert_eq!(u.due(), vec![("r".into(), "a".into(), 2)]);
        u.note("r", "b");
        assert_eq!(u.due(), vec![("r".into(), "b".into(), 1)]);
        u.forget("r");
        assert!(u.due().is_empty());
    }
}
