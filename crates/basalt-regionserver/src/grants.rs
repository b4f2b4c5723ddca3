//! The grants a region server checks calls against (HBase's `hbase:acl`, which region
//! servers read through a ZooKeeper-watched cache): the master keeps them in the
//! coordinator under `acl/`, one key per grant; this server lists them once, then follows
//! a watch of that prefix, listing again after any change (grants change rarely, and a
//! listing is never wrong where an applied event stream might drift).
//!
//! Until the first listing arrives, calls that need grants are refused as "not running
//! yet" (clients retry). When the coordinator is unreachable the last grants read stay in
//! force, as HBase's cache does; the watch is re-established, and a listing taken, once
//! it answers again.

use basalt_api::acl::grants::decode_entry;
use basalt_api::{ApiError, ErrorKind, Grants, Result};
use basalt_coord::{layout, Coordinator};
use parking_lot::RwLock;
use std::sync::Arc;
use std::time::Duration;

/// HBase's exception for a server that cannot answer yet.
const NOT_RUNNING_YET: &str = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException";
/// The pause before listing again after the coordinator failed to answer.
const RETRY: Duration = Duration::from_millis(500);

/// The grants as last listed from the coordinator (none before the first listing).
#[derive(Default)]
pub struct WatchedGrants {
    current: RwLock<Option<Arc<Grants>>>,
}

impl WatchedGrants {
    /// Starts following `acl/` in `coord` on the current tokio runtime; the task ends when
    /// the returned value is dropped.
    pub fn follow(coord: Arc<dyn Coordinator>) -> Arc<Self> {
        let grants = Arc::new(WatchedGrants::default());
        let weak = Arc::downgrade(&grants);
        tokio::spawn(async move {
            loop {
                let Some(strong) = weak.upgrade() else { return };
                let revision = match strong.relist(coord.as_ref()).await {
                    Some(revision) => revision,
                    None => {
                        drop(strong);
                        tokio::time::sleep(RETRY).await;
                        continue;
                    }
                };
                drop(strong);
                // Any event, an error or the end of the stream: list again.
                match coord.watch(layout::ACL.as_bytes(), revision).await {
                    Ok(mut changes) => {
                        let _ = changes.recv().await;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot watch the grants; the last read stay in force");
                        tokio::time::sleep(RETRY).await;
                    }
                }
            }
        });
        grants
    }

    /// Lists the grants and puts them in force; the listing's revision, or None when the
    /// coordinator did not answer.
    async fn relist(&self, coord: &dyn Coordinator) -> Option<i64> {
        let listing = match coord.list(layout::ACL.as_bytes()).await {
            Ok(listing) => listing,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the grants; the last read stay in force");
                return None;
            }
        };
        let mut grants = Grants::new();
        for kv in &listing.kvs {
            let read = layout::name_under(&kv.key, layout::ACL)
                .ok_or_else(|| "not a grant key".to_string())
                .and_then(|name| decode_entry(name, &kv.value));
            match read {
                Ok(p) => grants.grant(&p),
                Err(e) => tracing::error!(key = %String::from_utf8_lossy(&kv.key), error = %e,
                    "a grant in the coordinator does not read: skipped"),
            }
        }
        tracing::debug!(
            grants = grants.len(),
            revision = listing.revision,
            "grants read"
        );
        *self.current.write() = Some(Arc::new(grants));
        Some(listing.revision)
    }
}

impl basalt_acl::GrantSource for WatchedGrants {
    fn grants(&self) -> Result<Arc<Grants>> {
        self.current.read().clone().ok_or_else(|| {
            ApiError::new(
                ErrorKind::Unavailable,
                NOT_RUNNING_YET,
                "the grants are not read yet (the server is starting)",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_acl::GrantSource;
    use basalt_api::acl::grants::entry_name;
    use basalt_api::{Actions, Scope, UserPermission};
    use basalt_coord::{LocalCoordinator, Op, Txn};

    async fn put(coord: &dyn Coordinator, p: &UserPermission) {
        let key = layout::acl(&entry_name(&p.scope, &p.user));
        coord
            .txn(change(Op::put(key, p.actions.to_string())))
            .await
            .expect("put");
    }

    fn change(op: Op) -> Txn {
        Txn {
            compares: Vec::new(),
            success: vec![op],
            failure: Vec::new(),
        }
    }

    async fn until(grants: &WatchedGrants, want: impl Fn(&Grants) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if grants.grants().is_ok_and(|g| want(&g)) {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "grants never arrived"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    #[tokio::test]
    async fn grants_made_and_removed_after_the_start_are_followed() {
        let coord: Arc<dyn Coordinator> = Arc::new(LocalCoordinator::new());
        let bob = UserPermission::new("bob", Scope::Global, Actions::parse("R").expect("R"));
        put(coord.as_ref(), &bob).await;
        let grants = WatchedGrants::follow(coord.clone());
        until(&grants, |g| g.len() == 1).await;
        let ops = UserPermission::new("@ops", Scope::Global, Actions::parse("A").expect("A"));
        put(coord.as_ref(), &ops).await;
        until(&grants, |g| g.len() == 2).await;
        let key = layout::acl(&entry_name(&bob.scope, &bob.user));
        coord.txn(change(Op::delete(key))).await.expect("delete");
        until(&grants, |g| {
            g.len() == 1 && g.iter().all(|p| p.user == "@ops")
        })
        .await;
    }
}
