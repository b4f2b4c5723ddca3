//! The in-process store's core: keys with etcd's revision bookkeeping, transactions,
//! leases and the bounded history watches read from. No I/O and no clock of its own: the
//! caller passes `now`, so every rule here is a plain function of its inputs.
//!
//! How the bookkeeping moves, as etcd does it (one global revision; a transaction that
//! changes anything takes exactly one new revision, shared by all its changes):
//!
//! | step                      | revision | key `a`: create / mod / version | event        |
//! |---------------------------|----------|---------------------------------|--------------|
//! | put a=1                   | 2        | 2 / 2 / 1                       | PUT a @2     |
//! | put a=2                   | 3        | 2 / 3 / 2                       | PUT a @3     |
//! | delete b (absent)         | 3        | unchanged: nothing changed      | none         |
//! | delete a                  | 4        | gone (compares see 0 / 0 / 0)   | DELETE a @4  |
//! | put a=3                   | 5        | 5 / 5 / 1                       | PUT a @5     |
//!
//! (The first revision of an empty store is 1, as in etcd.)

use crate::{
    Compare, CompareOp, CoordError, EventKind, KeyValue, Listing, Op, Result, Target, Txn,
    TxnResult, WatchEvent,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

/// Events a store keeps for watches, by default.
pub const HISTORY_EVENTS_MAX: usize = 10_000;

#[derive(Debug)]
struct Lease {
    ttl: Duration,
    expires: Instant,
    keys: BTreeSet<Vec<u8>>,
}

#[derive(Debug)]
pub(crate) struct Store {
    kvs: BTreeMap<Vec<u8>, KeyValue>,
    revision: i64,
    leases: BTreeMap<i64, Lease>,
    next_lease: i64,
    /// Every change with a revision of at least `first_kept`, in order.
    history: VecDeque<WatchEvent>,
    history_events_max: usize,
    /// The oldest revision a watch can still start from.
    first_kept: i64,
    /// Changes not yet handed to a journal, in order; collected only when `journaling`.
    unsaved: Vec<WatchEvent>,
    journaling: bool,
}

impl Store {
    pub(crate) fn new(history_events_max: usize) -> Self {
        Self {
            kvs: BTreeMap::new(),
            revision: 1,
            leases: BTreeMap::new(),
            next_lease: 1,
            history: VecDeque::new(),
            history_events_max: history_events_max.max(1),
            first_kept: 1,
            unsaved: Vec::new(),
            journaling: false,
        }
    }

    /// A store holding `kvs` at `revision`, as a snapshot and journal left it: no leases
    /// (they died with the process that held them) and no history (a watch must start
    /// above `revision`). Lease ids continue above every id the keys name.
    pub(crate) fn restore(
        revision: i64,
        kvs: impl IntoIterator<Item = KeyValue>,
        history_events_max: usize,
    ) -> Self {
        let mut store = Self::new(history_events_max);
        store.revision = revision;
        store.first_kept = revision + 1;
        store.kvs = kvs.into_iter().map(|kv| (kv.key.clone(), kv)).collect();
        store.next_lease = store
            .kvs
            .values()
            .map(|kv| kv.lease)
            .max()
            .unwrap_or(0)
            .max(0)
            .saturating_add(1);
        store
    }

    /// Replays one committed revision from a journal: its events as they were recorded.
    /// The caller checks that `revision` follows this store's.
    pub(crate) fn replay(&mut self, revision: i64, events: Vec<WatchEvent>) {
        for event in events {
            match event.kind {
                EventKind::Put => {
                    self.next_lease = self.next_lease.max(event.kv.lease.saturating_add(1));
                    self.kvs.insert(event.kv.key.clone(), event.kv);
                }
                EventKind::Delete => {
                    self.kvs.remove(&event.kv.key);
                }
            }
        }
        self.revision = revision;
        self.first_kept = revision + 1;
    }

    /// From now on every change is also collected for [`Store::take_unsaved`].
    pub(crate) fn start_journaling(&mut self) {
        self.journaling = true;
    }

    /// The changes made since the last call, in order (each carries its revision as
    /// `mod_revision`).
    pub(crate) fn take_unsaved(&mut self) -> Vec<WatchEvent> {
        std::mem::take(&mut self.unsaved)
    }

    /// Every key, in key order (what a snapshot holds).
    pub(crate) fn kvs(&self) -> impl ExactSizeIterator<Item = &KeyValue> {
        self.kvs.values()
    }

    /// Deletes every key put under a lease, at one new revision: after a restart no lease
    /// exists, so their keys go as etcd would expire them. False when there were none.
    pub(crate) fn drop_leased_keys(&mut self) -> bool {
        let leased: Vec<Vec<u8>> = self
            .kvs
            .values()
            .filter(|kv| kv.lease != 0)
            .map(|kv| kv.key.clone())
            .collect();
        let revision = self.revision + 1;
        let mut changed = false;
        for key in &leased {
            changed |= self.delete(key, revision);
        }
        if changed {
            self.revision = revision;
            self.trim_history();
        }
        changed
    }

    fn record(&mut self, event: WatchEvent) {
        if self.journaling {
            self.unsaved.push(event.clone());
        }
        self.history.push_back(event);
    }

    pub(crate) fn revision(&self) -> i64 {
        self.revision
    }

    pub(crate) fn get(&self, key: &[u8]) -> Option<KeyValue> {
        self.kvs.get(key).cloned()
    }

    pub(crate) fn list(&self, prefix: &[u8]) -> Listing {
        let kvs = self
            .kvs
            .range(prefix.to_vec()..)
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(_, kv)| kv.clone())
            .collect();
        Listing {
            kvs,
            revision: self.revision,
        }
    }

    /// Checks every compare, then applies the chosen branch at one new revision (or none,
    /// when it changes nothing). A branch that names a key twice in a put, or puts under a
    /// lease that does not exist, fails whole and changes nothing (etcd's rules).
    pub(crate) fn txn(&mut self, txn: &Txn) -> Result<TxnResult> {
        check_no_duplicate_puts(&txn.success)?;
        check_no_duplicate_puts(&txn.failure)?;
        let succeeded = txn.compares.iter().all(|compare| self.holds(compare));
        let ops = if succeeded {
            &txn.success
        } else {
            &txn.failure
        };
        for op in ops {
            if let Op::Put { lease, .. } = op {
                if *lease != 0 && !self.leases.contains_key(lease) {
                    return Err(CoordError::LeaseGone(*lease));
                }
            }
        }
        let revision = self.revision + 1;
        let mut changed = false;
        for op in ops {
            changed |= match op {
                Op::Put { key, value, lease } => {
                    self.put(key, value, *lease, revision);
                    true
                }
                Op::Delete { key } => self.delete(key, revision),
                Op::DeletePrefix { prefix } => {
                    let keys: Vec<Vec<u8>> = self
                        .kvs
                        .range(prefix.clone()..)
                        .take_while(|(key, _)| key.starts_with(prefix))
                        .map(|(key, _)| key.clone())
                        .collect();
                    keys.iter()
                        .fold(false, |any, key| self.delete(key, revision) | any)
                }
            };
        }
        if changed {
            self.revision = revision;
            self.trim_history();
        }
        Ok(TxnResult {
            succeeded,
            revision: self.revision,
        })
    }

    /// A compare as etcd evaluates it: a missing key has version, create and mod revision
    /// 0; a value compare on a missing key fails whatever its operator.
    fn holds(&self, compare: &Compare) -> bool {
        let kv = self.kvs.get(&compare.key);
        let ordering = match (&compare.target, kv) {
            (Target::Value(_), None) => return false,
            (Target::Value(expected), Some(kv)) => kv.value.as_slice().cmp(expected.as_slice()),
            (Target::Version(v), kv) => kv.map_or(0, |kv| kv.version).cmp(v),
            (Target::CreateRevision(r), kv) => kv.map_or(0, |kv| kv.create_revision).cmp(r),
            (Target::ModRevision(r), kv) => kv.map_or(0, |kv| kv.mod_revision).cmp(r),
        };
        match compare.op {
            CompareOp::Equal => ordering.is_eq(),
            CompareOp::NotEqual => ordering.is_ne(),
            CompareOp::Less => ordering.is_lt(),
            CompareOp::Greater => ordering.is_gt(),
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8], lease: i64, revision: i64) {
        let previous = self.kvs.get(key);
        let (create_revision, version, old_lease) = match previous {
            Some(kv) => (kv.create_revision, kv.version + 1, kv.lease),
            None => (revision, 1, 0),
        };
        if old_lease != 0 && old_lease != lease {
            if let Some(old) = self.leases.get_mut(&old_lease) {
                old.keys.remove(key);
            }
        }
        if let Some(new) = self.leases.get_mut(&lease) {
            new.keys.insert(key.to_vec());
        }
        let kv = KeyValue {
            key: key.to_vec(),
            value: value.to_vec(),
            create_revision,
            mod_revision: revision,
            version,
            lease,
        };
        self.record(WatchEvent {
            kind: EventKind::Put,
            kv: kv.clone(),
        });
        self.kvs.insert(key.to_vec(), kv);
    }

    /// Deletes `key` at `revision`; false when it did not exist.
    fn delete(&mut self, key: &[u8], revision: i64) -> bool {
        let Some(kv) = self.kvs.remove(key) else {
            return false;
        };
        if let Some(lease) = self.leases.get_mut(&kv.lease) {
            lease.keys.remove(key);
        }
        let tombstone = KeyValue {
            key: kv.key,
            value: Vec::new(),
            create_revision: 0,
            mod_revision: revision,
            version: 0,
            lease: 0,
        };
        self.record(WatchEvent {
            kind: EventKind::Delete,
            kv: tombstone,
        });
        true
    }

    /// Drops the oldest revisions while the history holds more events than its bound
    /// (whole revisions: a watch never sees half a transaction).
    fn trim_history(&mut self) {
        while self.history.len() > self.history_events_max {
            let Some(oldest) = self.history.front().map(|e| e.kv.mod_revision) else {
                break;
            };
            self.forget_before(oldest + 1);
        }
    }

    fn forget_before(&mut self, revision: i64) {
        while self
            .history
            .front()
            .is_some_and(|e| e.kv.mod_revision < revision)
        {
            self.history.pop_front();
        }
        self.first_kept = self.first_kept.max(revision);
    }

    /// Forgets the history below `revision`: a watch must then start at `revision` or
    /// later. (etcd's Compact; the keys themselves keep their latest value.)
    pub(crate) fn compact(&mut self, revision: i64) -> Result<()> {
        if revision > self.revision {
            return Err(CoordError::Refused(format!(
                "cannot compact at revision {revision}: the store is at {}",
                self.revision
            )));
        }
        if revision < self.first_kept {
            return Err(CoordError::Compacted {
                requested: revision,
                compacted: self.first_kept,
            });
        }
        self.forget_before(revision);
        Ok(())
    }

    /// Every change under `prefix` with a revision above `after`, in order.
    pub(crate) fn events_after(&self, prefix: &[u8], after: i64) -> Result<Vec<WatchEvent>> {
        if after + 1 < self.first_kept {
            return Err(CoordError::Compacted {
                requested: after + 1,
                compacted: self.first_kept,
            });
        }
        let start = self.history.partition_point(|e| e.kv.mod_revision <= after);
        Ok(self
            .history
            .range(start..)
            .filter(|e| e.kv.key.starts_with(prefix))
            .cloned()
            .collect())
    }

    pub(crate) fn grant(&mut self, ttl: Duration, now: Instant) -> i64 {
        let id = self.next_lease;
        self.next_lease += 1;
        let ttl = whole_seconds(ttl);
        self.leases.insert(
            id,
            Lease {
                ttl,
                expires: now + ttl,
                keys: BTreeSet::new(),
            },
        );
        id
    }

    pub(crate) fn keep_alive(&mut self, id: i64, now: Instant) -> Result<Duration> {
        let lease = self.leases.get_mut(&id).ok_or(CoordError::LeaseGone(id))?;
        lease.expires = now + lease.ttl;
        Ok(lease.ttl)
    }

    /// Ends a lease and deletes its keys, all at one revision.
    pub(crate) fn revoke(&mut self, id: i64) -> Result<()> {
        let lease = self.leases.remove(&id).ok_or(CoordError::LeaseGone(id))?;
        let revision = self.revision + 1;
        let mut changed = false;
        for key in &lease.keys {
            changed |= self.delete(key, revision);
        }
        if changed {
            self.revision = revision;
            self.trim_history();
        }
        Ok(())
    }

    /// Revokes every lease whose time is up at `now`.
    pub(crate) fn expire(&mut self, now: Instant) {
        let expired: Vec<i64> = self
            .leases
            .iter()
            .filter(|(_, lease)| lease.expires <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            tracing::debug!(lease = format_args!("{id:x}"), "local lease expired");
            // Present: listed just above, under the same borrow of the store.
            let _ = self.revoke(id);
        }
    }

    /// When the next lease expires, if any lease is held.
    pub(crate) fn next_expiry(&self) -> Option<Instant> {
        self.leases.values().map(|lease| lease.expires).min()
    }
}

