//! What each waiting appender learns once its batch is resolved, when batches can be
//! refused (a full disk) and the log goes on: a pure bookkeeping core, no I/O.
//!
//! Tickets are resolved in order, a batch at a time: every ticket up to `resolved` has an
//! outcome. Without refusals that is all a waiter needs (`resolved >= ticket`: durable). A
//! refused batch resolves its tickets too, so [`Outcomes`] remembers which of them were
//! refused — only the tickets someone waits for, and only until each of their waiters has
//! asked, so nothing grows while nobody waits:
//!
//! | step                        | waiting      | refused  | answer                     |
//! |-----------------------------|--------------|----------|----------------------------|
//! | A waits for 4, B for 6      | {4: 1, 6: 1} | {}       |                            |
//! | batch 3..=5 refused         | {4: 1, 6: 1} | {4}      |                            |
//! | batch 6..=6 durable         | {4: 1, 6: 1} | {4}      |                            |
//! | B asks for 6                | {4: 1}       | {4}      | durable                    |
//! | A asks for 4                | {}           | {}       | refused (disk full)        |
//!
//! ASYNC_WAL records are acknowledged before they are written, so no one waits for them:
//! a refused batch gives them back ([`requeue`]) to be written with the next one.

use crate::error::Error;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::ops::{Range, RangeInclusive};

/// Why a batch was refused, to tell each of its waiters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    context: String,
    kind: std::io::ErrorKind,
    message: String,
}

impl Refusal {
    pub fn new(error: &Error) -> Self {
        match error {
            Error::NoSpace { context, source } | Error::Io { context, source } => Self {
                context: context.clone(),
                kind: source.kind(),
                message: source.to_string(),
            },
            other => Self {
                context: other.to_string(),
                kind: std::io::ErrorKind::Other,
                message: String::new(),
            },
        }
    }

    /// The error a waiter of the refused batch gets.
    pub fn error(&self) -> Error {
        Error::io(
            self.context.clone(),
            std::io::Error::new(self.kind, self.message.clone()),
        )
    }
}

/// Waited-for tickets and the refusals still to be told.
#[derive(Debug, Default)]
pub struct Outcomes {
    /// Callers waiting per ticket (the appender, and a `sync` that waits for the same one).
    waiting: BTreeMap<u64, u32>,
    refused: BTreeMap<u64, Refusal>,
}

impl Outcomes {
    /// Someone will wait for `ticket` and ask for its outcome with [`Outcomes::take`].
    pub fn wait_for(&mut self, ticket: u64) {
        *self.waiting.entry(ticket).or_insert(0) += 1;
    }

    /// The batch `tickets` was refused: its waiters will be told why.
    pub fn refuse(&mut self, tickets: RangeInclusive<u64>, refusal: &Refusal) {
        for (&ticket, _) in self.waiting.range(tickets) {
            self.refused.insert(ticket, refusal.clone());
        }
    }

    /// One waiter of the resolved `ticket` asks: `Some` if its batch was refused. The
    /// ticket is forgotten once all its waiters have asked.
    pub fn take(&mut self, ticket: u64) -> Option<Refusal> {
        let refusal = self.refused.get(&ticket).cloned();
        if let Entry::Occupied(mut waiters) = self.waiting.entry(ticket) {
            *waiters.get_mut() -= 1;
            if *waiters.get() == 0 {
                waiters.remove();
                self.refused.remove(&ticket);
            }
        }
        refusal
    }

    /// Tickets still waited for (for tests: nothing may stay behind).
    pub fn waiting_len(&self) -> usize {
        self.waiting.len()
    }
}

/// Puts the ASYNC_WAL records of a refused `batch` (`async_records`, byte ranges in it) back
/// in front of `buffer`, which holds what was appended meanwhile (its own ASYNC_WAL
/// records in `buffer_async`, moved along). `regions` gets the refused batch's highest
/// sequence ids back (a bound: a segment may be kept longer than needed, never shorter).
/// Returns how many records were put back.
pub fn requeue(
    batch: &[u8],
    async_records: &[Range<usize>],
    batch_regions: &HashMap<String, u64>,
    buffer: &mut Vec<u8>,
    buffer_async: &mut Vec<Range<usize>>,
    regions: &mut HashMap<String, u64>,
) -> usize {
    if async_records.is_empty() {
        return 0;
    }
    let mut front = Vec::with_capacity(buffer.len() + async_records.len() * 64);
    let mut ranges = Vec::with_capacity(async_records.len() + buffer_async.len());
    for record in async_records {
        let start = front.len();
        front.extend_from_slice(&batch[record.clone()]);
        ranges.push(start..front.len());
    }
    let shift = front.len();
    front.extend_from_slice(buffer);
    ranges.extend(buffer_async.iter().map(|r| r.start + shift..r.end + shift));
    *buffer = front;
    *buffer_async = ranges;
    for (region, &seq_id) in batch_regions {
        let max = regions.entry(region.clone()).or_insert(seq_id);
        *max = (*max).max(seq_id);
    }
    async_records.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_space() -> Refusal {
        Refusal::new(&Error::io(
            "writing log segment x",
            std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device"),
        ))
    }

    #[test]
    fn the_documented_example_holds() {
        let mut outcomes = Outcomes::default();
        outcomes.wait_for(4);
        outcomes.wait_for(6);
        outcomes.refuse(3..=5, &no_space());
        assert_eq!(outcomes.take(6), None);
        let refusal = outcomes.take(4).expect("4 was refused");
        let error = refusal.error();
        assert!(error.is_no_space(), "{error}");
        assert!(
            error.to_string().contains("writing log segment x"),
            "{error}"
        );
        assert_eq!(outcomes.waiting_len(), 0);
        assert!(outcomes.refused.is_empty());
    }

    #[test]
    fn every_waiter_of_a_ticket_hears_the_refusal_then_it_is_forgotten() {
        let mut outcomes = Outcomes::default();
        outcomes.wait_for(2);
        outcomes.wait_for(2);
        outcomes.refuse(1..=2, &no_space());
        assert!(outcomes.take(2).is_some());
        assert!(outcomes.take(2).is_some());
        assert_eq!(outcomes.take(2), None, "forgotten");
        assert_eq!(outcomes.waiting_len(), 0);
        // A ticket no one waited for leaves nothing behind when refused.
        outcomes.refuse(3..=9, &no_space());
        assert!(outcomes.refused.is_empty());
    }

    #[test]
    fn requeued_async_records_go_first_and_later_ones_move_along() {
        let batch = b"AAsssBBB".to_vec();
        let mut buffer = b"ccDD".to_vec();
        let mut buffer_async: Vec<Range<usize>> = std::iter::once(2..4).collect();
        let mut regions = HashMap::from([("r".to_string(), 3)]);
        let batch_regions = HashMap::from([("r".to_string(), 9), ("q".to_string(), 1)]);
        let put_back = requeue(
            &batch,
            &[0..2, 5..8],
            &batch_regions,
            &mut buffer,
            &mut buffer_async,
            &mut regions,
        );
        assert_eq!(put_back, 2);
        assert_eq!(buffer, b"AABBBccDD");
        assert_eq!(buffer_async, vec![0..2, 2..5, 7..9]);
        assert_eq!(regions["r"], 9);
        assert_eq!(regions["q"], 1);
    }
}
