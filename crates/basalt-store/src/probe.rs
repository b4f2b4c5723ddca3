//! The start-up check of a store: before a server registers, it must know that its store
//! is reachable, writable, and that put-if-absent is atomic there, since the log's fencing
//! rests on it. A store that fails is refused with the URL, the step and the cause
//! (connection refused, missing bucket, permission), never half used.
//!
//! Steps, on objects under `_basalt_probe/<nonce>/` (removed afterwards):
//! 1. put an object, read it back, compare;
//! 2. delete it, and check it is gone;
//! 3. three rounds of 8 concurrent put-if-absent of one new key: exactly one creator may
//!    win, and the object must hold the winner's bytes. A store where several win (a
//!    check-then-act server) is refused, unless `unsafe_lease_only_fencing` accepts it
//!    with a warning: only the region servers' lease deadlines then protect the log.

use crate::bridge;
use crate::store::{Created, Store};
use bytes::Bytes;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Concurrent creators of one key, per round.
pub const CREATORS: usize = 8;
const ROUNDS: usize = 3;

/// What the probe found of a store it accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReport {
    pub url: String,
    /// False only when `unsafe_lease_only_fencing` let a non-atomic store through.
    pub atomic_put_if_absent: bool,
}

/// Why a store was refused.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ProbeError {
    #[error("store {url} is not usable: {step} failed: {cause}")]
    Unusable {
        url: String,
        step: &'static str,
        cause: String,
    },
    #[error(
        "store {url} cannot fence writers: put-if-absent is not atomic there ({winners} of \
         {creators} concurrent creators of one object were told they created it); use a store \
         with atomic conditional writes, or accept lease-only fencing \
         (unsafe_lease_only_fencing)"
    )]
    NotAtomic {
        url: String,
        winners: usize,
        creators: usize,
    },
}

fn unusable(store: &dyn Store, step: &'static str, cause: impl ToString) -> ProbeError {
    ProbeError::Unusable {
        url: store.url().to_owned(),
        step,
        cause: cause.to_string(),
    }
}

/// Checks `store` (see the module's story).
pub async fn probe(
    store: &dyn Store,
    unsafe_lease_only_fencing: bool,
) -> Result<ProbeReport, ProbeError> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let base = format!("_basalt_probe/{}-{nanos:x}", std::process::id());
    let outcome = check(store, &base, unsafe_lease_only_fencing).await;
    clean_up(store, &base).await;
    outcome
}

/// [`probe`] from a blocking caller (any thread).
pub fn probe_blocking(
    store: &Arc<dyn Store>,
    unsafe_lease_only_fencing: bool,
) -> Result<ProbeReport, ProbeError> {
    let owned = store.clone();
    bridge::run(async move { probe(owned.as_ref(), unsafe_lease_only_fencing).await })
        .map_err(|e| unusable(store.as_ref(), "starting the probe", e))?
}

async fn check(
    store: &dyn Store,
    base: &str,
    unsafe_lease_only_fencing: bool,
) -> Result<ProbeReport, ProbeError> {
    let key = format!("{base}/object");
    let body = Bytes::from(format!("basalt probe {base}"));
    store
        .put(&key, body.clone())
        .await
        .map_err(|e| unusable(store, "writing a probe object", e))?;
    let read = store
        .get_range(&key, 0..body.len() as u64, None)
        .await
        .map_err(|e| unusable(store, "reading the probe object back", e))?;
    if read != body {
        return Err(unusable(
            store,
            "reading the probe object back",
            "its bytes differ from those written",
        ));
    }
    store
        .delete(&key)
        .await
        .map_err(|e| unusable(store, "deleting the probe object", e))?;
    let left = store
        .head(&key)
        .await
        .map_err(|e| unusable(store, "deleting the probe object", e))?;
    if left.is_some() {
        return Err(unusable(
            store,
            "deleting the probe object",
            "it is still there",
        ));
    }
    let mut atomic = true;
    for round in 0..ROUNDS {
        let winners = race(store, &format!("{base}/race-{round}")).await?;
        if winners == 1 {
            continue;
        }
        let refusal = ProbeError::NotAtomic {
            url: store.url().to_owned(),
            winners,
            creators: CREATORS,
        };
        if !unsafe_lease_only_fencing {
            return Err(refusal);
        }
        tracing::warn!(%refusal, "unsafe_lease_only_fencing: using the store anyway");
        atomic = false;
        break;
    }
    Ok(ProbeReport {
        url: store.url().to_owned(),
        atomic_put_if_absent: atomic,
    })
}

/// Runs one round of concurrent creators of `key`; the number told they created it (the
/// object holding someone else's bytes counts as a second winner).
async fn race(store: &dyn Store, key: &str) -> Result<usize, ProbeError> {
    let step = "creating one object from 8 writers at once";
    let bodies: Vec<Bytes> = (0..CREATORS)
        .map(|i| Bytes::from(format!("creator {i}")))
        .collect();
    let attempts = bodies
        .iter()
        .map(|body| store.put_if_absent(key, body.clone()));
    let outcomes = futures_util::future::join_all(attempts).await;
    let mut winners = Vec::new();
    for (i, outcome) in outcomes.into_iter().enumerate() {
        match outcome.map_err(|e| unusable(store, step, e))? {
            Created::Created => winners.push(i),
            Created::AlreadyExists => {}
        }
    }
    if let [winner] = winners[..] {
        let body = &bodies[winner];
        let stored = store
            .get_range(key, 0..body.len() as u64, None)
            .await
            .map_err(|e| unusable(store, step, e))?;
        if stored != *body {
            return Ok(2);
        }
    }
    Ok(winners.len())
}

async fn clean_up(store: &dyn Store, base: &str) {
    let listed = match store.list(base, crate::ListMode::Recursive).await {
        Ok(listed) => listed,
        Err(e) => {
            tracing::warn!(error = %e, "could not list the probe's objects to remove them");
            return;
        }
    };
    for object in listed.objects {
        if let Err(e) = store.delete(&object.key).await {
            tracing::warn!(key = object.key, error = %e, "could not remove a probe object");
        }
    }
}
