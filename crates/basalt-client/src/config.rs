//! Client settings: timeouts, retries and sizes.

use std::time::Duration;

/// How a client connects, waits and retries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Giving up on establishing the connection.
    pub connect_timeout: Duration,
    /// Giving up on one call (a timed-out call is retried like an unavailable server).
    pub call_timeout: Duration,
    /// Retries of a call failing with a retryable kind (busy, unavailable, retry elsewhere).
    pub retries_max: u32,
    /// First pause between retries; doubles each time up to `backoff_max`.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// The largest response accepted.
    pub response_max_bytes: usize,
    /// The largest request sent.
    pub request_max_bytes: usize,
    /// Operations per request: longer put/delete lists and batches are sent in chunks.
    pub chunk_max: usize,
    /// Region locations remembered (all tables together); past it the cache starts over.
    pub location_cache_entries_max: usize,
    /// What every call presents to the server: a user's password or a token (None: the
    /// process's own credentials, if it set any, else none).
    pub credentials: Option<basalt_auth::Credentials>,
    /// The user the client says it runs as (HBase's SIMPLE: asserted, not proven; sent as
    /// `user=NAME` in its `user-agent`); `None`: this process's `USER`. A server that
    /// requires authentication ignores it and uses the credentials' proven user.
    pub user: Option<String>,
    /// TLS to the servers: the CA trusted (and a client certificate, if any); `None`: the
    /// process's own ([`crate::connector::set_process_tls`]), else plain TCP.
    pub tls: Option<basalt_net::tls::ClientTls>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            call_timeout: Duration::from_secs(600),
            // HBase's `hbase.client.retries.number` (15) and `hbase.client.pause`
            // (100 ms), growing to 10 s: about 1.5 minutes in all before a call gives up,
            // enough for a master failover or a region server's lease to run out.
            retries_max: 15,
            backoff_base: Duration::from_millis(100),
            backoff_max: Duration::from_secs(10),
            response_max_bytes: 1 << 30,
            request_max_bytes: 64 << 20,
            chunk_max: 1000,
            location_cache_entries_max: 100_000,
            credentials: None,
            user: None,
            tls: None,
        }
    }
}

impl ClientConfig {
    /// The same settings, presenting `credentials` on every call.
    pub fn with_credentials(mut self, credentials: basalt_auth::Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// The same settings, over TLS as `tls` says.
    pub fn with_tls(mut self, tls: basalt_net::tls::ClientTls) -> Self {
        self.tls = Some(tls);
        self
    }

    /// What calls present (checked by [`crate::RemoteConnection::connect_with`]: an
    /// unsendable credential is refused there, and presents nothing here).
    pub(crate) fn presenter(&self) -> crate::connector::Presenter {
        crate::connector::Presenter::new(self.credentials.as_ref()).unwrap_or_default()
    }

    /// The pause before retry number `attempt` (0-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX);
        self.backoff_base
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}
