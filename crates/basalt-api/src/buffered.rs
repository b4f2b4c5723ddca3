//! `BufferedMutator`: HBase's client-side write buffer over any [`Table`].
//!
//! Mutations collect in memory and go to the table as one batch when the buffer passes its
//! size (HBase's `hbase.client.write.buffer`, 2 MiB by default), on [`BufferedMutator::flush`]
//! and on [`BufferedMutator::close`]. Buffered mutations are not visible until sent, and are
//! lost if the process dies first — as in HBase; use the table's own calls for writes that
//! must be acknowledged one by one.

use crate::{ApiError, Result, Table};
use basalt_types::{Action, Mutation};
use std::sync::Arc;

/// HBase's default write buffer.
pub const DEFAULT_WRITE_BUFFER_BYTES: usize = 2 * 1024 * 1024;

pub struct BufferedMutator {
    table: Arc<dyn Table>,
    buffer: Vec<Mutation>,
    buffered_bytes: usize,
    write_buffer_bytes: usize,
}

/// Roughly the bytes a mutation carries: its row and every cell's key and value.
fn size_of(mutation: &Mutation) -> usize {
    let cells = match mutation {
        Mutation::Put(p) => p
            .cells
            .iter()
            .map(|c| c.family().len() + c.qualifier().len() + c.value().len())
            .sum(),
        Mutation::Delete(d) => d.specs.len() * 16,
        Mutation::Increment(i) => i
            .columns
            .iter()
            .map(|(f, q, _)| f.len() + q.len() + 8)
            .sum(),
        Mutation::Append(a) => a
            .columns
            .iter()
            .map(|(f, q, v)| f.len() + q.len() + v.len())
            .sum(),
    };
    mutation.row().len() + cells
}

impl BufferedMutator {
    pub fn new(table: Arc<dyn Table>) -> Self {
        Self::with_write_buffer(table, DEFAULT_WRITE_BUFFER_BYTES)
    }

    pub fn with_write_buffer(table: Arc<dyn Table>, write_buffer_bytes: usize) -> Self {
        Self {
            table,
            buffer: Vec::new(),
            buffered_bytes: 0,
            write_buffer_bytes,
        }
    }

    /// Buffers a mutation; sends the buffer once it passes the write buffer size.
    pub fn mutate(&mut self, mutation: Mutation) -> Result<()> {
        self.buffered_bytes += size_of(&mutation);
        self.buffer.push(mutation);
        if self.buffered_bytes >= self.write_buffer_bytes {
            self.flush()?;
        }
        Ok(())
    }

    pub fn buffered_bytes(&self) -> usize {
        self.buffered_bytes
    }

    /// Sends every buffered mutation. Each is applied or fails on its own; failures are
    /// reported together (HBase's `RetriesExhaustedWithDetailsException`) and leave the
    /// buffer, as in HBase.
    pub fn flush(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let actions: Vec<Action> = self
            .buffer
            .drain(..)
            .map(|m| match m {
                Mutation::Put(p) => Action::Put(p),
                Mutation::Delete(d) => Action::Delete(d),
                Mutation::Increment(i) => Action::Increment(i),
                Mutation::Append(a) => Action::Append(a),
            })
            .collect();
        self.buffered_bytes = 0;
        let failures: Vec<ApiError> = self
            .table
            .batch(&actions)
            .into_iter()
            .filter_map(|r| r.err())
            .collect();
        match failures.first() {
            None => Ok(()),
            Some(first) => Err(ApiError {
                kind: first.kind,
                exception: "org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException"
                    .to_string(),
                message: format!(
                    "Failed {} action{}: {}",
                    failures.len(),
                    if failures.len() == 1 { "" } else { "s" },
                    first
                ),
            }),
        }
    }

    /// Sends what is left; the mutator is done.
    pub fn close(mut self) -> Result<()> {
        self.flush()
    }
}

impl Drop for BufferedMutator {
    /// Sends what is left when dropped without `close`; failures can only be logged here,
    /// so call `close` to see them.
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::error!(error = %e, "buffered mutations failed when the mutator was dropped");
        }
    }
}
