//! A scanner's rows, read on the calling thread or ahead of it on a thread of their own.
//!
//! A filtered scan can read for a long time before its next row passes the filter, and
//! an HBase 2.x client that says `client_handles_heartbeats` expects an answer within
//! its time limit anyway: a heartbeat, which says "still going". A call cannot stop a
//! row read half way, so a filtered scan's rows are read ahead, one row at a time, on a
//! thread of their own ([`RowSource::ahead`]); the call waits for each row until its
//! deadline and answers a heartbeat when it passes, while the thread goes on filtering.
//! The thread holds at most one row it has found and ends when its rows end or the
//! scanner is dropped (closed, or its lease expired): dropping it raises the scan's
//! [`ScanCancel`], which the region scanner checks before each row, so a thread deep in
//! a long filtering run stops there rather than at the next row that passes. Every other scan reads on the calling thread
//! ([`RowSource::direct`]), where a deadline is only checked between rows.

use super::scanners::Rows;
use basalt_api::ApiError;
use basalt_types::{RowResult, ScanCancel};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Instant;

type Item = Result<RowResult, ApiError>;

/// What [`RowSource::next_until`] found.
#[derive(Debug)]
pub enum Next {
    Row(Item),
    /// The rows have ended.
    End,
    /// The deadline passed before the next row was found.
    TimedOut,
}

enum Inner {
    Direct(Rows),
    Ahead(Receiver<Item>),
}

/// The rows of one open scanner.
pub struct RowSource {
    inner: Inner,
    /// A row looked at and not yet taken.
    held: Option<Item>,
    /// Raised when dropped: the scan read ahead stops reading.
    cancel: Option<ScanCancel>,
}

impl Drop for RowSource {
    fn drop(&mut self) {
        if let Some(cancel) = &self.cancel {
            cancel.cancel();
        }
    }
}

impl RowSource {
    /// Rows read when asked, on the asking thread.
    pub fn direct(rows: Rows) -> Self {
        Self {
            inner: Inner::Direct(rows),
            held: None,
            cancel: None,
        }
    }

    /// Rows read ahead on a thread of their own; read directly when no thread can be had.
    pub fn ahead(rows: Rows) -> Self {
        let (tx, rx) = mpsc::sync_channel::<Item>(0);
        let rows = std::sync::Arc::new(parking_lot::Mutex::new(Some(rows)));
        let theirs = rows.clone();
        let spawned = std::thread::Builder::new()
            .name("hbase-scan".into())
            .spawn(move || {
                let Some(rows) = theirs.lock().take() else {
                    return;
                };
                for row in rows {
                    // The scanner is gone: stop reading.
                    if tx.send(row).is_err() {
                        break;
                    }
                }
            });
        match spawned {
            Ok(_) => Self {
                inner: Inner::Ahead(rx),
                held: None,
                cancel: None,
            },
            Err(e) => {
                tracing::warn!("no thread to read a scan ahead ({e}); reading it directly");
                let rows = rows
                    .lock()
                    .take()
                    .unwrap_or_else(|| Box::new(std::iter::empty()));
                Self::direct(rows)
            }
        }
    }

    /// Raises `cancel` when dropped (the flag the scan read by its rows checks).
    pub fn cancelling(mut self, cancel: ScanCancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Whether rows are read ahead (and a deadline can pass mid-row).
    pub fn is_ahead(&self) -> bool {
        matches!(self.inner, Inner::Ahead(_))
    }

    /// The next row; a source read ahead gives up at `deadline` (`None`: waits).
    pub fn next_until(&mut self, deadline: Option<Instant>) -> Next {
        if let Some(row) = self.held.take() {
            return Next::Row(row);
        }
        match &mut self.inner {
            Inner::Direct(rows) => rows.next().map_or(Next::End, Next::Row),
            Inner::Ahead(rx) => {
                let got = match deadline {
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                };
                match got {
                    Ok(row) => Next::Row(row),
                    Err(RecvTimeoutError::Disconnected) => Next::End,
                    Err(RecvTimeoutError::Timeout) => Next::TimedOut,
                }
            }
        }
    }

    /// Whether the rows have ended: `None` when that is not known by `deadline`.
    pub fn ended_by(&mut self, deadline: Option<Instant>) -> Option<bool> {
        if self.held.is_some() {
            return Some(false);
        }
        match self.next_until(deadline) {
            Next::Row(row) => {
                self.held = Some(row);
                Some(false)
            }
            Next::End => Some(true),
            Next::TimedOut => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::scanners::rows_of;
    use basalt_types::Cell;
    use bytes::Bytes;
    use std::time::Duration;

    fn row(key: &'static [u8]) -> RowResult {
        RowResult::new(vec![Cell::put(
            Bytes::from_static(key),
            Bytes::from_static(b"f"),
            Bytes::from_static(b"q"),
            1,
            Bytes::new(),
        )])
    }

    fn key(next: Next) -> Option<Bytes> {
        match next {
            Next::Row(Ok(row)) => row.row_bytes(),
            other => panic!("not a row: {other:?}"),
        }
    }

    #[test]
    fn both_sources_give_the_rows_in_order_and_a_looked_at_row_is_kept() {
        for ahead in [false, true] {
            let rows = rows_of(vec![row(b"a"), row(b"b")]);
            let mut source = match ahead {
                true => RowSource::ahead(rows),
                false => RowSource::direct(rows),
            };
            assert_eq!(source.is_ahead(), ahead);
            assert_eq!(source.ended_by(None), Some(false));
            assert_eq!(key(source.next_until(None)).as_deref(), Some(&b"a"[..]));
            assert_eq!(key(source.next_until(None)).as_deref(), Some(&b"b"[..]));
            assert_eq!(source.ended_by(None), Some(true));
            assert!(matches!(source.next_until(None), Next::End));
        }
    }

    #[test]
    fn a_source_read_ahead_times_out_while_its_next_row_is_slow_and_keeps_it() {
        let (tx, rx) = mpsc::channel::<()>();
        let slow: Rows = Box::new(std::iter::once(()).map(move |()| {
            // Found only when the test says so: a long filtering run.
            let _ = rx.recv();
            Ok(row(b"late"))
        }));
        let mut source = RowSource::ahead(slow);
        let soon = Instant::now() + Duration::from_millis(20);
        assert!(matches!(source.next_until(Some(soon)), Next::TimedOut));
        assert_eq!(source.ended_by(Some(Instant::now())), None);
        tx.send(()).expect("the reader waits");
        assert_eq!(key(source.next_until(None)).as_deref(), Some(&b"late"[..]));
        assert!(matches!(source.next_until(None), Next::End));
    }
}
