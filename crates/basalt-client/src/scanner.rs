//! Scans streamed from a server-side scanner: rows arrive `caching` at a time and are
//! handed out one by one; dropping the scanner before the end closes it on the server.
//!
//! Opening retries like any call. A `next` is retried only when the server refused it
//! before running it ("busy"): a `next` that may have run cannot be repeated without
//! skipping rows.

use crate::connection::{retryable, Inner};
use crate::table::decode_row;
use basalt_api::{ErrorKind, Result};
use basalt_proto::pb;
use basalt_types::{RowResult, Scan};
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Arc;

pub struct RemoteScanner {
    inner: Arc<Inner>,
    id: Bytes,
    buffer: VecDeque<pb::RowResult>,
    /// The server may have more rows (and holds the scanner).
    more: bool,
    failed: bool,
}

fn busy_only(kind: ErrorKind) -> bool {
    kind == ErrorKind::Busy
}

impl RemoteScanner {
    pub(crate) fn open(inner: Arc<Inner>, table: pb::TableName, scan: &Scan) -> Result<Self> {
        let req = pb::OpenScannerRequest {
            table: Some(table),
            scan: Some(scan.into()),
        };
        let response = inner.call(retryable, || {
            let mut c = inner.tables.clone();
            let req = req.clone();
            async move { c.open_scanner(req).await }
        })?;
        Ok(Self {
            inner,
            id: response.scanner_id,
            buffer: response.rows.into(),
            more: response.more,
            failed: false,
        })
    }

    fn fetch(&mut self) -> Result<()> {
        let req = pb::ScannerNextRequest {
            scanner_id: self.id.clone(),
            caching: 0,
        };
        let inner = self.inner.clone();
        let response = inner.call(busy_only, || {
            let mut c = inner.tables.clone();
            let req = req.clone();
            async move { c.scanner_next(req).await }
        })?;
        self.buffer.extend(response.rows);
        self.more = response.more;
        Ok(())
    }
}

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
        let mut c = self.inner.tables.clone();
        if let Err(e) = self.inner.once(async move { c.close_scanner(req).await }) {
            tracing::debug!(error = %e, "could not close a scanner (its lease will expire it)");
        }
    }
}
