//! One etcd Watch stream per `watch()` call.
//!
//! The stream is opened like any repeatable call (endpoint after endpoint, under the
//! deadline) and counts as open once etcd confirms the watcher (`created`). A task then
//! forwards its events, in order, into the caller's channel. The watch ends with an error
//! item when etcd cancels it (`Compacted` when its start revision is gone, `Unavailable`
//! when the member lost its leader or the connection broke) and stops when the caller
//! drops the receiver (dropping the stream cancels the RPC at etcd).

use super::pb::etcdserverpb::watch_client::WatchClient;
use super::pb::etcdserverpb::watch_request::RequestUnion;
use super::pb::etcdserverpb::{WatchCreateRequest, WatchRequest, WatchResponse};
use super::pb::Keys;
use super::transport::{request, Call, Endpoints, RESPONSE_BYTES_MAX};
use crate::{CoordError, Result, WatchEvent, WatchStream};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::{Status, Streaming};

/// Events a watch's channel buffers before the forwarding task waits for the reader.
const WATCH_CHANNEL_EVENTS: usize = 256;

pub(crate) async fn open(
    endpoints: &Arc<Endpoints>,
    keys: &Keys,
    prefix: &[u8],
    after: i64,
) -> Result<WatchStream> {
    let (key, range_end) = keys.range(prefix);
    let create = WatchRequest {
        request_union: Some(RequestUnion::CreateRequest(WatchCreateRequest {
            key,
            range_end,
            start_revision: after + 1,
            ..WatchCreateRequest::default()
        })),
    };
    let (responses, first) = endpoints
        .call(Call::read("watch"), |channel, _| {
            // The request stream stays open (a closed one ends the watch at etcd).
            let requests = tokio_stream::once(create.clone()).chain(tokio_stream::pending());
            async move {
                let mut client =
                    WatchClient::new(channel).max_decoding_message_size(RESPONSE_BYTES_MAX);
                let mut responses = client.watch(request(requests, None)).await?.into_inner();
                loop {
                    match responses.message().await? {
                        Some(response) if response.created || response.canceled => {
                            return Ok((responses, response));
                        }
                        Some(_) => continue,
                        None => return Err(Status::unavailable("the watch stream closed")),
                    }
                }
            }
        })
        .await?;
    let (tx, rx) = mpsc::channel(WATCH_CHANNEL_EVENTS);
    let forwarder = Forwarder {
        keys: keys.clone(),
        names: endpoints.names(),
        after,
        tx,
    };
    tokio::spawn(forwarder.run(responses, first));
    Ok(rx)
}

struct Forwarder {
    keys: Keys,
    names: String,
    /// The revision of the last event sent.
    after: i64,
    tx: mpsc::Sender<Result<WatchEvent>>,
}

impl Forwarder {
    async fn run(mut self, mut responses: Streaming<WatchResponse>, first: WatchResponse) {
        if !self.forward(first).await {
            return;
        }
        loop {
            let next = tokio::select! {
                next = responses.message() => next,
                _ = self.tx.closed() => return,
            };
            let more = match next {
                Ok(Some(response)) => self.forward(response).await,
                Ok(None) => {
                    self.fail(format!("etcd {}: the watch stream closed", self.names))
                        .await
                }
                Err(status) => {
                    let cause = format!("etcd {}: the watch broke: {status}", self.names);
                    self.fail(cause).await
                }
            };
            if !more {
                return;
            }
        }
    }

    /// Sends one response's events; false when the watch is over.
    async fn forward(&mut self, response: WatchResponse) -> bool {
        for event in response.events {
            let Some(event) = self.keys.event(event) else {
                continue;
            };
            self.after = event.kv.mod_revision;
            if self.tx.send(Ok(event)).await.is_err() {
                return false;
            }
        }
        if !response.canceled {
            return true;
        }
        let error = if response.compact_revision > 0 {
            CoordError::Compacted {
                requested: self.after + 1,
                compacted: response.compact_revision,
            }
        } else {
            CoordError::Unavailable(format!(
                "etcd {}: the watch was canceled: {}",
                self.names, response.cancel_reason
            ))
        };
        tracing::debug!(%error, "etcd watch ended");
        let _ = self.tx.send(Err(error)).await;
        false
    }

    async fn fail(&mut self, cause: String) -> bool {
        tracing::debug!(cause, "etcd watch ended");
        let _ = self.tx.send(Err(CoordError::Unavailable(cause))).await;
        false
    }
}
