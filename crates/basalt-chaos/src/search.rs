//! The depth-first search behind [`crate::linearizable`], with an explicit stack.
//!
//! Each stack frame is one configuration: the operations placed so far (acknowledged ones
//! as bits, unknown ones as other bits) and the register's value, with a cursor over the
//! candidates still to try from it. Acknowledged operations' events sit in a linked list
//! from which a placed operation's invocation and completion are unlinked, so the
//! candidates are the invocations before the list's first completion: the *frontier*.
//! Unknown operations are not in the list: they are candidates once invoked before the
//! frontier.
//!
//! The furthest frontier any configuration reached, and the order that reached it, are
//! kept: when the search fails, that completion ends the smallest prefix of the history
//! that cannot be linearized (a prefix up to an earlier completion was linearized on the
//! way, and the search is exhaustive).

use std::collections::HashMap;

use crate::history::{OpKind, Operation, Outcome};
use crate::memo::Memo;
use crate::model;
use crate::violation::Violation;

const NIL: usize = usize::MAX;

/// An invocation or a completion, at its place in time order.
struct Event {
    op: usize,
    completion: bool,
}

/// How to take a placement back.
enum Undo {
    Root,
    Acked { call: usize, before: usize },
    Unknown { index: usize, before: usize },
}

/// Where a configuration's enumeration of candidates stands.
enum Cursor {
    /// Walking the event list from this event.
    Acked(usize),
    /// Trying unknown operations from this index on, those invoked before `frontier`.
    Unknown { index: usize, frontier: usize },
}

struct Frame {
    undo: Undo,
    cursor: Cursor,
    /// Placed right after an unknown blind write (put, delete): only an operation that
    /// observes the register may come next, else that write could as well be left out.
    observe: bool,
}

/// Whether an operation's effect ignores the register's value.
fn blind(kind: &OpKind) -> bool {
    matches!(kind, OpKind::Put(_) | OpKind::Delete)
}

pub(crate) enum Found {
    Linearizable,
    Violation,
    Undecided,
}

/// The latest completion the search reached with its operation unplaced, and the order
/// and state it reached it with.
struct Stuck {
    at: usize,
    order: Vec<usize>,
    state: usize,
}

pub(crate) struct Search<'a> {
    ops: Vec<&'a Operation>,
    events: Vec<Event>,
    /// Per operation: the event positions of its invocation and completion (`NIL` if none),
    /// and its bit among the acknowledged ones (`NIL` for unknown ones).
    invoked_at: Vec<usize>,
    completed_at: Vec<usize>,
    acked_bit: Vec<usize>,
    acked: usize,
    /// Unknown operations, by invocation, and for each the previous one of the same kind.
    unknown: Vec<usize>,
    twin: Vec<Option<usize>>,
    /// The event list, over positions; `events.len()` is its head.
    next: Vec<usize>,
    prev: Vec<usize>,
    memo: Memo,
    pub(crate) steps: u64,
    stuck: Option<Stuck>,
}

fn flip(bits: &mut [u64], i: usize) {
    if let Some(w) = bits.get_mut(i / 64) {
        *w ^= 1 << (i % 64);
    }
}

