//! Reading a cluster process over its RPC services, for its web UI.
//!
//! Pages render on blocking threads; each read here runs its calls on the web UI's tokio
//! runtime and waits for them, within [`RPC_TIMEOUT`]. A channel is opened per read: pages
//! are rare and loopback connections cheap, and a channel never outlives a restart of the
//! server it reads.
//!
//! # Layout
//! - [`master`]: the cluster as a master sees it ([`master::ClusterView`]): its own
//!   `ClusterInfo`, the `ClusterStatus` when active, tables and their regions.
//! - [`region_server`]: a region server's report turned into the pages'
//!   [`Snapshot`](crate::snapshot::Snapshot).

pub mod master;
pub mod region_server;

use crate::WebError;
use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::runtime::Handle;

/// How long one page's calls to its server may take.
pub const RPC_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's RPC address, or "starting" while it is not known yet.
pub(crate) fn address(addr: &OnceLock<String>) -> Result<String, WebError> {
    addr.get().cloned().ok_or_else(|| {
        WebError::Unavailable("the server is starting: its RPC address is not known yet".into())
    })
}

/// A channel to `address`, connected.
pub(crate) async fn channel(address: &str) -> Result<tonic::transport::Channel, WebError> {
    basalt_client::connector::channel(address, RPC_TIMEOUT)
        .await
        .map_err(WebError::Unavailable)
}

/// Runs `calls` on `runtime` from a blocking thread (or any thread outside the runtime)
/// and waits, at most [`RPC_TIMEOUT`].
pub(crate) fn wait<T>(
    runtime: &Handle,
    address: &str,
    calls: impl Future<Output = Result<T, WebError>>,
) -> Result<T, WebError> {
    // The timer needs the runtime's context even on a thread of our own (the sampler).
    let _context = runtime.enter();
    match runtime.block_on(tokio::time::timeout(RPC_TIMEOUT, calls)) {
        Ok(answer) => answer,
        Err(_) => Err(WebError::Unavailable(format!(
            "{address} did not answer within {RPC_TIMEOUT:?}"
        ))),
    }
}

/// The RPC address (`host:port`, IPv6 hosts bracketed) of a server named
/// `host,port,startcode`; None when the name is not of that form.
pub(crate) fn rpc_address(name: &str) -> Option<String> {
    let mut parts = name.split(',');
    let (host, port) = (parts.next()?, parts.next()?);
    if host.is_empty() || port.parse::<u16>().is_err() {
        return None;
    }
    Some(match host.contains(':') {
        true => format!("[{host}]:{port}"),
        false => format!("{host}:{port}"),
    })
}

/// A failed call as the error the page shows (the server's exception and message).
pub(crate) fn failed(status: tonic::Status) -> WebError {
    WebError::Database(basalt_proto::status::from_status(&status))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_server_name_gives_its_rpc_address() {
        assert_eq!(
            super::rpc_address("127.0.0.2,16020,17").as_deref(),
            Some("127.0.0.2:16020")
        );
        assert_eq!(super::rpc_address("::1,9,1").as_deref(), Some("[::1]:9"));
        assert_eq!(super::rpc_address("nonsense"), None);
    }
}
