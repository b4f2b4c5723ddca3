//! etcd's messages (generated from `proto/` by build.rs) and the conversions between them
//! and the coordinator's plain types, including the cluster prefix: it is added to every
//! key sent and taken off every key received.

#[allow(clippy::all, clippy::pedantic)]
pub mod mvccpb {
    tonic::include_proto!("mvccpb");
}

#[allow(clippy::all, clippy::pedantic)]
pub mod etcdserverpb {
    tonic::include_proto!("etcdserverpb");
}

use crate::{Compare, CompareOp, EventKind, KeyValue, Op, Target, WatchEvent};
use etcdserverpb::compare::{CompareResult, CompareTarget, TargetUnion};
use etcdserverpb::request_op::Request;
use etcdserverpb::{DeleteRangeRequest, PutRequest, RequestOp};

/// The cluster prefix and the key arithmetic around it.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    prefix: Vec<u8>,
}

impl Keys {
    pub(crate) fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.as_bytes().to_vec(),
        }
    }

    /// The key as etcd stores it.
    pub(crate) fn full(&self, key: &[u8]) -> Vec<u8> {
        let mut full = Vec::with_capacity(self.prefix.len() + key.len());
        full.extend_from_slice(&self.prefix);
        full.extend_from_slice(key);
        full
    }

    /// The key as the caller knows it. A key outside the prefix (which a range under the
    /// prefix cannot return) is passed on whole.
    pub(crate) fn strip(&self, key: Vec<u8>) -> Vec<u8> {
        match key.strip_prefix(self.prefix.as_slice()) {
            Some(rest) => rest.to_vec(),
            None => {
                tracing::warn!(
                    key = %String::from_utf8_lossy(&key),
                    "etcd returned a key outside the cluster prefix"
                );
                key
            }
        }
    }

    /// The `[key, range_end)` pair that selects every key starting with `prefix`
    /// (etcd's convention: range_end is the prefix with its last byte below 0xff
    /// incremented and the rest dropped; "\0" when there is none, meaning "to the end").
    /// An empty full prefix selects every key: key and range_end both "\0".
    pub(crate) fn range(&self, prefix: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let key = self.full(prefix);
        if key.is_empty() {
            return (vec![0], vec![0]);
        }
        let end = prefix_end(&key);
        (key, end)
    }

    pub(crate) fn kv(&self, kv: mvccpb::KeyValue) -> KeyValue {
        KeyValue {
            key: self.strip(kv.key),
            value: kv.value,
            create_revision: kv.create_revision,
            mod_revision: kv.mod_revision,
            version: kv.version,
            lease: kv.lease,
        }
    }

    pub(crate) fn event(&self, event: mvccpb::Event) -> Option<WatchEvent> {
        let kind = match mvccpb::event::EventType::try_from(event.r#type) {
            Ok(mvccpb::event::EventType::Put) => EventKind::Put,
            Ok(mvccpb::event::EventType::Delete) => EventKind::Delete,
            Err(_) => return None,
        };
        Some(WatchEvent {
            kind,
            kv: self.kv(event.kv?),
        })
    }

    pub(crate) fn compare(&self, compare: &Compare) -> etcdserverpb::Compare {
        let result = match compare.op {
            CompareOp::Equal => CompareResult::Equal,
            CompareOp::NotEqual => CompareResult::NotEqual,
            CompareOp::Less => CompareResult::Less,
            CompareOp::Greater => CompareResult::Greater,
        };
        let (target, union) = match &compare.target {
            Target::Version(v) => (CompareTarget::Version, TargetUnion::Version(*v)),
            Target::CreateRevision(r) => (CompareTarget::Create, TargetUnion::CreateRevision(*r)),
            Target::ModRevision(r) => (CompareTarget::Mod, TargetUnion::ModRevision(*r)),
            Target::Value(v) => (CompareTarget::Value, TargetUnion::Value(v.clone())),
        };
        etcdserverpb::Compare {
            result: result as i32,
            target: target as i32,
            key: self.full(&compare.key),
            target_union: Some(union),
            range_end: Vec::new(),
        }
    }

    pub(crate) fn op(&self, op: &Op) -> RequestOp {
        let request = match op {
            Op::Put { key, value, lease } => Request::RequestPut(PutRequest {
                key: self.full(key),
                value: value.clone(),
                lease: *lease,
                ..PutRequest::default()
            }),
            Op::Delete { key } => Request::RequestDeleteRange(DeleteRangeRequest {
                key: self.full(key),
                ..DeleteRangeRequest::default()
            }),
            Op::DeletePrefix { prefix } => {
                let (key, range_end) = self.range(prefix);
                Request::RequestDeleteRange(DeleteRangeRequest {
                    key,
                    range_end,
                    ..DeleteRangeRequest::default()
                })
            }
        };
        RequestOp {
            request: Some(request),
        }
    }
}

/// The smallest key above every key starting with `prefix` ("\0" when none exists).
fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    match prefix.iter().rposition(|byte| *byte < 0xff) {
        Some(last) => {
            let mut end = prefix[..=last].to_vec();
            end[last] += 1;
            end
        }
        None => vec![0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_range_ends_after_its_last_incrementable_byte() {
        let keys = Keys::new("c1/");
        assert_eq!(
            keys.range(b"servers/"),
            (b"c1/servers/".to_vec(), b"c1/servers0".to_vec())
        );
        assert_eq!(keys.range(b""), (b"c1/".to_vec(), b"c10".to_vec()));
        assert_eq!(prefix_end(b"a\xff"), b"b".to_vec());
        assert_eq!(prefix_end(b"\xff\xff"), vec![0]);
        let bare = Keys::new("");
        assert_eq!(bare.range(b""), (vec![0], vec![0]));
    }

    #[test]
    fn keys_gain_and_lose_the_cluster_prefix() {
        let keys = Keys::new("c1/");
        assert_eq!(keys.full(b"k"), b"c1/k".to_vec());
        assert_eq!(keys.strip(b"c1/k".to_vec()), b"k".to_vec());
    }
}
