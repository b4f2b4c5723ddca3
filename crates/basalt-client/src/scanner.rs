//! Scans streamed from a server-side scanner: rows arrive `caching` at a time and are
//! handed out one by one; dropping the scanner before the end closes it on the server.
//!
//! Opening and fetching retry like any call: each fetch carries a call number, and the
//! server answers a repeated number with the same rows, so a retry after a lost response
//! neither skips nor repeats rows. A region's scanner (cluster) retries only a busy server:
//! a moved region or an unreachable server goes back to the caller at once, to locate.

use crate::connection::{retryable, Inner};
use crate::connector::Authed as Channel;
use crate::table::decode_row;
use basalt_api::{ErrorKind, Result};
use basalt_proto::pb;
use basalt_proto::pb::table_service_client::TableServiceClient;
use basalt_types::{RowResult, Scan, SeqId};
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Arc;

pub struct RemoteScanner {
    inner: Arc<Inner>,
    /// The server holding the scanner.
    client: TableServiceClient<Channel>,
    id: Bytes,
    buffer: VecDeque<pb::RowResult>,
    /// The server may have more rows (and holds the scanner).
    more: bool,
    failed: bool,
    /// The call number of the next fetch.
    next_seq: u64,
    /// The MVCC read point the server's region scanner reads at (region scans only).
    read_point: Option<SeqId>,
    /// Which failures a call retries here: a region scan leaves a moved region or a gone
    /// server to its caller, which locates the region again (and resumes after its last
    /// row) rather than knocking at the old server for the whole retry budget.
    retry_on: fn(ErrorKind) -> bool,
}

impl RemoteScanner {
    /// Opens a scanner on the server behind `client`: the whole scan, or (`region` not
    /// empty, a cluster's region server) only that region. A region scan is not retried
    /// when the region moved: the caller locates it again.
    pub(crate) fn open(
        inner: Arc<Inner>,
        client: TableServiceClient<Channel>,
        table: pb::TableName,
        scan: &Scan,
        region: String,
    ) -> Result<Self> {
        let retry_on: fn(ErrorKind) -> bool = match region.is_empty() {
            true => retryable,
            false => |kind| kind == ErrorKind::Busy,
        };
        let req = pb::OpenScannerRequest {
            table: Some(table),
            scan: Some(scan.into()),
            region,
        };
        let response = inner.call(retry_on, || {
            let mut c = client.clone();
            let req = req.clone();
            async move { c.open_scanner(req).await }
        })?;
        Ok(Self {
            inner,
            client,
            id: response.scanner_id,
            buffer: response.rows.into(),
            more: response.more,
            failed: false,
            next_seq: 0,
            read_point: SeqId::from_wire(response.read_point),
            retry_on,
        })
    }

    /// The read point the server said its region scanner reads at: a scan reopened in the
    /// same region elsewhere gives it back (`Scan::read_point`) to see the same cells.
    pub(crate) fn read_point(&self) -> Option<SeqId> {
        self.read_point
    }

    fn fetch(&mut self) -> Result<()> {
        let req = pb::ScannerNextRequest {
            scanner_id: self.id.clone(),
            caching: 0,
            call_seq: self.next_seq,
        };
        let inner = self.inner.clone();
        let client = self.client.clone();
        let response = inner.call(self.retry_on, || {
            let mut c = client.clone();
            let req = req.clone();
            async move { c.scanner_next(req).await }
        })?;
        self.next_seq += 1;
        self.buffer.extend(response.rows);
        self.more = response.more;
        Ok(())
    }
}

impl basalt_api::ResultScanner for RemoteScanner {}

impl Iterator for RemoteScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.buffer.pop_front() {
                return Some(decode_row(Some(row)));
            }
            if !self.more || self.failed {
                return None;
            }
            if let Err(e) = self.fetch() {
                self.failed = true;
                self.more = false;
                return Some(Err(e));
            }
        }
    }
}

impl Drop for RemoteScanner {
    fn drop(&mut self) {
        if !self.more || self.id.is_empty() {
            return;
        }
        let req = pb::CloseScannerRequest {
            scanner_id: self.id.clone(),
        };
        let mut c = self.client.clone();
        if let Err(e) = self.inner.once(async move { c.close_scanner(req).await }) {
            tracing::debug!(error = %e, "could not close a scanner (its lease will expire it)");
        }
    }
}