fn has(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

impl<'a> Search<'a> {
    /// A search over `ops`: acknowledged and unknown ones only.
    pub(crate) fn new(ops: &[&'a Operation]) -> Self {
        let mut order: Vec<(u64, bool, usize)> = Vec::with_capacity(ops.len() * 2);
        let (mut acked_bit, mut acked) = (vec![NIL; ops.len()], 0);
        for (i, op) in ops.iter().enumerate() {
            order.push((op.invoked, false, i));
            if let Outcome::Ok(_) = op.outcome {
                order.push((op.completed, true, i));
                acked_bit[i] = acked;
                acked += 1;
            }
        }
        // Invocations sort before completions at equal times: such operations overlap.
        order.sort_unstable();
        let events: Vec<Event> = order
            .iter()
            .map(|&(_, completion, op)| Event { op, completion })
            .collect();
        let head = events.len();
        let (mut next, mut prev) = (vec![NIL; head + 1], vec![NIL; head + 1]);
        let (mut invoked_at, mut completed_at) = (vec![NIL; ops.len()], vec![NIL; ops.len()]);
        let (mut unknown, mut last) = (Vec::new(), head);
        for (pos, event) in events.iter().enumerate() {
            if event.completion {
                completed_at[event.op] = pos;
            } else {
                invoked_at[event.op] = pos;
            }
            if acked_bit[event.op] == NIL {
                unknown.push(event.op);
                continue;
            }
            next[last] = pos;
            prev[pos] = last;
            last = pos;
        }
        let mut last_of_kind = HashMap::new();
        let twin = unknown
            .iter()
            .enumerate()
            .map(|(index, &op)| last_of_kind.insert(&ops[op].kind, index))
            .collect();
        Search {
            ops: ops.to_vec(),
            events,
            invoked_at,
            completed_at,
            acked_bit,
            acked,
            unknown,
            twin,
            next,
            prev,
            memo: Memo::new(),
            steps: 0,
            stuck: None,
        }
    }

    /// Searches for a linearization, trying at most `budget` placements.
    pub(crate) fn run(&mut self, budget: u64) -> Found {
        let head = self.events.len();
        let mut acked = vec![0u64; self.acked.div_ceil(64)];
        let mut unknown = vec![0u64; self.unknown.len().div_ceil(64)];
        let mut state = 0;
        if self.next[head] == NIL {
            return Found::Linearizable;
        }
        self.memo.visit(&acked, state, &unknown, false);
        let root = Frame {
            undo: Undo::Root,
            cursor: Cursor::Acked(self.next[head]),
            observe: false,
        };
        let mut frames = vec![root];
        while let Some(frame) = frames.last_mut() {
            let (op, unknown_index) = match frame.cursor {
                Cursor::Acked(e) if e == NIL || self.events[e].completion => {
                    let frontier = if e == NIL { head } else { e };
                    frame.cursor = Cursor::Unknown { index: 0, frontier };
                    if e != NIL && self.stuck.as_ref().is_none_or(|s| e > s.at) {
                        let order = frames.iter().filter_map(|f| self.placed(&f.undo)).collect();
                        self.stuck = Some(Stuck {
                            at: e,
                            order,
                            state,
                        });
                    }
                    continue;
                }
                Cursor::Acked(e) => {
                    frame.cursor = Cursor::Acked(self.next[e]);
                    (self.events[e].op, None)
                }
                Cursor::Unknown { index, frontier } => {
                    match self.unknown.get(index) {
                        Some(&op) if self.invoked_at[op] < frontier => {
                            frame.cursor = Cursor::Unknown {
                                index: index + 1,
                                frontier,
                            };
                            let twin_unplaced =
                                self.twin[index].is_some_and(|twin| !has(&unknown, twin));
                            if has(&unknown, index) || twin_unplaced {
                                continue;
                            }
                            (op, Some(index))
                        }
                        _ => {
                            // Every candidate was tried: take this configuration back.
                            match frames.pop().map(|f| f.undo) {
                                Some(Undo::Acked { call, before }) => {
                                    self.unlift(call);
                                    flip(&mut acked, self.acked_bit[self.events[call].op]);
                                    state = before;
                                }
                                Some(Undo::Unknown { index, before }) => {
                                    flip(&mut unknown, index);
                                    state = before;
                                }
                                Some(Undo::Root) | None => {}
                            }
                            continue;
                        }
                    }
                }
            };
            let observe = frames.last().is_some_and(|f| f.observe);
            if observe && blind(&self.ops[op].kind) {
                continue;
            }
            if self.steps >= budget {
                return Found::Undecided;
            }
            self.steps += 1;
            let Some((after, ret)) = model::apply(&self.memo.states[state], &self.ops[op].kind)
            else {
                continue;
            };
            let after = self.memo.intern(after);
            let undo = match (&self.ops[op].outcome, unknown_index) {
                (Outcome::Ok(expected), None) if *expected == ret => {
                    let bit = self.acked_bit[op];
                    flip(&mut acked, bit);
                    if !self.memo.visit(&acked, after, &unknown, false) {
                        flip(&mut acked, bit);
                        continue;
                    }
                    let call = self.invoked_at[op];
                    self.lift(call);
                    Undo::Acked {
                        call,
                        before: state,
                    }
                }
                (Outcome::Unknown, Some(index)) if after != state => {
                    flip(&mut unknown, index);
                    if !self
                        .memo
                        .visit(&acked, after, &unknown, blind(&self.ops[op].kind))
                    {
                        flip(&mut unknown, index);
                        continue;
                    }
                    Undo::Unknown {
                        index,
                        before: state,
                    }
                }
                _ => continue,
            };
            let observe = matches!(undo, Undo::Unknown { .. }) && blind(&self.ops[op].kind);
            frames.push(Frame {
                undo,
                cursor: Cursor::Acked(self.next[head]),
                observe,
            });
            state = after;
            if self.next[head] == NIL {
                return Found::Linearizable;
            }
        }
        Found::Violation
    }

    /// The operation a frame placed.
    fn placed(&self, undo: &Undo) -> Option<usize> {
        match undo {
            Undo::Root => None,
            Undo::Acked { call, .. } => Some(self.events[*call].op),
            Undo::Unknown { index, .. } => self.unknown.get(*index).copied(),
        }
    }

    /// Unlinks an acknowledged operation's invocation and completion from the event list.
    fn lift(&mut self, call: usize) {
        let done = self.completed_at[self.events[call].op];
        for e in [call, done] {
            let (p, n) = (self.prev[e], self.next[e]);
            self.next[p] = n;
            if n != NIL {
                self.prev[n] = p;
            }
        }
    }

    /// Relinks what [`Search::lift`] unlinked, in reverse order.
    fn unlift(&mut self, call: usize) {
        let done = self.completed_at[self.events[call].op];
        for e in [done, call] {
            let (p, n) = (self.prev[e], self.next[e]);
            self.next[p] = e;
            if n != NIL {
                self.prev[n] = e;
            }
        }
    }

    /// Explains a failed search: the first completion no order could get past, the
    /// operations invoked before it, and the longest order found.
    pub(crate) fn explain(&self, key: &[u8]) -> Violation {
        let (at, order, state) = match &self.stuck {
            Some(s) => (
                s.at,
                s.order.clone(),
                self.memo.states.get(s.state).cloned().flatten(),
            ),
            None => (self.events.len(), Vec::new(), None),
        };
        let culprit = self.events.get(at).map(|e| self.ops[e.op].clone());
        let mut prefix: Vec<usize> = (0..self.ops.len())
            .filter(|&op| self.invoked_at[op] < at)
            .collect();
        prefix.sort_by_key(|&op| self.invoked_at[op]);
        let mut placed = vec![false; self.ops.len()];
        for &op in &order {
            placed[op] = true;
        }
        let pending = prefix.iter().filter(|&&op| !placed[op]);
        let prefix: Vec<Operation> = prefix.iter().map(|&op| self.ops[op].clone()).collect();
        Violation {
            writers: Violation::writers_of(culprit.as_ref(), &prefix),
            key: key.to_vec(),
            culprit,
            pending: pending.map(|&op| self.ops[op].clone()).collect(),
            prefix,
            linearized: order.iter().map(|&op| self.ops[op].clone()).collect(),
            state,
        }
    }
}
