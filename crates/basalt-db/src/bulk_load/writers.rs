//! The bulk loader's writers: a fixed pool of threads that turn runs of cells into store
//! files, so that a load writes several files at once instead of one.
//!
//! The loader (the caller's thread) checks and sorts each row, then appends its cells to
//! the *lane* of their region and family. A lane is one stream of sorted cells, the
//! cells one family's files of one region receive; it is pinned to one writer, chosen
//! round-robin when the lane opens, so its runs are written in the order they were sent
//! and every file stays sorted. Lanes of different families, and of a region just left
//! and the next one, are written at the same time by different writers.
//!
//! | message | the writer |
//! |---------|------------|
//! | [`Message::Run`] (whole rows of one lane) | appends them to the lane's open file; before each row, a file past `file_size_max_bytes` is finished and the next begun (as a one-thread load rolls) |
//! | [`Message::Finish`] | finishes (syncs) the lane's open file: the region's files wait for the commit |
//!
//! Each writer's queue holds [`RUNS_QUEUED_PER_WRITER`] runs; the loader blocks when the
//! queue is full, so a load holds at most writers × (queued + 1) runs in memory, and one
//! run being gathered per family of the current region (a run: about 1 MiB, whole rows).
//!
//! The first error of any writer is kept, stops every writer (each deletes its open
//! files, then ignores what is still queued) and is returned by the loader's next call.
//! Files already finished are the loader's to delete: it joins the writers first.

use super::BulkLoadProgress;
use crate::error::from_storage;
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_storage::region::bulk_load::{BulkFileWriter, BulkLoad};
use basalt_storage::Region;
use basalt_types::{Cell, TableName};
use bytes::Bytes;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Runs a writer's queue holds before the loader waits for it.
pub(super) const RUNS_QUEUED_PER_WRITER: usize = 2;

/// Writers a load may ask for (a limit, as on everything; far above any device's need).
pub const PARALLELISM_MAX: usize = 256;

/// A region's load, shared by the writers of its lanes (each finished file is staged in
/// it) and taken back by the loader for the commit.
pub(super) type SharedLoad = Arc<Mutex<Option<BulkLoad>>>;

/// One family of one region: the stream of cells its files receive.
#[derive(Debug)]
pub(super) struct Lane {
    pub id: u64,
    pub region: Arc<Region>,
    pub load: SharedLoad,
    pub family: Bytes,
}

pub(super) enum Message {
    Run { lane: Arc<Lane>, cells: Vec<Cell> },
    Finish { lane: u64 },
}

/// What every writer shares.
struct Shared {
    table: TableName,
    file_size_max_bytes: u64,
    progress: Arc<BulkLoadProgress>,
    stop: AtomicBool,
    failure: Mutex<Option<ApiError>>,
}

