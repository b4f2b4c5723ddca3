//! A byte stream that gathers what an HTTP/2 connection writes during one turn of the
//! scheduler into one system call.
//!
//! The HTTP/2 stack flushes after each burst of frames, and a unary call spreads its
//! frames over several bursts: the client sends a request's headers, then (after the
//! stream opens) its body; the server sends the response's headers and body, then (after
//! the flow-control window is settled) its trailers. Written as they come, that is two
//! `writev`s per call on each side, each a TCP segment the peer reads and is woken for.
//!
//! [`CoalescingStream`] takes writes into a buffer and puts the first flush of a burst off
//! by one turn (it wakes its own task and answers `Pending`), so the tasks that finish
//! the call's other frames run first; the next flush sends everything at once:
//!
//! | turn | connection task | call's task | on the wire |
//! |---|---|---|---|
//! | 1 | buffers headers + body, flush put off | — | nothing |
//! | 1 | — | sends the trailers | nothing |
//! | 2 | buffers the trailers, flushes | — | one `send` |
//!
//! Only small bursts wait: past [`BURST_BYTES_MAX`] (a full HTTP/2 frame), what is buffered
//! and the write go out at once, so big responses are neither delayed nor copied.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most bytes a burst gathers: the default HTTP/2 frame size.
pub const BURST_BYTES_MAX: usize = 16 * 1024;

/// A stream whose small writes wait in a buffer until a flush, the first flush of a burst
/// put off by one scheduler turn.
#[derive(Debug)]
pub struct CoalescingStream<S> {
    inner: S,
    /// Bytes taken by `poll_write` and not yet written to `inner`, from `written` on.
    pending: Vec<u8>,
    written: usize,
    /// The flush of the bytes in `pending` was put off once already.
    flush_put_off: bool,
}

impl<S> CoalescingStream<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            pending: Vec::new(),
            written: 0,
            flush_put_off: false,
        }
    }

    /// The stream underneath.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }
}

