//! Writes as `--auto-flush` asks: each on its own (`true`), or through a per-client
//! `BufferedMutator` of HBase's 2 MiB (`false`, PE's default), which bounds what a client
//! holds in memory.

use basalt_api::{BufferedMutator, Result, Table};
use basalt_types::{Mutation, Put};
use std::sync::Arc;

pub enum Writer {
    Direct(Arc<dyn Table>),
    Buffered(BufferedMutator),
}

impl Writer {
    pub fn new(table: &Arc<dyn Table>, auto_flush: bool) -> Self {
        if auto_flush {
            Self::Direct(Arc::clone(table))
        } else {
            Self::Buffered(BufferedMutator::new(Arc::clone(table)))
        }
    }

    pub fn put(&mut self, put: Put) -> Result<()> {
        match self {
            Self::Direct(table) => table.put(&put),
            Self::Buffered(mutator) => mutator.mutate(Mutation::Put(put)),
        }
    }

    /// Sends what is buffered; the caller sees any failure.
    pub fn close(self) -> Result<()> {
        match self {
            Self::Direct(_) => Ok(()),
            Self::Buffered(mutator) => mutator.close(),
        }
    }
}
