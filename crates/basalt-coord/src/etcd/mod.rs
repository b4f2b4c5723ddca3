//! [`EtcdCoordinator`]: the coordinator on an etcd cluster, through etcd's v3 gRPC API.
//!
//! The messages are compiled from `proto/` (a subset of etcd's own `.proto` files, with
//! its names and field numbers) by protox, so building needs no `protoc`. Every key gets
//! the cluster prefix in front on the way out and loses it on the way back, so one etcd
//! cluster can hold several Basalt clusters side by side. Every call has one deadline
//! (default [`DEFAULT_TIMEOUT`]) and moves along the endpoints as `transport` describes.
//!
//! # Layout
//! - this file: [`EtcdCoordinator`], the [`Coordinator`] calls.
//! - `pb`: etcd's messages, the prefix and the conversions.
//! - `transport`: channels, endpoint failover, deadlines, error mapping.
//! - `watch`: one Watch stream per watch.

mod pb;
mod transport;
mod watch;

use crate::local::whole_seconds;
use crate::{
    CoordError, CoordFuture, Coordinator, KeyValue, Listing, Op, Result, Txn, TxnResult,
    WatchStream,
};
use pb::etcdserverpb::kv_client::KvClient;
use pb::etcdserverpb::lease_client::LeaseClient;
use pb::etcdserverpb::{
    CompactionRequest, LeaseGrantRequest, LeaseKeepAliveRequest, LeaseRevokeRequest, RangeRequest,
    TxnRequest,
};
use pb::Keys;
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::Channel;
use tonic::{Code, Status};
use transport::{request, Call, Endpoints, RESPONSE_BYTES_MAX};

/// The deadline of one call, when the caller names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Keys per Range answer when listing a prefix (a listing takes several pages, all read
/// at the revision of the first).
const LIST_PAGE_KEYS: i64 = 1000;
/// How often a listing starts over when etcd compacted its revision between pages.
const LIST_RESTARTS_MAX: usize = 3;

/// The coordinator on etcd. Clones share the channels.
#[derive(Debug, Clone)]
pub struct EtcdCoordinator {
    endpoints: Arc<Endpoints>,
    keys: Keys,
}

fn kv(channel: Channel) -> KvClient<Channel> {
    KvClient::new(channel).max_decoding_message_size(RESPONSE_BYTES_MAX)
}

fn lease(channel: Channel) -> LeaseClient<Channel> {
    LeaseClient::new(channel).max_decoding_message_size(RESPONSE_BYTES_MAX)
}

impl EtcdCoordinator {
    /// Connects to the cluster at `endpoints` (`host:port` or `http://host:port`, tried in
    /// order), for the Basalt cluster whose keys start with `prefix`; every call then has
    /// `timeout`. Fails with `Unavailable`, naming the endpoints, when none answers.
    pub async fn connect(endpoints: &[String], prefix: &str, timeout: Duration) -> Result<Self> {
        Self::connect_tls(endpoints, prefix, timeout, None).await
    }

    /// As [`EtcdCoordinator::connect`], over TLS with `tls` (etcd's CA, and a client
    /// certificate for `--client-cert-auth`) when given.
    pub async fn connect_tls(
        endpoints: &[String],
        prefix: &str,
        timeout: Duration,
        tls: Option<basalt_net::tls::ClientTls>,
    ) -> Result<Self> {
        let coordinator = Self {
            endpoints: Arc::new(Endpoints::new(endpoints, timeout, tls)?),
            keys: Keys::new(prefix),
        };
        // One read, so that an unreachable cluster shows now rather than at first use.
        let (key, range_end) = coordinator.keys.range(b"");
        let probe = RangeRequest {
            key,
            range_end,
            limit: 1,
            keys_only: true,
            ..RangeRequest::default()
        };
        coordinator.range(Call::read("connect"), probe).await?;
        tracing::info!(endpoints = %coordinator.endpoints.names(), prefix, "connected to etcd");
        Ok(coordinator)
    }

    /// Forgets etcd's history below `revision` (etcd's Compact): a watch from before it
    /// then ends with `Compacted`.
    pub async fn compact(&self, revision: i64) -> Result<()> {
        let compaction = CompactionRequest {
            revision,
            physical: false,
        };
        self.endpoints
            .call(Call::write("compact"), |channel, time| async move {
                kv(channel).compact(request(compaction, Some(time))).await
            })
            .await
            .map(|_| ())
            .map_err(|error| compacted_as(error, revision))
    }

    async fn range(
        &self,
        call: Call,
        range: RangeRequest,
    ) -> Result<pb::etcdserverpb::RangeResponse> {
        self.endpoints
            .call(call, |channel, time| {
                let message = range.clone();
                async move {
                    kv(channel)
                        .range(request(message, Some(time)))
                        .await
                        .map(|r| r.into_inner())
                }
            })
            .await
    }

    async fn list_once(&self, prefix: &[u8]) -> Result<Listing> {
        let (mut key, range_end) = self.keys.range(prefix);
        let mut kvs = Vec::new();
        let mut revision = 0;
        loop {
            let page = RangeRequest {
                key: key.clone(),
                range_end: range_end.clone(),
                limit: LIST_PAGE_KEYS,
                revision,
                ..RangeRequest::default()
            };
            let answer = self.range(Call::read("list"), page).await?;
            if revision == 0 {
                revision = answer.header.map_or(0, |h| h.revision);
            }
            let more = answer.more;
            if let Some(last) = answer.kvs.last() {
                // The next page starts just after the last key of this one.
                key = last.key.clone();
                key.push(0);
            }
            kvs.extend(answer.kvs.into_iter().map(|kv| self.keys.kv(kv)));
            if !more {
                return Ok(Listing { kvs, revision });
            }
        }
    }
}