impl Shared {
    fn fail(&self, error: ApiError) {
        tracing::warn!(table = %self.table, error = %error.message, "bulk load writer failed");
        self.failure.lock().get_or_insert(error);
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The pool; see the module documentation.
pub(super) struct Writers {
    senders: Vec<SyncSender<Message>>,
    threads: Vec<JoinHandle<()>>,
    shared: Arc<Shared>,
    next: usize,
}

impl Writers {
    /// Starts `parallelism` writer threads.
    pub fn start(
        table: &TableName,
        parallelism: usize,
        file_size_max_bytes: u64,
        progress: Arc<BulkLoadProgress>,
    ) -> Result<Self> {
        let shared = Arc::new(Shared {
            table: table.clone(),
            file_size_max_bytes,
            progress,
            stop: AtomicBool::new(false),
            failure: Mutex::new(None),
        });
        let mut writers = Self {
            senders: Vec::with_capacity(parallelism),
            threads: Vec::with_capacity(parallelism),
            shared,
            next: 0,
        };
        for i in 0..parallelism {
            let (sender, receiver) = sync_channel(RUNS_QUEUED_PER_WRITER);
            let shared = writers.shared.clone();
            let thread = std::thread::Builder::new()
                .name(format!("bulk-load-writer-{i}"))
                .spawn(move || Worker::new(shared).run(receiver))
                .map_err(|e| {
                    ApiError::new(
                        ErrorKind::Unavailable,
                        "java.io.IOException",
                        format!("bulk load into {table}: cannot start writer thread {i}: {e}"),
                    )
                })?;
            writers.senders.push(sender);
            writers.threads.push(thread);
        }
        Ok(writers)
    }

    /// The writer a new lane goes to (round-robin).
    pub fn assign(&mut self) -> usize {
        let writer = self.next;
        self.next = (self.next + 1) % self.senders.len();
        writer
    }

    /// Queues `message` for `writer`, waiting while its queue is full.
    pub fn send(&self, writer: usize, message: Message) -> Result<()> {
        self.check()?;
        let sent = self
            .senders
            .get(writer)
            .is_some_and(|s| s.send(message).is_ok());
        if !sent {
            return Err(self.gone());
        }
        Ok(())
    }

    /// The first writer's error, if any has failed.
    pub fn check(&self) -> Result<()> {
        // A writer records its error before it sets `stop`: one atomic read per row.
        if !self.shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        match &*self.shared.failure.lock() {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    /// Closes the queues and waits for every writer to finish what was queued; then the
    /// first error of any. Every file a writer had open is finished or deleted by then.
    pub fn join(mut self) -> Result<()> {
        self.senders.clear();
        let mut panicked = false;
        for thread in self.threads.drain(..) {
            panicked |= thread.join().is_err();
        }
        self.check()?;
        if panicked {
            return Err(self.gone());
        }
        Ok(())
    }

    /// Stops the writers (their open files are deleted, queued runs dropped) and waits.
    pub fn abandon(self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = self.join();
    }

    fn gone(&self) -> ApiError {
        ApiError::new(
            ErrorKind::Unavailable,
            "java.io.IOException",
            format!(
                "bulk load into {}: a writer thread stopped unexpectedly",
                self.shared.table
            ),
        )
    }
}

/// The open lanes of one writer thread.
struct Worker {
    shared: Arc<Shared>,
    lanes: HashMap<u64, OpenLane>,
}

struct OpenLane {
    lane: Arc<Lane>,
    file: Option<BulkFileWriter>,
}

impl Worker {
    fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            lanes: HashMap::new(),
        }
    }

    fn run(mut self, queue: Receiver<Message>) {
        for message in queue {
            if self.shared.stop.load(Ordering::SeqCst) {
                self.discard_all();
                continue;
            }
            let done = match message {
                Message::Run { lane, cells } => self.write(lane, cells),
                Message::Finish { lane } => self.finish(lane),
            };
            if let Err(e) = done {
                self.shared.fail(e);
                self.discard_all();
            }
        }
        self.discard_all();
    }

    fn write(&mut self, lane: Arc<Lane>, cells: Vec<Cell>) -> Result<()> {
        let open = self.lanes.entry(lane.id).or_insert_with(|| OpenLane {
            lane: lane.clone(),
            file: None,
        });
        let mut row: Option<Bytes> = None;
        for cell in cells {
            let new_row = row
                .as_ref()
                .is_none_or(|r| !super::same_bytes(r, &cell.row_bytes()) && *r != cell.row());
            if new_row {
                row = Some(cell.row_bytes());
                open.roll_if_full(&self.shared)?;
            }
            let file = match &mut open.file {
                Some(file) => file,
                empty => empty.insert(open.lane.create(&self.shared)?),
            };
            if let Err(e) = file.append(cell) {
                let path = file.path().display().to_string();
                return Err(open.lane.error(&self.shared, &path, from_storage(e)));
            }
        }
        Ok(())
    }

    fn finish(&mut self, lane: u64) -> Result<()> {
        match self.lanes.remove(&lane) {
            Some(mut open) => open.finish_file(&self.shared),
            None => Ok(()),
        }
    }

    /// Deletes every open file (the load will not commit).
    fn discard_all(&mut self) {
        for (_, open) in self.lanes.drain() {
            if let Some(file) = open.file {
                open.lane.region.discard_bulk_file(file);
            }
        }
    }
}

impl OpenLane {
    /// Finishes the open file once it passed the size bound (called between rows).
    fn roll_if_full(&mut self, shared: &Shared) -> Result<()> {
        let full = self
            .file
            .as_ref()
            .is_some_and(|f| f.size_bytes() >= shared.file_size_max_bytes);
        if full {
            self.finish_file(shared)?;
        }
        Ok(())
    }

    fn finish_file(&mut self, shared: &Shared) -> Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        let path = file.path().display().to_string();
        let mut load = self.lane.load.lock();
        let Some(load) = load.as_mut() else {
            self.lane.region.discard_bulk_file(file);
            let e = ApiError::invalid("the region's load was already taken".to_string());
            return Err(self.lane.error(shared, &path, e));
        };
        self.lane
            .region
            .finish_bulk_file(load, file)
            .map_err(|e| self.lane.error(shared, &path, from_storage(e)))?;
        shared.progress.files.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Lane {
    fn create(&self, shared: &Shared) -> Result<BulkFileWriter> {
        let load = self.load.lock();
        let Some(load) = load.as_ref() else {
            let e = ApiError::invalid("the region's load was already taken".to_string());
            return Err(self.error(shared, "a new file", e));
        };
        self.region
            .create_bulk_file(load, &self.family)
            .map_err(|e| self.error(shared, "a new file", from_storage(e)))
    }

    /// `e`, its message naming the table, region, family and file it happened in.
    fn error(&self, shared: &Shared, file: &str, e: ApiError) -> ApiError {
        ApiError::new(
            e.kind,
            &e.exception,
            format!(
                "bulk load into {}: writing family '{}' of region {} ({file}) failed: {}",
                shared.table,
                String::from_utf8_lossy(&self.family),
                self.region.info().name,
                e.message
            ),
        )
    }
}
