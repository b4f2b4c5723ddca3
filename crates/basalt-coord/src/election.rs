//! One leader among candidates, on leases and create revisions (etcd's election recipe).
//!
//! Each candidate puts `election/<name>/<lease as 16 hex digits>` under its own lease. The
//! candidate whose key has the lowest create revision leads; the others wait, watching the
//! election's keys, until every key created before theirs is gone (resigned, or its lease
//! expired). A standby therefore takes over on the very watch event that removes the last
//! key ahead of it, without polling.
//!
//! | candidate | key                                | create revision | role           |
//! |-----------|------------------------------------|-----------------|----------------|
//! | m1        | `election/master/00000000000000a1` | 7               | leader         |
//! | m2        | `election/master/00000000000000b2` | 9               | waits for 7    |
//! | m3        | `election/master/00000000000000c3` | 12              | waits for 7, 9 |
//!
//! Leadership is only as good as the lease under it: a leader adds [`Leadership::guard`]
//! to every write it makes, so that a write from a leader whose key is gone (an old master
//! that was paused past its lease) fails instead of overwriting its successor's work.

use crate::{Compare, CoordError, Coordinator, EventKind, KeyValue, Op, Result, Txn};
use std::collections::BTreeSet;

/// The keys of election `name` start with this.
pub fn election_prefix(name: &str) -> Vec<u8> {
    format!("election/{name}/").into_bytes()
}

/// A won election: the leader's key and the revision that created it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leadership {
    pub key: Vec<u8>,
    pub create_revision: i64,
}

impl Leadership {
    /// Holds while this candidate still leads (its key is the one it created): add it to
    /// every write the leader makes.
    pub fn guard(&self) -> Compare {
        Compare::create_revision(self.key.clone(), self.create_revision)
    }

    /// Steps down: deletes the key if it is still this leadership's. True when it was.
    pub async fn resign<C: Coordinator + ?Sized>(&self, coord: &C) -> Result<bool> {
        let txn = Txn {
            compares: vec![self.guard()],
            success: vec![Op::delete(self.key.clone())],
            failure: vec![],
        };
        let resigned = coord.txn(txn).await?.succeeded;
        tracing::info!(key = %String::from_utf8_lossy(&self.key), resigned, "resigned leadership");
        Ok(resigned)
    }
}

/// Stands for election `name` with `value` (what followers learn about the leader) under
/// `lease`, and returns once this candidate leads. Standing again with the same lease
/// keeps the original place in line (and updates the value). Fails with `LeaseGone` when
/// the candidate's key disappears while it waits (its lease expired or was revoked).
pub async fn campaign<C: Coordinator + ?Sized>(
    coord: &C,
    name: &str,
    value: &[u8],
    lease: i64,
) -> Result<Leadership> {
    let prefix = election_prefix(name);
    let mut key = prefix.clone();
    key.extend_from_slice(format!("{lease:016x}").as_bytes());
    let create_revision = stand(coord, &key, value, lease).await?;
    let mine = Leadership {
        key,
        create_revision,
    };
    loop {
        let listing = coord.list(&prefix).await?;
        if !listing
            .kvs
            .iter()
            .any(|kv| kv.key == mine.key && kv.create_revision == create_revision)
        {
            return Err(CoordError::LeaseGone(lease));
        }
        let mut ahead: BTreeSet<Vec<u8>> = listing
            .kvs
            .into_iter()
            .filter(|kv| kv.create_revision < create_revision)
            .map(|kv| kv.key)
            .collect();
        if ahead.is_empty() {
            tracing::info!(election = name, create_revision, "won the election");
            return Ok(mine);
        }
        tracing::debug!(
            election = name,
            waiting_for = ahead.len(),
            "waiting to lead"
        );
        let mut events = coord.watch(&prefix, listing.revision).await?;
        loop {
            match events.recv().await {
                Some(Ok(event)) if event.kind == EventKind::Delete => {
                    if event.kv.key == mine.key {
                        return Err(CoordError::LeaseGone(lease));
                    }
                    ahead.remove(&event.kv.key);
                    if ahead.is_empty() {
                        tracing::info!(election = name, create_revision, "took over the lead");
                        return Ok(mine);
                    }
                }
                Some(Ok(_)) => {}
                // The watch broke (compacted, connection lost): look again from a listing.
                Some(Err(error)) => {
                    tracing::debug!(%error, election = name, "election watch broke; listing again");
                    break;
                }
                None => break,
            }
        }
    }
}

/// Puts the candidate's key unless it exists; its create revision either way.
async fn stand<C: Coordinator + ?Sized>(
    coord: &C,
    key: &[u8],
    value: &[u8],
    lease: i64,
) -> Result<i64> {
    let put = Op::Put {
        key: key.to_vec(),
        value: value.to_vec(),
        lease,
    };
    let txn = Txn {
        compares: vec![Compare::absent(key)],
        success: vec![put.clone()],
        failure: vec![],
    };
    let result = coord.txn(txn).await?;
    if result.succeeded {
        // The put was the transaction's only change: it happened at its revision.
        return Ok(result.revision);
    }
    let existing = coord.get(key).await?.ok_or(CoordError::LeaseGone(lease))?;
    let again = Txn {
        compares: vec![Compare::create_revision(key, existing.create_revision)],
        success: vec![put],
        failure: vec![],
    };
    if !coord.txn(again).await?.succeeded {
        return Err(CoordError::LeaseGone(lease));
    }
    Ok(existing.create_revision)
}

/// The current leader of election `name`: the key with the lowest create revision.
pub async fn leader<C: Coordinator + ?Sized>(coord: &C, name: &str) -> Result<Option<KeyValue>> {
    Ok(leader_at(coord, name).await?.0)
}

/// As [`leader`], with the revision it was read at (to watch for one from there).
pub async fn leader_at<C: Coordinator + ?Sized>(
    coord: &C,
    name: &str,
) -> Result<(Option<KeyValue>, i64)> {
    let listing = coord.list(&election_prefix(name)).await?;
    let leader = listing.kvs.into_iter().min_by_key(|kv| kv.create_revision);
    Ok((leader, listing.revision))
}
