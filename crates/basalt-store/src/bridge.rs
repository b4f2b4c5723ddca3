//! From the engine's blocking calls to the store's futures.
//!
//! The engine calls its [`FileSystem`](basalt_storage::fs::FileSystem) from plain threads
//! (flushes, compactions, the log's group commit) and from tokio worker threads (the RPC
//! handlers). `block_on` would panic on the latter, so every store call is spawned on one
//! process-wide runtime of our own (`basalt-store-io` threads, created at first use and
//! never dropped, so no runtime is ever dropped inside another) and the caller waits on a
//! channel for the answer. A call made *from* one of those threads would wait on the
//! threads that must answer it; it is refused instead.

use std::cell::Cell;
use std::future::Future;
use std::io;
use std::sync::OnceLock;

/// Threads of the store's runtime.
const WORKER_THREADS: usize = 2;

thread_local! {
    static ON_STORE_THREAD: Cell<bool> = const { Cell::new(false) };
}

fn runtime() -> io::Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    let built = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKER_THREADS)
            .thread_name("basalt-store-io")
            .on_thread_start(|| ON_STORE_THREAD.with(|on| on.set(true)))
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    });
    built
        .as_ref()
        .map_err(|e| io::Error::other(format!("cannot start the store's I/O threads: {e}")))
}

/// Runs `future` on the store's runtime and waits for its output; safe from any thread
/// but the store's own.
pub fn run<T, F>(future: F) -> io::Result<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    if ON_STORE_THREAD.with(Cell::get) {
        return Err(io::Error::other(
            "a blocking store call was made from a store I/O thread (it would wait on itself)",
        ));
    }
    let (done, answer) = std::sync::mpsc::sync_channel(1);
    runtime()?.spawn(async move {
        // The caller may have gone (it never does: it waits below).
        let _ = done.send(future.await);
    });
    answer
        .recv()
        .map_err(|_| io::Error::other("a store operation ended without an answer (it panicked)"))
}

/// Runs a store call (any [`crate::Store`] future) from a blocking caller, on the store's
/// runtime: what [`crate::StoreFs`] does for every call. Safe from plain threads and from
/// inside another tokio runtime.
pub fn blocking<T, F>(future: F) -> crate::Result<T>
where
    T: Send + 'static,
    F: Future<Output = crate::Result<T>> + Send + 'static,
{
    run(future).map_err(|e| crate::StoreError::Runtime(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_from_a_plain_thread_and_from_inside_another_runtime() {
        assert_eq!(run(async { 7 }).expect("runs"), 7);
        let other = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let inside = other.block_on(async { run(async { 8 }) });
        assert_eq!(inside.expect("runs"), 8);
    }

    #[test]
    fn a_call_from_a_store_thread_is_refused_not_deadlocked() {
        let nested = run(async { run(async { 1 }) }).expect("outer runs");
        let error = nested.expect_err("inner refused");
        assert!(error.to_string().contains("store I/O thread"), "{error}");
    }
}