/// A TTL in whole seconds (rounded up), at least one.
pub(crate) fn whole_seconds(ttl: Duration) -> Duration {
    let seconds = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    Duration::from_secs(seconds.max(1))
}

/// etcd refuses a branch that puts a key twice, or puts a key that a delete of the same
/// branch also covers ("duplicate key given in txn request").
fn check_no_duplicate_puts(ops: &[Op]) -> Result<()> {
    let mut puts = BTreeSet::new();
    for op in ops {
        if let Op::Put { key, .. } = op {
            if !puts.insert(key.as_slice()) {
                return Err(duplicate(key));
            }
        }
    }
    for op in ops {
        let covered = match op {
            Op::Put { .. } => None,
            Op::Delete { key } => puts.get(key.as_slice()).copied(),
            Op::DeletePrefix { prefix } => puts.iter().find(|k| k.starts_with(prefix)).copied(),
        };
        if let Some(key) = covered {
            return Err(duplicate(key));
        }
    }
    Ok(())
}

fn duplicate(key: &[u8]) -> CoordError {
    CoordError::Refused(format!(
        "duplicate key given in txn request: {}",
        String::from_utf8_lossy(key)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(store: &mut Store, key: &str, value: &str) -> TxnResult {
        let txn = Txn {
            success: vec![Op::put(key, value)],
            ..Txn::default()
        };
        store.txn(&txn).expect("put applies")
    }

    #[test]
    fn revisions_follow_etcd_through_put_delete_and_recreate() {
        let mut store = Store::new(HISTORY_EVENTS_MAX);
        assert_eq!(store.revision(), 1);
        assert_eq!(put(&mut store, "a", "1").revision, 2);
        put(&mut store, "a", "2");
        let kv = store.get(b"a").expect("a exists");
        assert_eq!((kv.create_revision, kv.mod_revision, kv.version), (2, 3, 2));
        let nothing = Txn {
            success: vec![Op::delete("b")],
            ..Txn::default()
        };
        assert_eq!(store.txn(&nothing).expect("no-op delete").revision, 3);
        let gone = Txn {
            success: vec![Op::delete("a")],
            ..Txn::default()
        };
        assert_eq!(store.txn(&gone).expect("delete").revision, 4);
        put(&mut store, "a", "3");
        let kv = store.get(b"a").expect("a again");
        assert_eq!((kv.create_revision, kv.mod_revision, kv.version), (5, 5, 1));
        let kinds: Vec<_> = store
            .events_after(b"", 0)
            .expect("history")
            .into_iter()
            .map(|e| (e.kind, e.kv.mod_revision))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (EventKind::Put, 2),
                (EventKind::Put, 3),
                (EventKind::Delete, 4),
                (EventKind::Put, 5)
            ]
        );
    }

    #[test]
    fn a_branch_putting_one_key_twice_is_refused_whole() {
        let mut store = Store::new(HISTORY_EVENTS_MAX);
        let txn = Txn {
            success: vec![Op::put("k", "1"), Op::put("k", "2")],
            ..Txn::default()
        };
        assert!(matches!(store.txn(&txn), Err(CoordError::Refused(_))));
        let txn = Txn {
            success: vec![
                Op::put("k/1", "1"),
                Op::DeletePrefix {
                    prefix: b"k/".to_vec(),
                },
            ],
            ..Txn::default()
        };
        assert!(matches!(store.txn(&txn), Err(CoordError::Refused(_))));
        assert_eq!(store.revision(), 1);
    }

    #[test]
    fn a_bounded_history_forgets_whole_old_revisions() {
        let mut store = Store::new(3);
        for i in 0..5 {
            put(&mut store, "k", &i.to_string());
        }
        // Revisions 2..=6; three kept: 4, 5, 6.
        assert_eq!(
            store.events_after(b"", 1),
            Err(CoordError::Compacted {
                requested: 2,
                compacted: 4
            })
        );
        assert_eq!(store.events_after(b"", 3).expect("kept").len(), 3);
    }

    #[test]
    fn a_ttl_counts_in_whole_seconds_rounded_up() {
        assert_eq!(
            whole_seconds(Duration::from_millis(1)),
            Duration::from_secs(1)
        );
        assert_eq!(
            whole_seconds(Duration::from_millis(1500)),
            Duration::from_secs(2)
        );
        assert_eq!(
            whole_seconds(Duration::from_secs(3)),
            Duration::from_secs(3)
        );
        assert_eq!(whole_seconds(Duration::ZERO), Duration::from_secs(1));
    }
}
