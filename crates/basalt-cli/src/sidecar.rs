//! A listener whose shutdown blocks (the Thrift gateway, HBase's native RPC, the ZooKeeper
//! responder) as one of standalone's sidecars: stopped on a blocking thread.

use basalt_server::standalone::Sidecar;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

/// A sidecar stopped by a blocking call.
pub struct BlockingSidecar {
    name: &'static str,
    addr: SocketAddr,
    stop: Box<dyn FnOnce() + Send>,
}

impl BlockingSidecar {
    /// The sidecar `name` listening on `addr`, stopped by `stop`.
    pub fn boxed(
        name: &'static str,
        addr: SocketAddr,
        stop: impl FnOnce() + Send + 'static,
    ) -> Box<dyn Sidecar> {
        Box::new(Self {
            name,
            addr,
            stop: Box::new(stop),
        })
    }
}

impl Sidecar for BlockingSidecar {
    fn name(&self) -> &str {
        self.name
    }

    fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    fn shutdown(self: Box<Self>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let stop = self.stop;
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(stop).await;
        })
    }
}