impl<S: AsyncWrite + Unpin> CoalescingStream<S> {
    /// Writes the buffered bytes out.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "the connection took no bytes",
                )));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        self.flush_put_off = false;
        Poll::Ready(Ok(()))
    }

    /// Takes `parts` into the burst, or (when they would take it past [`BURST_BYTES_MAX`])
    /// drains the burst and writes them straight out if they are that big themselves.
    fn poll_write_parts(
        &mut self,
        cx: &mut Context<'_>,
        parts: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if self.pending.len() - self.written + len > BURST_BYTES_MAX {
            ready!(self.poll_drain(cx))?;
            if len > BURST_BYTES_MAX {
                return Pin::new(&mut self.inner).poll_write_vectored(cx, parts);
            }
        }
        for part in parts {
            self.pending.extend_from_slice(part);
        }
        Poll::Ready(Ok(len))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for CoalescingStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for CoalescingStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_parts(cx, &[io::IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_write_parts(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.written < this.pending.len() && !this.flush_put_off {
            this.flush_put_off = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    /// Records every write it is given, as one entry per system call it stands for.
    #[derive(Default)]
    struct Recorder {
        writes: Vec<Vec<u8>>,
        /// Answer `Pending` to this many writes first.
        pending_writes: usize,
        /// Take at most this many bytes per write.
        accept_max: Option<usize>,
        shut_down: bool,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            if this.pending_writes > 0 {
                this.pending_writes -= 1;
                return Poll::Pending;
            }
            let n = this.accept_max.map_or(buf.len(), |max| max.min(buf.len()));
            this.writes.push(buf[..n].to_vec());
            Poll::Ready(Ok(n))
        }

        fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.get_mut().shut_down = true;
            Poll::Ready(Ok(()))
        }
    }

    #[derive(Default)]
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    struct Harness {
        stream: CoalescingStream<Recorder>,
        wakes: Arc<CountingWaker>,
        waker: Waker,
    }

    impl Harness {
        fn new(inner: Recorder) -> Self {
            let wakes = Arc::new(CountingWaker::default());
            Self {
                stream: CoalescingStream::new(inner),
                waker: Waker::from(wakes.clone()),
                wakes,
            }
        }

        fn write(&mut self, bytes: &[u8]) -> Poll<io::Result<usize>> {
            let mut cx = Context::from_waker(&self.waker);
            Pin::new(&mut self.stream).poll_write(&mut cx, bytes)
        }

        fn write_vectored(&mut self, parts: &[&[u8]]) -> Poll<io::Result<usize>> {
            let slices: Vec<io::IoSlice<'_>> = parts.iter().map(|p| io::IoSlice::new(p)).collect();
            let mut cx = Context::from_waker(&self.waker);
            Pin::new(&mut self.stream).poll_write_vectored(&mut cx, &slices)
        }

        fn flush(&mut self) -> Poll<io::Result<()>> {
            let mut cx = Context::from_waker(&self.waker);
            Pin::new(&mut self.stream).poll_flush(&mut cx)
        }

        fn shutdown(&mut self) -> Poll<io::Result<()>> {
            let mut cx = Context::from_waker(&self.waker);
            Pin::new(&mut self.stream).poll_shutdown(&mut cx)
        }

        fn wakes(&self) -> usize {
            self.wakes.0.load(Ordering::SeqCst)
        }

        fn writes(&self) -> &[Vec<u8>] {
            &self.stream.get_ref().writes
        }
    }

    fn written(poll: Poll<io::Result<usize>>) -> usize {
        match poll {
            Poll::Ready(Ok(n)) => n,
            other => panic!("expected a finished write, got {other:?}"),
        }
    }

    #[test]
    fn a_burst_of_writes_leaves_in_one_write_after_one_turn() {
        let mut h = Harness::new(Recorder::default());
        assert_eq!(written(h.write(b"abc")), 3);
        assert_eq!(written(h.write_vectored(&[b"de", b"f"])), 3);
        assert!(h.writes().is_empty(), "nothing goes out before a flush");

        assert!(h.flush().is_pending(), "the first flush is put off");
        assert_eq!(h.wakes(), 1, "and the task woken to come back");
        assert!(h.writes().is_empty());

        assert_eq!(written(h.write(b"gh")), 2, "more frames join the burst");
        assert!(matches!(h.flush(), Poll::Ready(Ok(()))));
        assert_eq!(h.writes(), [b"abcdefgh".to_vec()]);
        assert_eq!(h.wakes(), 1);
    }

    #[test]
    fn each_burst_is_put_off_once() {
        let mut h = Harness::new(Recorder::default());
        for (burst, bytes) in [b"one".as_slice(), b"two"].into_iter().enumerate() {
            written(h.write(bytes));
            assert!(h.flush().is_pending());
            assert!(matches!(h.flush(), Poll::Ready(Ok(()))));
            assert_eq!(h.writes().len(), burst + 1);
        }
        assert_eq!(h.writes(), [b"one".to_vec(), b"two".to_vec()]);
    }

    #[test]
    fn a_flush_with_nothing_buffered_is_immediate() {
        let mut h = Harness::new(Recorder::default());
        assert!(matches!(h.flush(), Poll::Ready(Ok(()))));
        assert_eq!(h.wakes(), 0);
        assert!(h.writes().is_empty());
    }

    #[test]
    fn big_writes_go_out_at_once_after_what_was_buffered() {
        let mut h = Harness::new(Recorder::default());
        written(h.write(b"head"));
        let big = vec![7u8; BURST_BYTES_MAX + 1];
        assert_eq!(written(h.write(&big)), big.len());
        assert_eq!(h.writes(), [b"head".to_vec(), big]);
        assert!(
            matches!(h.flush(), Poll::Ready(Ok(()))),
            "nothing left to put off"
        );
        assert_eq!(h.wakes(), 0);
    }

    #[test]
    fn a_buffer_that_would_overflow_is_written_first() {
        let mut h = Harness::new(Recorder::default());
        let half = vec![1u8; BURST_BYTES_MAX / 2 + 1];
        written(h.write(&half));
        written(h.write(&half));
        assert_eq!(h.writes().len(), 1, "the first half went out to make room");
        assert!(h.flush().is_pending());
        assert!(matches!(h.flush(), Poll::Ready(Ok(()))));
        assert_eq!(h.writes(), [half.clone(), half]);
    }

    #[test]
    fn partial_and_refused_writes_are_finished_later() {
        let mut h = Harness::new(Recorder {
            pending_writes: 1,
            accept_max: Some(4),
            ..Recorder::default()
        });
        written(h.write(b"0123456789"));
        assert!(h.flush().is_pending(), "put off");
        assert!(h.flush().is_pending(), "the connection is not ready");
        assert!(matches!(h.flush(), Poll::Ready(Ok(()))));
        assert_eq!(
            h.writes(),
            [b"0123".to_vec(), b"4567".to_vec(), b"89".to_vec()]
        );
    }

    #[test]
    fn a_connection_taking_no_bytes_is_an_error() {
        let mut h = Harness::new(Recorder {
            accept_max: Some(0),
            ..Recorder::default()
        });
        written(h.write(b"x"));
        assert!(h.flush().is_pending());
        match h.flush() {
            Poll::Ready(Err(e)) => assert_eq!(e.kind(), io::ErrorKind::WriteZero),
            other => panic!("expected WriteZero, got {other:?}"),
        }
    }

    #[test]
    fn shutdown_writes_what_is_buffered_first() {
        let mut h = Harness::new(Recorder::default());
        written(h.write(b"bye"));
        assert!(matches!(h.shutdown(), Poll::Ready(Ok(()))));
        assert_eq!(h.writes(), [b"bye".to_vec()]);
        assert!(h.stream.get_ref().shut_down);
    }
}