/// etcd's "required revision has been compacted" as [`CoordError::Compacted`].
fn compacted_as(error: CoordError, requested: i64) -> CoordError {
    match error {
        CoordError::Refused(message) if message.contains("compacted") => CoordError::Compacted {
            requested,
            compacted: requested,
        },
        other => other,
    }
}

/// The lease a transaction's puts name (for a "lease not found" answer).
fn lease_of(txn: &Txn) -> i64 {
    txn.success
        .iter()
        .chain(&txn.failure)
        .find_map(|op| match op {
            Op::Put { lease, .. } if *lease != 0 => Some(*lease),
            _ => None,
        })
        .unwrap_or(0)
}

impl Coordinator for EtcdCoordinator {
    fn get(&self, key: &[u8]) -> CoordFuture<'_, Option<KeyValue>> {
        let range = RangeRequest {
            key: self.keys.full(key),
            ..RangeRequest::default()
        };
        Box::pin(async move {
            let answer = self.range(Call::read("get"), range).await?;
            Ok(answer.kvs.into_iter().next().map(|kv| self.keys.kv(kv)))
        })
    }

    fn list(&self, prefix: &[u8]) -> CoordFuture<'_, Listing> {
        let prefix = prefix.to_vec();
        Box::pin(async move {
            let mut restarts = 0;
            loop {
                match self.list_once(&prefix).await {
                    Err(CoordError::Refused(message))
                        if message.contains("compacted") && restarts < LIST_RESTARTS_MAX =>
                    {
                        restarts += 1;
                        tracing::debug!(
                            message,
                            "etcd compacted a listing's revision; listing again"
                        );
                    }
                    other => return other,
                }
            }
        })
    }

    fn txn(&self, txn: Txn) -> CoordFuture<'_, TxnResult> {
        let message = TxnRequest {
            compare: txn.compares.iter().map(|c| self.keys.compare(c)).collect(),
            success: txn.success.iter().map(|op| self.keys.op(op)).collect(),
            failure: txn.failure.iter().map(|op| self.keys.op(op)).collect(),
        };
        let call = Call::write("txn").lease(lease_of(&txn));
        Box::pin(async move {
            let answer = self
                .endpoints
                .call(call, |channel, time| {
                    let message = message.clone();
                    async move {
                        kv(channel)
                            .txn(request(message, Some(time)))
                            .await
                            .map(|r| r.into_inner())
                    }
                })
                .await?;
            Ok(TxnResult {
                succeeded: answer.succeeded,
                revision: answer.header.map_or(0, |h| h.revision),
            })
        })
    }

    fn grant_lease(&self, ttl: Duration) -> CoordFuture<'_, i64> {
        let seconds = i64::try_from(whole_seconds(ttl).as_secs()).unwrap_or(i64::MAX);
        let grant = LeaseGrantRequest {
            ttl: seconds,
            id: 0,
        };
        Box::pin(async move {
            let answer = self
                .endpoints
                .call(Call::read("lease grant"), |channel, time| async move {
                    lease(channel)
                        .lease_grant(request(grant, Some(time)))
                        .await
                        .map(|r| r.into_inner())
                })
                .await?;
            if !answer.error.is_empty() {
                return Err(CoordError::Refused(format!(
                    "etcd lease grant: {}",
                    answer.error
                )));
            }
            Ok(answer.id)
        })
    }

    fn keep_alive(&self, id: i64) -> CoordFuture<'_, Duration> {
        Box::pin(async move {
            let answer = self
                .endpoints
                .call(
                    Call::read("lease keep-alive").lease(id),
                    |channel, _| async move {
                        // One renewal on its own stream: etcd answers each request in turn, so
                        // the answer comes before it sees the stream end.
                        let renewal = tokio_stream::once(LeaseKeepAliveRequest { id });
                        let mut answers = lease(channel)
                            .lease_keep_alive(request(renewal, None))
                            .await?
                            .into_inner();
                        answers.message().await?.ok_or_else(|| {
                            Status::new(
                                Code::Unavailable,
                                "the keep-alive stream closed unanswered",
                            )
                        })
                    },
                )
                .await?;
            if answer.ttl <= 0 {
                return Err(CoordError::LeaseGone(id));
            }
            Ok(Duration::from_secs(answer.ttl.unsigned_abs()))
        })
    }

    fn revoke_lease(&self, id: i64) -> CoordFuture<'_, ()> {
        let revoke = LeaseRevokeRequest { id };
        Box::pin(async move {
            self.endpoints
                .call(
                    Call::read("lease revoke").lease(id),
                    |channel, time| async move {
                        lease(channel)
                            .lease_revoke(request(revoke, Some(time)))
                            .await
                    },
                )
                .await
                .map(|_| ())
        })
    }

    fn watch(&self, prefix: &[u8], after: i64) -> CoordFuture<'_, WatchStream> {
        let prefix = prefix.to_vec();
        Box::pin(async move { watch::open(&self.endpoints, &self.keys, &prefix, after).await })
    }

    fn describe(&self) -> String {
        format!("etcd {}", self.endpoints.names())
    }
}
